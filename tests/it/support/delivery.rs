//! A delivery project in a temp folder, and reading back what a run recorded: shared by the
//! tests that drive `dwpipe deliver` (its stages, its signals, its resumes).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use dwpipe::schema::DeliverReport;
use serde_json::Value;

use super::{EXIT_CODES, Test};

/// A path in the repository.
pub(crate) fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A resumed run's last ledger lines when it verified again and passed its audit.
pub(crate) const RESUMED_AND_VERIFIED: [&str; 5] = [
    "deliver/resumed",
    "review/0/pass",
    "verify/0/pass",
    "audit/0/pass",
    "deliver/verified",
];

/// The example app's page the agent edits.
pub(crate) const PAGE: &str = "project/entry/src/main/ets/pages/Index.ets";

/// The example's scripted agent: sets the list spacing to 12vp and claims PASS.
pub(crate) const FIXING_AGENT: &str = r#"[sh, ../agent.sh, "{workspace}", "{brief}"]"#;

/// The example's verification: the spacing is 12.
pub(crate) const SPACING: &str = "  - name: spacing\n    argv: [grep, -q, \"List({ space: 12 })\", entry/src/main/ets/pages/Index.ets]\n";

/// A temp copy of examples/notes with `agent`, `verify` and `extra` in its dwpipe.yaml, auditing
/// the capture `replay` from device-fixtures.
pub(crate) fn project(agent: &str, verify: &str, replay: &str, extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join(PAGE);
    fs::create_dir_all(page.parent().unwrap()).unwrap();
    fs::copy(repo("examples/notes").join(PAGE), &page).unwrap();
    fs::copy(
        repo("examples/notes/pack.yaml"),
        dir.path().join("pack.yaml"),
    )
    .unwrap();
    fs::copy(repo("examples/notes/agent.sh"), dir.path().join("agent.sh")).unwrap();
    let config = format!(
        "workspace: project\nagent:\n  kind: command\n  argv: {agent}\n  timeout: 1m\nverify:\n{verify}\ndevice:\n  replay: {}\n{extra}",
        repo("device-fixtures").join(replay).display()
    );
    fs::write(dir.path().join("dwpipe.yaml"), config).unwrap();
    dir
}

/// `dwpipe deliver --pack pack.yaml --json` plus `extra`: (exit code, deliver.json, stderr).
#[track_caller]
pub(crate) fn deliver(dir: &Path, extra: &[&str]) -> (i32, DeliverReport, String) {
    delivered(
        Test::new(dir)
            .args(["deliver", "--pack", "pack.yaml", "--json"])
            .args(extra),
    )
}

/// `dwpipe deliver --json` plus `args` (a `--resume RUN` among them).
#[track_caller]
pub(crate) fn resume(dir: &Path, args: &[&str]) -> (i32, DeliverReport, String) {
    delivered(Test::new(dir).args(["deliver", "--json"]).args(args))
}

/// Runs a `deliver --json` ending with any documented exit code (its callers say which they
/// expect): (exit code, deliver.json, stderr).
#[track_caller]
fn delivered(test: Test) -> (i32, DeliverReport, String) {
    let ran = test.status_in(EXIT_CODES).run();
    let summary = serde_json::from_str(&ran.stdout).unwrap_or_else(|e| {
        panic!(
            "deliver --json printed no JSON ({e}): {}\n{}",
            ran.stdout, ran.stderr
        )
    });
    (ran.code, summary, ran.stderr)
}

/// `--resume RUN` on the fake device `FMR0223C13000649` serving notes-pass again from its first
/// recorded reply and without latency (a run continues on the device it began on):
/// `(exit code, stdout)`.
pub(crate) fn resume_on_the_device(dir: &Path, run: &Path) -> (i32, String) {
    let fast = super::fake_hdc(
        dir,
        "hdc-fast",
        &[repo("device-fixtures/notes-pass").display().to_string()],
        "",
    );
    let _ = fs::remove_dir_all(dir.join("state"));
    let (fast, run) = (fast.display().to_string(), run.display().to_string());
    let ran = Test::new(dir)
        .args(["--hdc", &fast, "deliver", "--json", "--resume", &run])
        .args(["--device", "FMR0223C13000649"])
        .status_in(EXIT_CODES)
        .run();
    (ran.code, ran.stdout)
}

/// The run directory a summary names.
pub(crate) fn run_dir(summary: &DeliverReport, dir: &Path) -> PathBuf {
    dir.join(&summary.run_dir)
}

/// Every ledger line as `stage/round/outcome` (`stage/outcome` for the delivery's own lines).
pub(crate) fn stages(run: &Path) -> Vec<String> {
    fs::read_to_string(run.join("ledger.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let entry: Value = serde_json::from_str(line).unwrap();
            let (stage, outcome) = (
                entry["stage"].as_str().unwrap(),
                entry["outcome"].as_str().unwrap(),
            );
            match entry["round"].as_u64() {
                Some(round) => format!("{stage}/{round}/{outcome}"),
                None => format!("{stage}/{outcome}"),
            }
        })
        .collect()
}

/// Points dwpipe.yaml's agent at another argv.
pub(crate) fn set_agent(dir: &Path, agent: &str) {
    let config = fs::read_to_string(dir.join("dwpipe.yaml")).unwrap();
    let config: String = config
        .lines()
        .map(|line| {
            if line.starts_with("  argv: ") && !line.contains("List(") {
                format!("  argv: {agent}\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    fs::write(dir.join("dwpipe.yaml"), config).unwrap();
}

/// Waits until `path` holds a pid (a process the test's scripts started), and returns it.
#[track_caller]
pub(crate) fn wait_for_pid(path: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(pid) = fs::read_to_string(path)
            .ok()
            .and_then(|text| text.lines().last()?.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a process is alive (a zombie waiting to be reaped counts as gone).
pub(crate) fn alive(pid: i32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

/// Whether a process is gone within a few seconds.
pub(crate) fn gone_soon(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    !alive(pid)
}

/// Sends `signal` to a child this test started.
pub(crate) fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) on a pid this test started has no memory-safety preconditions.
    #[expect(unsafe_code, reason = "std cannot send SIGTERM or SIGINT to a child")]
    unsafe {
        libc::kill(child.id() as libc::pid_t, signal);
    }
}

/// `dwpipe deliver --json` plus `args`, with the project's `bin/` first on PATH (the tools a
/// test installs there, a scripted `deveco` among them): (exit code, deliver.json).
#[track_caller]
pub(crate) fn deliver_with_path(dir: &Path, args: &[&str]) -> (i32, DeliverReport) {
    let test = Test::new(dir)
        .args(["deliver", "--json"])
        .args(args)
        .path_first(&dir.join("bin"));
    let (code, summary, _) = delivered(test);
    (code, summary)
}
