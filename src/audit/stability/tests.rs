//! Tests of `crate::audit::stability`.

use super::*;
use crate::probe::faults::Severity;

fn visit(faults: &[(&str, Severity)], running: bool) -> VisitFaults {
    VisitFaults {
        source: "hidumper -e --list",
        faults: faults
            .iter()
            .map(|(kind, severity)| Fault {
                kind: (*kind).to_owned(),
                severity: *severity,
                at: "2026-12-06 12:00:03".to_owned(),
                id: (*kind).to_owned(),
                process: "com.example.notes".to_owned(),
                lines: Vec::new(),
            })
            .collect(),
        others: 0,
        running,
        elsewhere: None,
    }
}

/// What leaves a visit unmeasured: a crash, a freeze (the app's or the system's), a kill,
/// or an app found shown that had no process left; a warning or an app never found shown
/// does not.
#[test]
fn a_visit_is_unmeasured_by_what_ended_its_app() {
    // (the visit's records, the app still running, found shown by its poll, why unmeasured)
    type Row<'r> = (&'r [(&'r str, Severity)], bool, bool, Option<&'r str>);
    let rows: [Row<'_>; 7] = [
        (
            &[("CppCrash", Severity::Crash)],
            false,
            true,
            Some("the app crashed"),
        ),
        (
            &[("appfreeze", Severity::Freeze)],
            false,
            true,
            Some("the app froze"),
        ),
        (
            &[("sysfreeze", Severity::Freeze)],
            true,
            true,
            Some("the system froze"),
        ),
        (
            &[("LowMemoryKill", Severity::Ended)],
            false,
            true,
            Some("the system ended the app"),
        ),
        (&[("syswarning", Severity::Warning)], true, true, None),
        (&[], false, true, Some("the app had no process left")),
        (&[], false, false, None),
    ];
    let mut elsewhere = visit(&[], true);
    elsewhere.elsewhere = Some("another app's window had the focus".to_owned());
    assert!(unmeasured(&elsewhere, true).is_some_and(|w| w.contains("another app's window")));
    assert_eq!(unmeasured(&elsewhere, false), None);
    for (faults, running, was_ready, said) in rows {
        let why = unmeasured(&visit(faults, running), was_ready);
        match said {
            Some(said) => assert!(
                why.as_deref().is_some_and(|w| w.contains(said)),
                "{faults:?}: {why:?}"
            ),
            None => assert_eq!(why, None, "{faults:?}"),
        }
    }
}
