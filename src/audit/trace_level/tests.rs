//! Tests of `crate::audit::trace_level`.

use super::*;

#[test]
fn the_threshold_is_read_as_hitrace_prints_it() {
    let rows = [
        (
            "2026/12/06 10:00:00 the current trace level threshold is Info\n",
            Some(("Info", "I")),
        ),
        (
            "2026/12/06 10:00:00 the current trace level threshold is Debug\n",
            Some(("Debug", "D")),
        ),
        (
            "2026/12/06 10:00:00 error: get trace level threshold failed, level() cannot be parsed.\n",
            None,
        ),
        ("hitrace: unrecognized option '--get_level'\n", None),
        ("the current trace level threshold is Verbose\n", None),
    ];
    for (said, expected) in rows {
        assert_eq!(threshold(said), expected, "{said}");
    }
    assert_eq!(level_file("step-02.ftrace"), "step-02.level");
}
