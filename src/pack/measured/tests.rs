//! The catalog of probes: every entry's arguments and defaults.

use super::*;

fn probe(id: &str) -> ProbeDoc {
    ProbeDoc {
        id: id.to_owned(),
        ..ProbeDoc::default()
    }
}

#[test]
fn accepts_every_catalog_probe_with_its_required_args() {
    let gap = ProbeDoc {
        from: Some("id:a".into()),
        to: Some("id:b[1]".into()),
        ..probe("layout.gap")
    };
    assert_eq!(check_probe(&gap).unwrap().unit, Some("vp"));
    let frames = ProbeDoc {
        metric: Some("jank".into()),
        ..probe("perf.frames")
    };
    assert_eq!(check_probe(&frames).unwrap().unit, Some("ms/s"));
    let cold = ProbeDoc {
        runs: Some(5),
        aggregate: Some("p90".into()),
        ..probe("perf.cold-start")
    };
    assert_eq!(check_probe(&cold).unwrap().unit, Some("ms"));
    assert_eq!(check_probe(&probe("a11y.labels")).unwrap().unit, None);
}

#[test]
fn refuses_what_the_catalog_does_not_allow() {
    let rows = [
        (probe("perf.coldstart"), "unknown probe"),
        (probe("layout.gap"), "needs `from`"),
        (
            ProbeDoc {
                target: Some("id:x".into()),
                ..probe("perf.cold-start")
            },
            "takes no argument `target`",
        ),
        (
            ProbeDoc {
                aggregate: Some("average".into()),
                ..probe("perf.memory")
            },
            "`aggregate: average` is not allowed",
        ),
        (
            ProbeDoc {
                target: Some("name:save".into()),
                ..probe("a11y.contrast")
            },
            "`target: name:save` is not allowed",
        ),
        (
            ProbeDoc {
                runs: Some(0),
                ..probe("perf.cold-start")
            },
            "at least 1",
        ),
    ];
    for (doc, expected) in rows {
        let message = check_probe(&doc).unwrap_err().to_string();
        assert!(message.contains(expected), "{message}");
    }
}
