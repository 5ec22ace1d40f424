//! Tests of `crate::verify::failure`.

use super::*;

#[test]
fn the_same_failure_on_another_day_has_the_same_fingerprint() {
    let monday = "\x1b[31merror\x1b[0m at 2026-11-29T20:53:01.123Z in /tmp/build-8f3a/Index.ets: 0x7ffd1234abcd\nrun 3f2b7a10-1c2d-4e5f-8a9b-0c1d2e3f4a5b took 1.52s\n";
    let tuesday = "\x1b[31merror\x1b[0m at 2026-11-30T08:12:44.987Z in /tmp/build-11aa/Index.ets: 0x7ffe9999ffff\nrun 00000000-1111-2222-3333-444444444444 took 2.3 s\n";
    assert_eq!(fingerprint("1", monday), fingerprint("1", tuesday));
    assert_eq!(
        normalize(monday),
        "error at <time> in <tmp>: <addr>\nrun <uuid> took <duration>"
    );
    assert_ne!(
        fingerprint("1", monday),
        fingerprint("2", monday),
        "another exit status is another failure"
    );
    assert_ne!(
        fingerprint("1", "error in Index.ets:12"),
        fingerprint("1", "error in Index.ets:13"),
        "line numbers matter"
    );
}
