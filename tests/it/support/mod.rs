//! Helpers shared by the integration tests.

pub(crate) mod ci;
pub(crate) mod delivery;
pub(crate) mod pg;

use std::fs;
use std::path::{Path, PathBuf};

/// Says a test skipped, and why: on stderr, and in the file `DWPIPE_TEST_SKIPS` names (the
/// runner `tests/skips.sh` sets it), so the run's summary counts and names every skip. A test
/// that skips is shown as `ok` by the harness: this is what keeps it from passing silently.
macro_rules! skipped {
    ($($why:tt)*) => {{
        let why = format!($($why)*);
        eprintln!("skipped: {why}");
        $crate::support::record_skip(&why);
    }};
}
pub(crate) use skipped;

/// Adds the running test and `why` to the run's list of skips.
pub(crate) fn record_skip(why: &str) {
    let Some(file) = std::env::var_os("DWPIPE_TEST_SKIPS") else {
        return;
    };
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    if let Ok(mut file) = fs::OpenOptions::new().append(true).open(file) {
        let _ = std::io::Write::write_all(&mut file, format!("{test}: {why}\n").as_bytes());
    }
}

/// The folder of the real device captures (`DWPIPE_CAPTURES`, which `.ci/run` sets to
/// `../shared/captures`); `None`, with a line saying the test is skipped, when it is not set or
/// not there — these captures are other people's recordings and never live in the repo.
#[cfg(feature = "real-captures")]
pub(crate) fn real_captures() -> Option<PathBuf> {
    match std::env::var_os("DWPIPE_CAPTURES").map(PathBuf::from) {
        Some(root) if root.is_dir() => Some(root),
        Some(root) => {
            crate::support::skipped!(
                "DWPIPE_CAPTURES={} is not a folder (the shared captures live beside the repo, in ../shared/captures)",
                root.display()
            );
            None
        }
        None => {
            crate::support::skipped!(
                "set DWPIPE_CAPTURES to the shared captures folder (../shared/captures beside the repo)"
            );
            None
        }
    }
}

/// The real `dwpipe`, with a lease folder of its own (`DWPIPE_LEASES`). Tests run side by side
/// and most drive the same fake serials: sharing the host's `dwpipe-leases` folder, the tests
/// of one serial would wait for each other's leases (and for a real job's on this host). The
/// lease tests, whose jobs must meet, name one folder for both.
pub(crate) fn dwpipe_command() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_dwpipe"));
    command.env("DWPIPE_LEASES", own_leases());
    command
}

/// A lease folder no other run of the suite uses, under cargo's folder for tests' files (in one
/// that any user may write, as the temporary folder: some tests run dwpipe as `nobody`).
pub(crate) fn own_leases() -> PathBuf {
    static ALL: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let all = ALL.get_or_init(|| {
        let all = Path::new(env!("CARGO_TARGET_TMPDIR")).join("leases");
        fs::create_dir_all(&all).unwrap();
        let mut shared = fs::metadata(&all).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut shared, 0o1777);
        fs::set_permissions(&all, shared).unwrap();
        all
    });
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    all.join(format!("{}-{n}", std::process::id()))
}

/// A child in its own process group, stopped with the whole group when dropped (a test that
/// fails leaves nothing running).
pub(crate) struct Group(pub(crate) std::process::Child);

impl Drop for Group {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0.id())])
            .status();
        let _ = self.0.wait();
    }
}

/// Writes an executable script.
pub(crate) fn executable(path: &Path, script: &str) {
    fs::write(path, script).unwrap();
    let mut permissions = fs::metadata(path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    fs::set_permissions(path, permissions).unwrap();
}

/// Writes an `hdc` shell wrapper in `dir` that runs `fake-hdc` serving `captures`
/// (comma-joined, `HOST:PORT=folder` allowed), with `extra_env` assignments before it.
pub(crate) fn fake_hdc(dir: &Path, name: &str, captures: &[String], extra_env: &str) -> PathBuf {
    let script = dir.join(name);
    executable(
        &script,
        &format!(
            "#!/bin/sh\nDWPIPE_FAKE_HDC_CAPTURES='{}' DWPIPE_FAKE_HDC_STATE='{}' {extra_env} exec '{}' \"$@\"\n",
            captures.join(","),
            dir.join("state").display(),
            env!("CARGO_BIN_EXE_fake-hdc"),
        ),
    );
    script
}

/// One run of the real `dwpipe`, said the way it is checked:
/// `Test::new(dir).args(["audit", …]).status(2).stderr_contains("E_…").run()`. It runs in `dir`
/// without any `DWPIPE_HDC` of the caller's environment, expects exit 0 unless told otherwise,
/// and on any mismatch fails with the command line and both streams.
#[must_use = "a Test does nothing until it is run"]
pub(crate) struct Test {
    dir: PathBuf,
    args: Vec<String>,
    status: i32,
    stdout: Vec<String>,
    stderr: Vec<String>,
}

/// What a [`Test`] printed.
pub(crate) struct Ran {
    /// Its standard output.
    pub(crate) stdout: String,
    /// Its standard error.
    pub(crate) stderr: String,
}

impl Test {
    /// `dwpipe` in `dir`, expected to exit 0.
    pub(crate) fn new(dir: &Path) -> Test {
        Test {
            dir: dir.to_owned(),
            args: Vec::new(),
            status: 0,
            stdout: Vec::new(),
            stderr: Vec::new(),
        }
    }

    /// Its arguments.
    pub(crate) fn args<S: AsRef<str>>(mut self, args: impl IntoIterator<Item = S>) -> Test {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// The exit code it must end with.
    pub(crate) fn status(mut self, code: i32) -> Test {
        self.status = code;
        self
    }

    /// A text its standard output must hold.
    pub(crate) fn stdout_contains(mut self, text: &str) -> Test {
        self.stdout.push(text.to_owned());
        self
    }

    /// A text its standard error must hold.
    pub(crate) fn stderr_contains(mut self, text: &str) -> Test {
        self.stderr.push(text.to_owned());
        self
    }

    /// Runs it and checks the exit code and every text; what it printed.
    #[track_caller]
    pub(crate) fn run(self) -> Ran {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        let output = dwpipe_command()
            .args(&args)
            .current_dir(&self.dir)
            .env_remove("DWPIPE_HDC")
            .env("PGPASSFILE", pg::pgpass())
            .output()
            .unwrap();
        let (code, stdout, stderr) = (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        );
        let said = || {
            format!(
                "dwpipe {}\n--- exit {code}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
                args.join(" ")
            )
        };
        assert_eq!(code, self.status, "exit code: {}", said());
        for text in &self.stdout {
            assert!(
                stdout.contains(text.as_str()),
                "stdout lacks {text:?}: {}",
                said()
            );
        }
        for text in &self.stderr {
            assert!(
                stderr.contains(text.as_str()),
                "stderr lacks {text:?}: {}",
                said()
            );
        }
        Ran { stdout, stderr }
    }
}

/// Runs the real `dwpipe` in `dir` (without any `DWPIPE_HDC` of the caller's environment):
/// `(exit code, stdout, stderr)`.
pub(crate) fn dwpipe(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = dwpipe_command()
        .args(args)
        .current_dir(dir)
        .env_remove("DWPIPE_HDC")
        .env("PGPASSFILE", pg::pgpass())
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_owned()
}

/// A copy of a recorded capture under another serial; `vanish` cuts the device off before its
/// scroll session.
#[track_caller]
pub(crate) fn device(root: &Path, from: &str, serial: &str, vanish: bool) -> String {
    let dir = root.join(serial);
    let source = repo().join("device-fixtures").join(from);
    fs::create_dir_all(dir.join("files")).unwrap();
    for entry in fs::read_dir(source.join("files")).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.join("files").join(entry.file_name())).unwrap();
    }
    let identity = fs::read_to_string(source.join("device.yaml")).unwrap();
    let identity: String = identity
        .lines()
        .map(|l| {
            if l.starts_with("serial:") {
                format!("serial: {serial}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    fs::write(dir.join("device.yaml"), identity).unwrap();
    let mut transcript = fs::read_to_string(source.join("transcript.yaml")).unwrap();
    if vanish {
        let cut = transcript
            .find("  - shell: hitrace -b 65536 graphic")
            .unwrap();
        transcript.insert_str(cut, "  - fault: vanish\n");
    }
    fs::write(dir.join("transcript.yaml"), transcript).unwrap();
    dir.display().to_string()
}

/// The embedded sessions without their settling sleeps (a fake device has nothing to settle),
/// passed as `--playbooks` overrides for fake-hdc, which steps over a capture's recorded
/// pauses. Readiness polls stay (their looks are recorded exchanges), with a ceiling no busy
/// test machine reaches, so they end on the looks the capture recorded.
#[track_caller]
pub(crate) fn no_sleeps(dir: &Path) -> String {
    let sessions = dir.join("playbooks/sessions");
    fs::create_dir_all(&sessions).unwrap();
    for entry in fs::read_dir(repo().join("playbooks/sessions")).unwrap() {
        let entry = entry.unwrap();
        let text = fs::read_to_string(entry.path()).unwrap();
        let kept: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("- sleep:"))
            .map(|l| match l.split_once("within:") {
                Some((indent, _)) => format!("{indent}within: 60s\n"),
                None => format!("{l}\n"),
            })
            .collect();
        fs::write(sessions.join(entry.file_name()), kept).unwrap();
    }
    dir.join("playbooks").display().to_string()
}

/// A live audit of `capture` through fake-hdc (a device, never a replay) in `dir/out`, under
/// the serial `serial`: its report's path.
#[track_caller]
pub(crate) fn live_audit(dir: &Path, capture: &str, serial: &str, out: &str) -> PathBuf {
    let own = dir.join(format!("hdc-{out}"));
    fs::create_dir_all(&own).unwrap();
    let phone = device(&own, capture, serial, false);
    let hdc = fake_hdc(&own, "hdc", &[phone], "");
    let playbooks = no_sleeps(&own);
    let (code, _, stderr) = dwpipe(
        dir,
        &[
            "audit",
            "--pack",
            "pack.lock.json",
            "--device",
            serial,
            "--hdc",
            hdc.to_str().unwrap(),
            "--playbooks",
            &playbooks,
            "--out",
            out,
        ],
    );
    assert!(code == 0 || code == 1, "{stderr}");
    dir.join(out).join("audit-1.json")
}

/// A copy of the passing notes capture with one recorded file replaced (its hash updated).
pub(crate) fn capture_with(root: &Path, file: &str, bytes: &[u8]) -> PathBuf {
    let capture = root.join("capture");
    let source = repo().join("device-fixtures/notes-pass");
    copy_tree(&source, &capture);
    let old = dwpipe::hash::sha256_hex(&fs::read(source.join("files").join(file)).unwrap());
    let transcript = fs::read_to_string(source.join("transcript.yaml"))
        .unwrap()
        .replace(&old, &dwpipe::hash::sha256_hex(bytes));
    fs::write(capture.join("transcript.yaml"), transcript).unwrap();
    fs::write(capture.join("files").join(file), bytes).unwrap();
    capture
}

/// Copies a folder and everything under it.
#[track_caller]
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

/// A temp folder with the example pack frozen in it.
#[track_caller]
pub(crate) fn frozen_example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pack = repo().join("examples/notes/pack.yaml");
    let (code, _, stderr) = dwpipe(dir.path(), &["freeze", pack.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    dir
}

/// A temp folder with `tests/fixtures/<pack>` frozen in it.
#[track_caller]
pub(crate) fn frozen_fixture(pack: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pack = fixture(pack);
    let (code, _, stderr) = dwpipe(dir.path(), &["freeze", pack.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    dir
}

/// `dwpipe audit --pack pack.lock.json --replay CAPTURE --out out` in `dir`:
/// `(exit code, stdout, stderr)`.
pub(crate) fn replay_audit(dir: &Path, capture: &Path) -> (i32, String, String) {
    replay_audit_into(dir, capture, "out", &[])
}

/// `dwpipe audit --pack pack.lock.json --replay CAPTURE --out OUT` plus `extra` in `dir`:
/// `(exit code, stdout, stderr)`.
pub(crate) fn replay_audit_into(
    dir: &Path,
    capture: &Path,
    out: &str,
    extra: &[&str],
) -> (i32, String, String) {
    let capture = capture.display().to_string();
    let mut args = vec![
        "audit",
        "--pack",
        "pack.lock.json",
        "--replay",
        &capture,
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    dwpipe(dir, &args)
}

/// Each device of a lab matrix (`lab.json`) with its verdict, in the matrix's order.
pub(crate) fn device_verdicts(lab: &serde_json::Value) -> Vec<(&str, &str)> {
    lab["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["serial"].as_str().unwrap(),
                d["verdict"].as_str().unwrap(),
            )
        })
        .collect()
}

/// The check of `criterion` in a report.
#[track_caller]
pub(crate) fn check<'a>(report: &'a serde_json::Value, criterion: &str) -> &'a serde_json::Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["criterionId"] == criterion)
        .unwrap_or_else(|| panic!("no check of {criterion}"))
}

/// `out/audit-1.json` in `dir`.
pub(crate) fn first_audit(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(dir.join("out/audit-1.json")).unwrap()).unwrap()
}

/// A file of `tests/fixtures`.
pub(crate) fn fixture(path: &str) -> PathBuf {
    repo().join("tests/fixtures").join(path)
}

/// `dwpipe inspect ARGS`: `(exit code, stdout, stderr)`.
pub(crate) fn inspect(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["inspect"];
    all.extend_from_slice(args);
    dwpipe(Path::new("."), &all)
}

/// A document dwpipe wrote, read as its schema type (`dwpipe::schema`): a field renamed in the
/// schema is a compile error here, not a lookup that quietly finds nothing.
#[track_caller]
pub(crate) fn read<T: serde::de::DeserializeOwned>(path: impl AsRef<Path>) -> T {
    let path = path.as_ref();
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A document dwpipe printed (`--json`), read as its schema type.
#[track_caller]
pub(crate) fn parse<T: serde::de::DeserializeOwned>(printed: &str) -> T {
    serde_json::from_str(printed).unwrap_or_else(|e| panic!("not the document ({e}): {printed}"))
}

/// What the tests ask of an audit report, typed.
pub(crate) trait Audited {
    /// The check of criterion `id`.
    fn check(&self, id: &str) -> &dwpipe::schema::ReportCheck;
    /// Every diagnostic's code, in order.
    fn codes(&self) -> Vec<&str>;
}

impl Audited for dwpipe::schema::AuditReport {
    #[track_caller]
    fn check(&self, id: &str) -> &dwpipe::schema::ReportCheck {
        self.checks
            .iter()
            .find(|c| c.check.criterion_id == id)
            .unwrap_or_else(|| panic!("no check of {id}"))
    }

    fn codes(&self) -> Vec<&str> {
        self.diagnostics.iter().map(|d| d.code.as_str()).collect()
    }
}
