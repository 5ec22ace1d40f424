//! Tests of `crate::attest::make`.

use super::*;

/// A second-format audit of a live device that passed, to vary.
fn passed() -> AuditReport {
    let text =
        include_str!("../../../tests/fixtures/audits/second-format/regress-base/audit-1.json");
    let mut report: AuditReport = serde_json::from_str(text).unwrap();
    report.verdict = Verdict::Pass;
    report.summary.fail = 0;
    report.summary.unverified = 0;
    report.source = Some(Source::Device {
        serial: "FMR0223C13000649".to_owned(),
        model: None,
        software_version: None,
    });
    report
}

#[test]
fn only_a_complete_passing_live_audit_is_passed() {
    let replay = Source::Replay {
        capture: "/home/me/captures/mate60".to_owned(),
        transcript_sha256: "ab".repeat(32),
        unserved: 0,
        first_unserved: None,
    };
    type Edit = fn(&mut AuditReport, &Source);
    let rows: [(&str, Edit, &str); 6] = [
        ("a pass", |_, _| {}, ""),
        (
            "a failure",
            |r, _| r.verdict = Verdict::Fail,
            "the audit failed",
        ),
        ("unverified", |r, _| r.summary.unverified = 3, "3 of"),
        (
            "a replay",
            |r, s| r.source = Some(s.clone()),
            "a replay of a recorded capture",
        ),
        ("no source", |r, _| r.source = None, "does not say where"),
        (
            "a lost lease",
            |r, _| {
                r.lease = Some(crate::device::lease::LeaseRecord {
                    store: "host".to_owned(),
                    key: "FMR0223C13000649".to_owned(),
                    waited_seconds: 0.0,
                    held_from: "2026-12-06T00:00:00Z".to_owned(),
                    held_to: "2026-12-06T00:01:00Z".to_owned(),
                    lost: Some("at 00:00:30 another job took it".to_owned()),
                });
            },
            "lease was lost",
        ),
    ];
    for (name, edit, why) in rows {
        let mut report = passed();
        edit(&mut report, &replay);
        let found = not_passed(&report);
        if why.is_empty() {
            assert!(found.is_empty(), "{name}: {found:?}");
        } else {
            assert!(found.iter().any(|w| w.contains(why)), "{name}: {found:?}");
        }
    }
}

#[test]
fn a_replay_names_its_capture_never_the_hosts_path() {
    let mut report = passed();
    report.source = Some(Source::Replay {
        capture: "/home/me/captures/mate60".to_owned(),
        transcript_sha256: "ab".repeat(32),
        unserved: 0,
        first_unserved: None,
    });
    let made = statements(&Attested {
        report: &report,
        report_file: "audit-1.json".to_owned(),
        report_sha256: "cd".repeat(32),
        subjects: vec![("app.hap".to_owned(), "ef".repeat(32))],
        time: "2026-12-06T00:00:00Z".to_owned(),
    });
    assert_eq!(made.vsa.predicate.verification_result, FAILED);
    assert_eq!(
        made.verdict.predicate.source.capture.as_deref(),
        Some("mate60")
    );
    let text = String::from_utf8(payload(&made.vsa)).unwrap()
        + &String::from_utf8(payload(&made.verdict)).unwrap();
    assert!(!text.contains("/home/me"), "{text}");
    assert!(text.contains("capture:mate60/transcript.yaml"));
}
