//! Tests of `crate::audit::measure`.

use super::*;

/// A run whose first visit was cut short at 1000 ms reads at least 1000 ms: a faster visit
/// made again never stands in for it; a slower one stands, with the bound said.
#[test]
fn a_cut_visit_proves_a_lower_bound_that_a_faster_repeat_never_lowers() {
    let rows = [
        (Some(1100.0), 1100.0, "proved at least 1000 ms"),
        (
            Some(600.0),
            1000.0,
            "at least 1000 ms: its first visit was cut short there (made again, it read 600 ms",
        ),
    ];
    for (read, value, said) in rows {
        let (bounded_value, detail) =
            bounded(read.map(Value::Number), "a reading".to_owned(), 1000.0);
        assert_eq!(bounded_value, Some(Value::Number(value)), "{read:?}");
        assert!(detail.contains(said), "{read:?}: {detail}");
    }
    assert_eq!(
        bounded(None, "none".to_owned(), 1000.0),
        (None, "none".to_owned())
    );
    assert_eq!(
        super::super::window::bounds(
            "the wait inside the trace: 1000 ms: …\ncut short (P-01: …): …\nat least: P-01 1000 ms\nat least: P-03 700 ms\n"
        ),
        [("P-01".to_owned(), 1000.0), ("P-03".to_owned(), 700.0)]
    );
}
