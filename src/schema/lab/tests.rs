//! Tests of `crate::schema::lab`.

use super::*;

fn device(verdict: DeviceVerdict) -> LabDevice {
    LabDevice {
        serial: "FMR0223C13000649".to_owned(),
        server: "local".to_owned(),
        model: None,
        software_version: None,
        verdict,
        error: None,
        report: None,
        unrecorded: None,
        fold: None,
        outcome: None,
    }
}

#[test]
fn a_lab_passes_on_every_device_or_on_as_many_as_it_needs() {
    use DeviceVerdict::{Error, Fail, NotMeasured, Pass};
    let gone = || UnreachableServer {
        server: "10.0.0.5:8710".to_owned(),
        reason: "Connect server failed".to_owned(),
    };
    let cases: &[(&[DeviceVerdict], bool, Option<u32>, LabVerdict)] = &[
        (&[Pass, Pass], false, None, LabVerdict::Pass),
        (&[Pass, NotMeasured], false, None, LabVerdict::Incomplete),
        (&[Pass, Error], false, None, LabVerdict::Incomplete),
        (&[Pass], true, None, LabVerdict::Incomplete),
        (&[], false, None, LabVerdict::Incomplete),
        (&[Pass, Fail], false, None, LabVerdict::Fail),
        (
            &[Pass, NotMeasured, NotMeasured],
            false,
            Some(1),
            LabVerdict::Pass,
        ),
        (&[Pass, Error], true, Some(1), LabVerdict::Pass),
        (&[Pass, NotMeasured], false, Some(2), LabVerdict::Incomplete),
        (&[Pass, Pass, Fail], false, Some(2), LabVerdict::Fail),
        (&[], false, Some(1), LabVerdict::Incomplete),
        (
            &[NotMeasured, Error],
            false,
            Some(0),
            LabVerdict::Incomplete,
        ),
    ];
    for (verdicts, unreachable, need, expected) in cases {
        let devices: Vec<LabDevice> = verdicts.iter().map(|v| device(*v)).collect();
        let unreachable: Vec<UnreachableServer> = if *unreachable {
            vec![gone()]
        } else {
            Vec::new()
        };
        assert_eq!(
            verdict_of(&devices, &unreachable, *need),
            *expected,
            "{verdicts:?} unreachable {} need {need:?}",
            unreachable.len()
        );
    }
    // A device whose audit the history could not record is not shown to count.
    let mut unrecorded = device(Pass);
    unrecorded.unrecorded = Some("the history refused it".to_owned());
    assert_eq!(
        verdict_of(&[unrecorded], &[], Some(1)),
        LabVerdict::Incomplete
    );
}
