//! Replay of the shipped fixture, without any process.

use std::path::Path;

use super::*;
use crate::shell::ShellCommand;
use crate::test_support::block_on;

#[test]
fn the_shipped_fixture_replays_in_order_then_vanishes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("device-fixtures/mate60pro-identity");
    let device = ReplayDevice::open(&root).unwrap();
    assert_eq!(device.serial(), "FMR0223C13000649");
    block_on(async {
        assert_eq!(
            device.identity().await.unwrap().virtual_pixel_ratio,
            Some(3.25)
        );
        let stop = ShellCommand::fixed("aa force-stop com.example.notes");
        let reply = device.shell(&stop).await.unwrap();
        assert_eq!(reply.output, "force stop process successfully.\n");
        let pidof = ShellCommand::fixed("pidof com.example.notes");
        assert_eq!(device.shell(&pidof).await.unwrap().status, 1);
        assert!(matches!(
            device.shell(&stop).await,
            Err(DeviceError::DeviceNotFound { .. })
        ));
        assert!(matches!(
            device.identity().await,
            Err(DeviceError::DeviceNotFound { .. })
        ));
        assert_eq!(device.served(), 3);
    });
}

#[test]
fn servers_are_host_and_port() {
    assert_eq!(
        Server::parse("10.0.0.5:8710").unwrap().to_string(),
        "10.0.0.5:8710"
    );
    assert_eq!(
        Server::parse("[::1]:8710").unwrap().to_string(),
        "[::1]:8710"
    );
    // A host name is resolved before hdc runs (its `-s` takes IP literals only), and both
    // are said.
    assert_eq!(
        Server::parse("localhost:8710").unwrap().to_string(),
        "localhost:8710 (127.0.0.1)"
    );
    let unresolved = Server::parse("no-such-host.invalid:8710")
        .unwrap_err()
        .to_string();
    assert!(
        unresolved.contains("the host name `no-such-host.invalid` does not resolve")
            && unresolved.contains("hdc takes IP addresses only"),
        "{unresolved}"
    );
    for bad in [
        "10.0.0.5",
        "10.0.0.5:0",
        "10.0.0.5:99999",
        ":8710",
        "-x:1",
        "a b:1",
        "h;rm:1",
        "::1:8710:x",
        "[fe80::1:8710",
    ] {
        assert!(Server::parse(bad).is_err(), "{bad}");
    }
}
