//! The session engine in process: a plan run against a replayed capture, its events seen by a
//! reporter of the test's own, its outcome and the files it wrote.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::audit::AuditEvent;
use crate::device::{AnyDevice, ReplayDevice};
use crate::gate::Verdict;
use crate::pack::{Frozen, freeze_file};
use crate::playbook::Playbooks;
use crate::process::Cancel;
use crate::target::{Opened, Target};
use crate::test_support::block_on;

use super::{
    AuditPlan, BuildUnderTest, Event, Outcome, PackSource, Reporter, Request, SessionError, run,
};

/// Every event, in words.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl Reporter for Log {
    fn event(&self, event: Event<'_>) {
        let said = match event {
            Event::Audit(AuditEvent::Started { serial, visits }) => {
                format!("started {serial} {visits}")
            }
            Event::Audit(AuditEvent::Session { run, session, .. }) => format!("{run} {session}"),
            Event::Audit(AuditEvent::SessionDone) => "done".to_owned(),
            other => format!("{other:?}"),
        };
        self.0.lock().unwrap().push(said);
    }
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn request<'a>(
    frozen: &'a Frozen,
    playbooks: &'a Playbooks,
    capture: &Path,
    out: &Path,
    runs: Option<u32>,
) -> Request<'a> {
    Request {
        pack: PackSource::Loaded {
            frozen,
            lock: repo("examples/notes/pack.yaml"),
            playbooks,
        },
        target: Target::Replay {
            capture: capture.to_owned(),
            realtime: false,
        },
        record: None,
        out: Some(out.to_owned()),
        runs,
        ab: None,
        history: None,
        strict: false,
        auditor: None,
        build: BuildUnderTest::default(),
        require: Vec::new(),
        sign_key: None,
        subjects: Vec::new(),
    }
}

fn replay(capture: &Path) -> Opened {
    Opened::One(AnyDevice::Replay(ReplayDevice::open(capture).unwrap()))
}

#[test]
fn an_audit_runs_through_the_engine_and_tells_its_reporter_every_visit() {
    let frozen = freeze_file(&repo("examples/notes/pack.yaml")).unwrap();
    let playbooks = Playbooks::load(None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let capture = repo("device-fixtures/notes-pass");
    let plan = AuditPlan::new(request(&frozen, &playbooks, &capture, dir.path(), None)).unwrap();
    let log = Log::default();
    let outcome = block_on(run(&plan, &replay(&capture), &Cancel::new(), &log)).unwrap();
    let Outcome::Audit { report, written } = &outcome else {
        panic!("one device gives one audit: {outcome:?}");
    };
    assert_eq!(report.verdict, Verdict::Pass);
    assert_eq!(outcome.exit_code(), 0);
    assert!(outcome.failures(&frozen).is_empty());
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["audit-1.json", "audit-1.md", "junit.xml", "report.html"]
    );
    let log = log.0.into_inner().unwrap();
    let visits = [
        "1 cold-start",
        "1 hypium",
        "1 scroll",
        "1 ui",
        "1 flow open-note",
        "2 cold-start",
        "2 flow open-note",
        "3 cold-start",
        "3 flow open-note",
    ];
    let mut expected = vec!["started FMR0223C13000649 9".to_owned()];
    for visit in visits {
        expected.push(visit.to_owned());
        expected.push("done".to_owned());
    }
    assert_eq!(log, expected);
}

#[test]
fn the_plan_refuses_what_the_capture_cannot_answer_before_the_first_call() {
    let frozen = freeze_file(&repo("examples/notes/pack.yaml")).unwrap();
    let playbooks = Playbooks::load(None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let capture = repo("device-fixtures/notes-pass");
    let plan = AuditPlan::new(request(&frozen, &playbooks, &capture, dir.path(), Some(2))).unwrap();
    let log = Log::default();
    let error = block_on(run(&plan, &replay(&capture), &Cancel::new(), &log)).unwrap_err();
    let SessionError::Refused(refused) = &error else {
        panic!("refused, not measured: {error:?}");
    };
    assert_eq!(refused.code(), "E_CAPTURE_PLAN");
    assert!(refused.is_invalid_input());
    assert!(log.0.into_inner().unwrap().is_empty(), "nothing began");
    assert!(!dir.path().join("evidence").exists());
}
