//! Tests of `crate::audit::checks`.

use super::*;

fn reading(run: u32, detail: &str) -> RunReading {
    RunReading {
        run,
        value: None,
        detail: detail.to_owned(),
        files: Vec::new(),
    }
}

#[test]
fn runs_that_say_the_same_thing_are_named_once() {
    type Runs<'a> = &'a [(u32, &'a str)];
    type Named<'a> = &'a [(&'a str, &'a str)];
    let table: [(Runs<'_>, Named<'_>); 4] = [
        (&[(1, "a")], &[("run 1", "a")]),
        (&[(1, "a"), (2, "a"), (3, "a")], &[("runs 1–3", "a")]),
        (
            &[(1, "a"), (2, "b"), (3, "a")],
            &[("runs 1, 3", "a"), ("run 2", "b")],
        ),
        (
            &[(1, "a"), (2, "a"), (3, "b"), (4, "a"), (5, "a"), (6, "a")],
            &[("runs 1, 2, 4–6", "a"), ("run 3", "b")],
        ),
    ];
    for (runs, expected) in table {
        let runs: Vec<RunReading> = runs.iter().map(|&(n, d)| reading(n, d)).collect();
        let got: Vec<(String, &str)> = folded(&runs);
        let expected: Vec<(String, &str)> =
            expected.iter().map(|&(r, d)| (r.to_owned(), d)).collect();
        assert_eq!(got, expected);
    }
}
