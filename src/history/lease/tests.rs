//! Tests of `crate::history::lease`.

use super::*;

#[test]
fn lock_keys_are_stable_and_non_negative() {
    assert_eq!(lock_key("A"), lock_key("A"));
    assert_ne!(lock_key("A"), lock_key("B"));
    for key in ["A", "B", "FMR0223C13000649", "127.0.0.1:5555@lab"] {
        assert!(lock_key(key) >= 0);
    }
}
