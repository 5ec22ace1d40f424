//! Helpers shared by the integration tests. The Unix-only modules' helpers (scripts made
//! executable, shell wrappers, running as `nobody`) are compiled on Unix alone.
#![cfg_attr(
    not(unix),
    allow(dead_code, reason = "helpers of the modules that run on Unix alone")
)]

#[cfg(unix)]
pub(crate) mod attestation;
#[cfg(unix)]
pub(crate) mod ci;
#[cfg(unix)]
pub(crate) mod delivery;
pub(crate) mod hook;
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
        #[cfg(unix)]
        {
            let mut shared = fs::metadata(&all).unwrap().permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut shared, 0o1777);
            fs::set_permissions(&all, shared).unwrap();
        }
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

/// The folder of this build's binaries (dwpipe, dwpipe-example, fake-hdc).
pub(crate) fn binaries() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_dwpipe"))
        .parent()
        .unwrap()
        .to_owned()
}

/// PATH with this build's binaries first (the example's agent and verification are found
/// there, as `cargo install` puts them on a user's PATH).
pub(crate) fn path_with_binaries() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(binaries()).chain(std::env::split_paths(&path))).unwrap()
}

/// Writes an executable script.
#[cfg(unix)]
pub(crate) fn executable(path: &Path, script: &str) {
    fs::write(path, script).unwrap();
    let mut permissions = fs::metadata(path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    fs::set_permissions(path, permissions).unwrap();
}

#[cfg(unix)]
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
    env: Vec<(String, String)>,
    nobody: bool,
    statuses: Vec<i32>,
    stdout: Vec<String>,
    stderr: Vec<String>,
}

/// What a [`Test`] printed, and how it ended.
pub(crate) struct Ran {
    /// Its exit code (one of those the test allowed).
    pub(crate) code: i32,
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
            env: Vec::new(),
            nobody: false,
            statuses: vec![0],
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
    pub(crate) fn status(self, code: i32) -> Test {
        self.status_in(&[code])
    }

    /// The exit codes it may end with (a helper whose callers tell a pass from a failure by
    /// the document it wrote): [`Ran::code`] says which.
    pub(crate) fn status_in(mut self, codes: &[i32]) -> Test {
        self.statuses = codes.to_vec();
        self
    }

    /// An environment variable it runs with.
    pub(crate) fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Test {
        let value = value.as_ref().to_string_lossy().into_owned();
        self.env.push((key.to_owned(), value));
        self
    }

    /// `folder` first on its PATH (the tools a test installs there).
    pub(crate) fn path_first(self, folder: &Path) -> Test {
        let path = format!(
            "{}:{}",
            folder.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        self.env("PATH", path)
    }

    /// Runs it as `nobody` when the test runs as root, whom no file permission stops (so that
    /// a read-only file is read-only to it); the folders it works in must be open to all.
    pub(crate) fn unprivileged(mut self) -> Test {
        self.nobody = true;
        self
    }

    /// The command it runs: the real `dwpipe` in its folder, with its arguments and environment.
    fn command(&self) -> std::process::Command {
        let mut command = dwpipe_command();
        command
            .args(&self.args)
            .current_dir(&self.dir)
            .env_remove("DWPIPE_HDC")
            .env("PGPASSFILE", pg::pgpass())
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        #[cfg(unix)]
        if self.nobody && root() {
            std::os::unix::process::CommandExt::uid(&mut command, 65534);
            std::os::unix::process::CommandExt::gid(&mut command, 65534);
        }
        command
    }

    /// Starts it without waiting, stdout piped (for `--json`), stderr dropped: for the tests
    /// that signal a run midway.
    pub(crate) fn spawn(self) -> std::process::Child {
        self.command()
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
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
        let output = self.command().output().unwrap();
        let (code, stdout, stderr) = (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        );
        let said = || {
            format!(
                "dwpipe {}\n--- exit {code}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
                self.args.join(" ")
            )
        };
        assert!(
            self.statuses.contains(&code),
            "exit code {code}, not one of {:?}: {}",
            self.statuses,
            said()
        );
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
        Ran {
            code,
            stdout,
            stderr,
        }
    }
}

/// Whether this test runs as root.
#[cfg(unix)]
pub(crate) fn root() -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Every exit code dwpipe documents (docs/design.md §1), for a helper whose callers check which one
/// it ended with: a panic's 101 or a signal's death is never among them.
pub(crate) const EXIT_CODES: &[i32] = &[0, 1, 2, 3, 130];

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_owned()
}

/// A recorded capture of `device-fixtures`, by name.
pub(crate) fn capture(name: &str) -> PathBuf {
    repo().join("device-fixtures").join(name)
}

/// A copy of a recorded capture under another serial; `vanish` cuts the device off before its
/// scroll session.
#[track_caller]
pub(crate) fn device(root: &Path, from: &str, serial: &str, vanish: bool) -> String {
    let dir = root.join(serial);
    let source = capture(from);
    fs::create_dir_all(dir.join("files")).unwrap();
    // A capture that pulled nothing has no `files/` in a clean clone (git keeps no empty folder).
    for entry in fs::read_dir(source.join("files")).into_iter().flatten() {
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
        // A session whose steps were all sleeps (the stability session's idle) has none.
        let kept = match kept.trim_end().strip_suffix("steps:") {
            Some(before) => format!("{before}steps: []\n"),
            None => kept,
        };
        fs::write(sessions.join(entry.file_name()), kept).unwrap();
    }
    dir.join("playbooks").display().to_string()
}

/// A live audit of `capture` through fake-hdc (a device, never a replay) in `dir/out`, under
/// the serial `serial`: its report's path.
#[track_caller]
#[cfg(unix)]
pub(crate) fn live_audit(dir: &Path, capture: &str, serial: &str, out: &str) -> PathBuf {
    let own = dir.join(format!("hdc-{out}"));
    fs::create_dir_all(&own).unwrap();
    let phone = device(&own, capture, serial, false);
    let hdc = fake_hdc(&own, "hdc", &[phone], "");
    let playbooks = no_sleeps(&own);
    Test::new(dir)
        .args(["audit", "--pack", "pack.lock.json", "--device", serial])
        .args(["--hdc", hdc.to_str().unwrap(), "--playbooks", &playbooks])
        .args(["--out", out])
        .status_in(&[0, 1])
        .run();
    dir.join(out).join("audit-1.json")
}

/// The audit at `report` as if it had started at `started` (and been another run): its
/// kept times rewritten, their hash in the report, and the report's own — an older audit of
/// the same device, for a history to hold.
#[track_caller]
pub(crate) fn redate(report: &Path, started: &str) {
    let folder = report.parent().unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&fs::read(report).unwrap()).unwrap();
    let kept = folder.join(doc["inputs"]["times"]["path"].as_str().unwrap());
    let mut times: serde_json::Value = serde_json::from_slice(&fs::read(&kept).unwrap()).unwrap();
    times["started"] = started.into();
    times["run-id"] = dwpipe::hash::sha256_hex(started.as_bytes())[..32].into();
    let bytes = serde_json::to_vec_pretty(&times).unwrap();
    fs::write(&kept, &bytes).unwrap();
    doc["inputs"]["times"]["sha256"] = dwpipe::hash::sha256_hex(&bytes).into();
    doc["started"] = started.into();
    doc["run-id"] = times["run-id"].clone();
    fs::write(report, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
}

/// The audit at `report` as an audit of format 4 wrote it, before an audit kept its times:
/// its times file removed, the report naming none (written back, and returned).
#[track_caller]
pub(crate) fn before_kept_times(report: &Path) -> serde_json::Value {
    let folder = report.parent().unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&fs::read(report).unwrap()).unwrap();
    let kept = folder.join(doc["inputs"]["times"]["path"].as_str().unwrap());
    fs::remove_file(kept).unwrap();
    doc["inputs"].as_object_mut().unwrap().remove("times");
    doc.as_object_mut().unwrap().remove("run-id");
    doc["format-version"] = 4.into();
    fs::write(report, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    doc
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
    Test::new(dir.path())
        .args(["freeze", pack.to_str().unwrap()])
        .run();
    dir
}

/// A temp folder with `tests/fixtures/<pack>` frozen in it.
#[track_caller]
pub(crate) fn frozen_fixture(pack: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pack = fixture(pack);
    Test::new(dir.path())
        .args(["freeze", pack.to_str().unwrap()])
        .run();
    dir
}

/// `dwpipe audit --pack pack.lock.json --replay CAPTURE --out out` in `dir`, to be told its
/// exit code and run.
pub(crate) fn replay_audit(dir: &Path, capture: &Path) -> Test {
    replay_audit_into(dir, capture, "out")
}

/// `dwpipe audit --pack pack.lock.json --replay CAPTURE --out OUT` in `dir` (more arguments
/// may follow).
pub(crate) fn replay_audit_into(dir: &Path, capture: &Path, out: &str) -> Test {
    let capture = capture.display().to_string();
    Test::new(dir).args([
        "audit",
        "--pack",
        "pack.lock.json",
        "--replay",
        &capture,
        "--out",
        out,
    ])
}

/// `out/audit-1.json` in `dir`.
#[track_caller]
pub(crate) fn first_audit(dir: &Path) -> dwpipe::schema::AuditReport {
    read(dir.join("out/audit-1.json"))
}

/// A file of `tests/fixtures`.
pub(crate) fn fixture(path: &str) -> PathBuf {
    repo().join("tests/fixtures").join(path)
}

/// `dwpipe inspect ARGS`, to be told its exit code and run.
pub(crate) fn inspect(args: &[&str]) -> Test {
    Test::new(Path::new(".")).args(["inspect"]).args(args)
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

/// The diagnostics a `--json` output carries (a refusal's whole document, a freeze's
/// warnings), each read as the schema's `Diagnostic`.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Said {
    /// The findings, in order.
    pub(crate) diagnostics: Vec<dwpipe::diagnostic::Diagnostic>,
}

impl Said {
    /// Every diagnostic's code, in order.
    pub(crate) fn codes(&self) -> Vec<&str> {
        self.diagnostics.iter().map(|d| d.code.as_str()).collect()
    }
}

/// What the tests ask of an audit report, typed.
pub(crate) trait Audited {
    /// The check of criterion `id`.
    fn check(&self, id: &str) -> &dwpipe::schema::ReportCheck;
    /// Every diagnostic's code, in order.
    fn codes(&self) -> Vec<&str>;
    /// The diagnostics with code `code`, in order.
    fn with_code(&self, code: &str) -> Vec<&dwpipe::diagnostic::Diagnostic>;
    /// What criterion `id`'s check says.
    fn result(&self, id: &str) -> dwpipe::gate::CheckResult {
        self.check(id).check.result
    }
    /// The actual criterion `id`'s verdict was recomputed from.
    fn actual(&self, id: &str) -> Option<&str> {
        self.check(id).check.actual.as_deref()
    }
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

    fn with_code(&self, code: &str) -> Vec<&dwpipe::diagnostic::Diagnostic> {
        self.diagnostics.iter().filter(|d| d.code == code).collect()
    }
}

/// What the tests ask of a lab matrix (`lab.json`), typed.
pub(crate) trait Matrix {
    /// The row of criterion `id`.
    fn row(&self, id: &str) -> &dwpipe::schema::LabRow;
    /// The cells of criterion `id`'s row, one per device, as the matrix spells them.
    fn cells(&self, id: &str) -> Vec<&str>;
    /// Each device's verdict, in the matrix's order.
    fn verdicts(&self) -> Vec<&str>;
    /// Each device with its verdict, in the matrix's order.
    fn device_verdicts(&self) -> Vec<(&str, &str)>;
}

impl Matrix for dwpipe::schema::LabReport {
    #[track_caller]
    fn row(&self, id: &str) -> &dwpipe::schema::LabRow {
        self.rows
            .iter()
            .find(|r| r.criterion_id == id)
            .unwrap_or_else(|| panic!("no row of {id}"))
    }

    #[track_caller]
    fn cells(&self, id: &str) -> Vec<&str> {
        self.row(id).results.iter().map(|c| c.as_str()).collect()
    }

    fn verdicts(&self) -> Vec<&str> {
        self.devices.iter().map(|d| d.verdict.as_str()).collect()
    }

    fn device_verdicts(&self) -> Vec<(&str, &str)> {
        self.devices
            .iter()
            .map(|d| (d.serial.as_str(), d.verdict.as_str()))
            .collect()
    }
}

/// Waits (up to two minutes) until a lock file in `leases` names `holder`'s pid as its
/// holder (`… (pid 42 on lab-2), since …`); panics if `holder` ends first.
#[track_caller]
pub(crate) fn leasing(leases: &Path, holder: &mut std::process::Child) {
    let said = format!("pid {} on ", holder.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !fs::read_dir(leases)
        .into_iter()
        .flatten()
        .flatten()
        .any(|f| fs::read_to_string(f.path()).is_ok_and(|t| t.contains(&said)))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the first audit never leased"
        );
        if let Some(status) = holder.try_wait().unwrap() {
            panic!("the first audit ended before it was seen leasing: {status}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
