//! Scripted fake agents: one that fixes the code, one that breaks it, one that changes
//! nothing, one that hangs, one that prints garbage JSON, one that floods.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use super::*;
use crate::config::Agent;
use crate::config::AgentKind;
use crate::config::Transport;
use crate::process::Cancel;
use crate::test_support::block_on;
use crate::verify::{StatCache, fingerprint};

fn agent(script: &str, timeout: Duration) -> Agent {
    Agent {
        kind: AgentKind::Command,
        argv: vec![
            "sh".into(),
            "-c".into(),
            script.into(),
            "agent".into(),
            "{workspace}".into(),
            "{brief}".into(),
            "{round}".into(),
        ],
        timeout,
        idle_timeout: Duration::from_secs(60),
        env: BTreeMap::new(),
        program: "deveco".into(),
        mode: "goal".into(),
        config_env: "DEVECO_CONFIG_CONTENT".into(),
        config: None,
        transport: Transport::Run,
    }
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("Index.ets"), "List({ space: 8 })\n").unwrap();
    dir
}

fn print(dir: &Path) -> String {
    block_on(fingerprint(dir, &mut StatCache::default(), &Cancel::new())).unwrap()
}

fn go(agent: &Agent, dir: &Path) -> AgentRun {
    let brief = dir.join("brief.md");
    fs::write(&brief, "# Goal").unwrap();
    let log = dir.join("agent-1.log");
    block_on(dispatch(
        agent,
        dir,
        &brief,
        "# Goal",
        1,
        &log,
        &Cancel::new(),
    ))
    .unwrap()
}

const FIXES: &str = r#"sed -i 's/space: 8/space: 12/' "$1/Index.ets"; echo '{"type":"tool_use","part":{"type":"tool","tool":"edit","state":{"status":"completed","output":"ok"}}}'; echo '{"type":"text","part":{"type":"text","text":"Spacing fixed. Result: PASS"}}'"#;

#[test]
#[cfg_attr(windows, ignore = "the scripted agents are `sh` scripts")]
fn an_agent_that_fixes_the_code_claims_pass_and_changes_the_workspace() {
    let dir = workspace();
    let before = print(dir.path());
    let run = go(&agent(FIXES, Duration::from_secs(10)), dir.path());
    assert_eq!(run.claim, Claim::Pass);
    assert_eq!(
        (
            run.events,
            run.tools.as_slice(),
            run.end.to_string().as_str()
        ),
        (2, &["edit".to_owned()][..], "exited 0")
    );
    assert_ne!(before, print(dir.path()));
    assert!(
        fs::read_to_string(dir.path().join("agent-1.log"))
            .unwrap()
            .contains("Result: PASS")
    );
}

#[test]
#[cfg_attr(windows, ignore = "the scripted agents are `sh` scripts")]
fn an_agent_that_breaks_the_code_may_still_claim_pass() {
    let dir = workspace();
    let run = go(
        &agent(
            r#"echo 'garbage {{' > "$1/Index.ets"; echo 'Result: PASS'"#,
            Duration::from_secs(10),
        ),
        dir.path(),
    );
    assert_eq!(run.claim, Claim::Pass, "a claim, not a verdict");
    assert_eq!(
        fs::read_to_string(dir.path().join("Index.ets")).unwrap(),
        "garbage {{\n"
    );
}

#[test]
#[cfg_attr(windows, ignore = "the scripted agents are `sh` scripts")]
fn an_agent_that_changes_nothing_leaves_the_fingerprint_alone() {
    let dir = workspace();
    let before = print(dir.path());
    let run = go(
        &agent("echo 'All good. Result: PASS'", Duration::from_secs(10)),
        dir.path(),
    );
    assert_eq!(run.claim, Claim::Pass);
    // The brief and the log are written outside the fingerprint's view in a real run
    // (.dwpipe/); here they sit in the folder, so compare without them.
    fs::remove_file(dir.path().join("brief.md")).unwrap();
    fs::remove_file(dir.path().join("agent-1.log")).unwrap();
    assert_eq!(before, print(dir.path()), "no_changes");
}

#[test]
#[cfg_attr(windows, ignore = "the scripted agents are `sh` scripts")]
fn an_agent_that_hangs_is_stopped() {
    let dir = workspace();
    let started = Instant::now();
    let run = go(&agent("sleep 30", Duration::from_millis(300)), dir.path());
    assert!(run.end.to_string().starts_with("timed out"), "{}", run.end);
    assert_eq!(run.claim, Claim::None);
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
#[cfg_attr(windows, ignore = "the scripted agents are `sh` scripts")]
fn garbage_json_floods_and_errors_are_recorded_not_believed() {
    let dir = workspace();
    let run = go(
        &agent(
            r#"echo '{"type": "text", "part": {"text": "Result: PA'; echo '{not json'; echo '{"type":"error","error":{"name":"APIError","data":{"message":"rate limited"}}}'; exit 1"#,
            Duration::from_secs(10),
        ),
        dir.path(),
    );
    assert_eq!(
        (run.claim, run.unparsed_lines, run.end.to_string().as_str()),
        (Claim::None, 2, "exited 1")
    );
    assert_eq!(run.errors, ["rate limited"]);
    let flood = go(
        &agent(
            "head -c 30000000 /dev/zero | tr '\\0' x; echo; echo 'Result: INCOMPLETE'",
            Duration::from_secs(20),
        ),
        dir.path(),
    );
    assert_eq!(
        flood.claim,
        Claim::Incomplete,
        "the tail with the claim is kept"
    );
    assert!(fs::metadata(dir.path().join("agent-1.log")).unwrap().len() < 8 * 1024 * 1024);
}

#[test]
fn argv_for_deveco_and_for_commands() {
    let deveco = Agent {
        kind: AgentKind::Deveco,
        argv: vec!["-m".into(), "deepseek/v4".into()],
        timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(60),
        env: BTreeMap::new(),
        program: "deveco".into(),
        mode: "goal".into(),
        config_env: "DEVECO_CONFIG_CONTENT".into(),
        config: None,
        transport: Transport::Run,
    };
    assert_eq!(
        argv(
            &deveco,
            Path::new("/ws"),
            Path::new("/run/brief.md"),
            "# Goal\nline",
            0
        ),
        [
            "deveco",
            "run",
            "--agent",
            "goal",
            "--format",
            "json",
            "--dir",
            &native("/ws"),
            "-m",
            "deepseek/v4",
            "# Goal\nline"
        ]
    );
    let command = agent("x", Duration::from_secs(1));
    assert_eq!(
        argv(
            &command,
            Path::new("/ws"),
            Path::new("/run/brief.md"),
            "",
            3
        )[4..],
        [native("/ws"), native("/run/brief.md"), "3".to_owned()]
    );
    let missing = Agent {
        kind: AgentKind::Deveco,
        argv: vec![],
        timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(60),
        env: BTreeMap::new(),
        program: "deveco".into(),
        mode: "goal".into(),
        config_env: "DEVECO_CONFIG_CONTENT".into(),
        config: None,
        transport: Transport::Run,
    };
    let dir = workspace();
    let result = block_on(dispatch(
        &missing,
        dir.path(),
        &dir.path().join("b"),
        "",
        0,
        &dir.path().join("log"),
        &Cancel::new(),
    ));
    assert!(
        matches!(result, Err(AgentError::NotFound(p)) if p == "deveco"),
        "no deveco on this machine"
    );
}

#[test]
fn an_agent_end_reads_back_from_its_words() {
    for end in [
        AgentEnd::Exited(0),
        AgentEnd::Exited(-1),
        AgentEnd::Signalled(9),
        AgentEnd::TimedOut(Duration::from_secs(60)),
        AgentEnd::TimedOut(Duration::from_millis(1500)),
    ] {
        assert_eq!(end.to_string().parse(), Ok(end), "{end}");
    }
    assert_eq!(AgentEnd::Exited(0).to_string(), "exited 0");
    assert!(AgentEnd::Exited(0).is_clean() && !AgentEnd::Exited(1).is_clean());
    for bad in ["exited", "exited zero", "cancelled", "timed out after soon"] {
        assert!(bad.parse::<AgentEnd>().is_err(), "{bad}");
    }
}

/// `path` made absolute as the host makes it (on Windows, on the current drive).
fn native(path: &str) -> String {
    std::path::absolute(path).unwrap().display().to_string()
}
