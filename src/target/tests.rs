//! Targets opened: a device, a capture, a lab's roster.

use super::*;

#[test]
fn every_member_gets_a_folder_of_its_own() {
    let server = |s: &str| Some(Server::parse(s).unwrap());
    let mut members = [
        Member::new("127.0.0.1:5555".into(), server("10.0.0.1:8710")),
        Member::new("127.0.0.1:5555".into(), server("10.0.0.2:8710")),
        Member::new("FMR0223C13000649".into(), None),
        // Two keys that sanitize alike, on one server.
        Member::new("a:b".into(), None),
        Member::new("a_b".into(), None),
    ];
    settle_folders(members.iter_mut());
    let folders: Vec<String> = members.iter().map(Member::folder).collect();
    assert_eq!(
        folders,
        [
            "10.0.0.1_8710_127.0.0.1_5555",
            "10.0.0.2_8710_127.0.0.1_5555",
            "FMR0223C13000649",
            "local_a_b",
            "local_a_b-2",
        ]
    );
}
