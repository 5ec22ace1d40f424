//! Tests of `crate::report::html::charts`.

use super::*;

#[test]
fn steps_are_round_and_give_a_handful_of_ticks() {
    for (top, ticks, step) in [
        (1000.0, 6.0, 200.0),
        (1296.0, 6.0, 250.0),
        (50.0, 6.0, 10.0),
        (7.0, 4.0, 2.0),
        (61.0, 4.0, 20.0),
    ] {
        assert_eq!(nice_step(top, ticks), step, "{top}/{ticks}");
    }
    assert_eq!(ms(16.0), "16");
    assert_eq!(ms(16.667), "16.7");
}
