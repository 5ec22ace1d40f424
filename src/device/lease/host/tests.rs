//! Tests of `crate::device::lease::host`.

use super::*;

#[test]
fn a_host_lease_is_held_until_its_holder_lets_it_go_and_says_who_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let leases = HostLeases {
        folder: dir.path().join("leases"),
    };
    let first = leases
        .try_take("FMR0223C13000649", "dwpipe audit (pid 1)")
        .unwrap();
    assert!(first.is_some());
    assert!(
        leases
            .try_take("FMR0223C13000649", "dwpipe deliver (pid 2)")
            .unwrap()
            .is_none()
    );
    let holder = leases.holder("FMR0223C13000649").unwrap();
    assert!(
        holder.starts_with("dwpipe audit (pid 1), since "),
        "{holder}"
    );
    // Another device is another lease.
    assert!(
        leases
            .try_take("127.0.0.1:5555@lab-2", "x")
            .unwrap()
            .is_some()
    );
    drop(first);
    assert!(
        leases
            .try_take("FMR0223C13000649", "dwpipe deliver (pid 2)")
            .unwrap()
            .is_some()
    );
    assert_ne!(HostLeases::name("a:1"), HostLeases::name("a_1"));
}
