//! Tests of `crate::device::lease::slot`.

use super::*;
use std::sync::atomic::{AtomicBool, Ordering};

#[test]
fn a_serial_is_its_own_key_and_a_network_address_is_its_hosts() {
    assert_eq!(key("FMR0223C13000649", Some("lab-2")), "FMR0223C13000649");
    assert_eq!(key("127.0.0.1:5555", Some("lab-2")), "127.0.0.1:5555@lab-2");
}

/// A store whose lease is lost as soon as `cut` says so (a server's connection cut).
struct Cuttable(Arc<AtomicBool>);
struct Guard(Arc<AtomicBool>);

impl LeaseGuard for Guard {
    fn confirmation(&self) -> Confirmation {
        let cut = Arc::clone(&self.0);
        Box::new(move || {
            cut.load(Ordering::Relaxed)
                .then(|| "at noon: the connection was cut".to_owned())
        })
    }
}

impl LeaseStore for Cuttable {
    fn try_take(&self, _: &str, _: &str) -> Result<Option<Box<dyn LeaseGuard>>, TakeError> {
        Ok(Some(Box::new(Guard(Arc::clone(&self.0)))))
    }
    fn holder(&self, _: &str) -> Option<String> {
        None
    }
    fn kind(&self) -> &'static str {
        "postgres"
    }
}

/// A lease lost after the last call is found by the check before the record, and the
/// record says `lost`, even once the lease was let go.
#[test]
fn a_lease_found_lost_before_the_record_is_recorded_lost() {
    let cut = Arc::new(AtomicBool::new(false));
    let slot = LeaseSlot::new(
        Leasing {
            store: Arc::new(Cuttable(Arc::clone(&cut))),
            wait: Duration::from_secs(1),
            holder: "test".to_owned(),
            on_wait: Arc::new(|_| {}),
        },
        "PHONE",
        None,
    );
    let cancel = Cancel::new();
    crate::test_support::block_on(async {
        slot.ensure(&cancel).await.unwrap();
        slot.confirm().await;
        assert_eq!(slot.record().unwrap().lost, None);
        cut.store(true, Ordering::Relaxed);
        slot.confirm().await;
    });
    slot.release();
    let record = slot.record().unwrap();
    assert_eq!(
        record.lost.as_deref(),
        Some("at noon: the connection was cut")
    );
}
