//! What dwpipe trusts, attacked through the real binary: links, FIFOs and folders planted
//! where a lock file goes (as root against a file it must not touch, and as an unprivileged
//! user against a root-owned one), secrets written every way into a history address, doctored
//! reports imported, a lease lost mid-audit, readings that are not numbers, a server that
//! takes a connection and never answers, an ACP agent asking through a link and leaving its
//! replies unread, a precondition on an unknown state, the OpenCode plugin's own bounds.

use dwpipe::schema::Claim;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{
    EXIT_CODES, Ran, Test, device, fake_hdc, frozen_example, live_audit, no_sleeps,
};

/// A phone behind fake-hdc (`PHONE-T`, the passing notes capture) beside the frozen example
/// pack, with a lease folder of the test's own (root's, open to all, sticky).
struct Phone {
    dir: tempfile::TempDir,
    hdc: String,
    playbooks: String,
    leases: PathBuf,
}

fn phone() -> Phone {
    let dir = frozen_example();
    let capture = device(dir.path(), "notes-pass", "PHONE-T", false);
    let hdc = fake_hdc(dir.path(), "hdc", &[capture], "");
    let playbooks = no_sleeps(dir.path());
    let leases = dir.path().join("leases");
    fs::create_dir(&leases).unwrap();
    fs::set_permissions(&leases, fs::Permissions::from_mode(0o1777)).unwrap();
    Phone {
        hdc: hdc.display().to_string(),
        playbooks,
        leases,
        dir,
    }
}

impl Phone {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `dwpipe audit` of the phone into `out`, its leases in `leases`; as `nobody` when
    /// `unprivileged`.
    fn audit(&self, leases: &Path, out: &str, unprivileged: bool) -> (i32, String, String) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dwpipe"));
        command
            .args(["audit", "--pack", "pack.lock.json", "--device", "PHONE-T"])
            .args([
                "--hdc",
                &self.hdc,
                "--playbooks",
                &self.playbooks,
                "--out",
                out,
            ])
            .args(["--lease-wait", "3s"])
            .current_dir(self.path())
            .env("DWPIPE_LEASES", leases)
            .env_remove("DWPIPE_HDC");
        if unprivileged {
            open_to_all(self.path());
            fs::set_permissions(leases, fs::Permissions::from_mode(0o1777)).unwrap();
            command.uid(65534).gid(65534);
        }
        let output = command.output().unwrap();
        (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    }
}

/// The lock file of the lease on `key`, as dwpipe names it.
fn lock_name(key: &str) -> String {
    let name: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let digest = &dwpipe::hash::sha256_hex(key.as_bytes())[..8];
    format!("dwpipe-lease-{name}-{digest}.lock")
}

/// Every folder under `dir` (and `dir`) open to every user, sticky as the temporary folder
/// is: an unprivileged run works there, and a lease folder under them is one to trust.
#[track_caller]
fn open_to_all(dir: &Path) {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o1777)).unwrap();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            open_to_all(&path);
        } else if meta.is_file() {
            let mode = meta.mode() & 0o777;
            fs::set_permissions(&path, fs::Permissions::from_mode(mode | 0o044)).unwrap();
        }
    }
}

fn root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[track_caller]
fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// What a file holds and its mode: what a planted link must leave as it was.
fn state(path: &Path) -> (String, u32) {
    (
        fs::read_to_string(path).unwrap(),
        fs::metadata(path).unwrap().mode() & 0o7777,
    )
}

#[test]
fn a_link_planted_as_a_lock_file_is_refused_and_what_it_names_untouched() {
    let phone = phone();
    let victim = phone.path().join("passwd");
    fs::write(&victim, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o600)).unwrap();
    let before = state(&victim);
    symlink(&victim, phone.leases.join(lock_name("PHONE-T"))).unwrap();
    let (code, _, stderr) = phone.audit(&phone.leases, "out", false);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("E_DEVICE_LEASE") && stderr.contains("a symbolic link to"),
        "{stderr}"
    );
    assert!(stderr.contains("rm "), "the fix names the file: {stderr}");
    assert_eq!(
        state(&victim),
        before,
        "the file the link names is untouched"
    );
    assert!(!phone.path().join("out/audit-1.json").exists());
    // A FIFO, a folder or a device in its place: refused at once, within --lease-wait.
    for (plant, found) in [
        (&(|p: &Path| mkfifo(p)) as &dyn Fn(&Path), "a FIFO"),
        (&|p: &Path| fs::create_dir(p).unwrap(), "a folder"),
    ] {
        let lock = phone.leases.join(lock_name("PHONE-T"));
        if fs::symlink_metadata(&lock).is_ok_and(|m| m.is_dir()) {
            fs::remove_dir(&lock).unwrap();
        } else {
            let _ = fs::remove_file(&lock);
        }
        plant(&lock);
        let started = Instant::now();
        let (code, _, stderr) = phone.audit(&phone.leases, "out", false);
        assert_eq!(code, 3, "{stderr}");
        assert!(stderr.contains(found), "{found}: {stderr}");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{found}: refused in {:?}, not waited on",
            started.elapsed()
        );
    }
}

#[test]
fn an_unprivileged_job_never_writes_a_root_owned_file_through_a_planted_link() {
    if !root() {
        crate::support::skipped!("running as another user than root takes root");
        return;
    }
    let phone = phone();
    // Root's file, readable by all: a job as `nobody` opening it for writing through a link
    // would fail anyway; opened read-only for its lock it would still be taken as a lease.
    let victim = phone.path().join("root-owned");
    fs::write(&victim, "root's\n").unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o644)).unwrap();
    symlink(&victim, phone.leases.join(lock_name("PHONE-T"))).unwrap();
    let before = state(&victim);
    let (code, _, stderr) = phone.audit(&phone.leases, "out", true);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("a symbolic link to"), "{stderr}");
    assert_eq!(state(&victim), before);
    assert_eq!(fs::metadata(&victim).unwrap().uid(), 0);
}

#[test]
fn a_lease_folder_another_user_owns_or_may_write_is_refused() {
    let phone = phone();
    let open = phone.path().join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let (code, _, stderr) = phone.audit(&open, "out", false);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("without the sticky bit"), "{stderr}");
    assert!(stderr.contains("chmod +t"), "the fix: {stderr}");
    assert_eq!(
        fs::read_dir(&open).unwrap().count(),
        0,
        "nothing made there"
    );
    if root() {
        let theirs = phone.path().join("theirs");
        fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let (code, _, stderr) = phone.audit(&theirs, "out", false);
        assert_eq!(code, 3, "{stderr}");
        assert!(stderr.contains("belongs to user 65534"), "{stderr}");
    }
    // The folder as it should be: the audit runs and records its lease.
    let (code, _, stderr) = phone.audit(&phone.leases, "out", false);
    assert_eq!(code, 0, "{stderr}");
    let lock = phone.leases.join(lock_name("PHONE-T"));
    // 0644 or less: another user could hard-link a file open to all, and block the device.
    assert_eq!(fs::metadata(&lock).unwrap().mode() & 0o777 & !0o644, 0);
    assert!(
        fs::read_to_string(&lock)
            .unwrap()
            .starts_with("dwpipe audit (pid "),
        "who held it, for whoever waits"
    );
}

/// A lease folder's whole path is walked without following a link nobody trusted planted: a
/// folder on the way another user owns is refused before anything is made (a link planted in
/// it would have led root's lock files anywhere), and every level dwpipe makes is sticky.
#[test]
fn no_lease_file_is_written_through_a_link_on_the_way() {
    if !root() {
        crate::support::skipped!("a folder another user owns takes root to make");
        return;
    }
    let phone = phone();
    let theirs = phone.path().join("theirs");
    fs::create_dir(&theirs).unwrap();
    let victim = phone.path().join("etc");
    fs::create_dir(&victim).unwrap();
    symlink(&victim, theirs.join("leases")).unwrap();
    std::os::unix::fs::lchown(theirs.join("leases"), Some(65534), Some(65534)).unwrap();
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    let (code, _, stderr) = phone.audit(&theirs.join("leases"), "out", false);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("E_DEVICE_LEASE") && stderr.contains("belongs to user 65534"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_dir(&victim).unwrap().count(),
        0,
        "nothing made through the link"
    );
    // A level that does not exist yet is made sticky and open to every user's jobs.
    let deep = phone.path().join("lab/site/leases");
    let (code, _, stderr) = phone.audit(&deep, "deep", false);
    assert_eq!(code, 0, "{stderr}");
    for level in ["lab", "lab/site", "lab/site/leases"] {
        let mode = fs::metadata(phone.path().join(level)).unwrap().mode() & 0o7777;
        assert_eq!(mode, 0o1777, "{level}");
    }
}

/// A lease file its owner removes while another job holds it (a sticky folder lets nobody
/// else): the holder stops at its next call, never sharing the phone with the job that locks
/// a new file by the same name.
#[test]
fn a_lease_file_removed_while_held_stops_its_holder() {
    let phone = phone();
    let mut command = Command::new(env!("CARGO_BIN_EXE_dwpipe"));
    command
        .args(["audit", "--pack", "pack.lock.json", "--device", "PHONE-T"])
        .args([
            "--hdc",
            &phone.hdc,
            "--playbooks",
            &phone.playbooks,
            "--out",
            "out",
        ])
        .current_dir(phone.path())
        .env("DWPIPE_LEASES", &phone.leases)
        .env("DWPIPE_FAKE_HDC_LATENCY", "100ms")
        .env_remove("DWPIPE_HDC")
        .stderr(Stdio::piped())
        .stdout(Stdio::null());
    let mut audit = command.spawn().unwrap();
    let lock = phone.leases.join(lock_name("PHONE-T"));
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(lock.exists() && phone.path().join("out/evidence").is_dir()) {
        assert!(Instant::now() < deadline, "the audit never began");
        assert!(audit.try_wait().unwrap().is_none(), "the audit ended first");
        std::thread::sleep(Duration::from_millis(10));
    }
    fs::remove_file(&lock).unwrap();
    let output = audit.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("E_LEASE_LOST")
            && stderr.contains("was removed or replaced while it was held"),
        "{stderr}"
    );
    assert!(!phone.path().join("out/audit-1.json").exists());
}

/// `--out` keeps to its folder: a link planted as `evidence` (or as a device's folder under
/// it) in an existing `--out` folder is refused, and nothing is written where it leads.
#[test]
fn an_audit_writes_no_evidence_through_a_link_in_its_out_folder() {
    let phone = phone();
    let elsewhere = phone.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    for (name, plant) in [("out-a", "evidence"), ("out-b", "evidence/PHONE-T")] {
        let out = phone.path().join(name);
        let link = out.join(plant);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        symlink(&elsewhere, &link).unwrap();
        let (code, _, stderr) = phone.audit(&phone.leases, name, false);
        assert_ne!(code, 0, "{stderr}");
        assert!(
            stderr.contains("E_PLANTED") && stderr.contains("a symbolic link to"),
            "{plant}: {stderr}"
        );
        assert_eq!(
            fs::read_dir(&elsewhere).unwrap().count(),
            0,
            "{plant}: nothing written where the link leads"
        );
        assert!(!out.join("audit-1.json").exists(), "{plant}");
    }
}

#[test]
fn an_empty_dwpipe_leases_is_the_default_never_the_current_folder() {
    let phone = phone();
    let (code, _, stderr) = phone.audit(Path::new(""), "out", false);
    assert_eq!(code, 0, "{stderr}");
    let strays: Vec<_> = fs::read_dir(phone.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("dwpipe-lease-"))
        .collect();
    assert!(strays.is_empty(), "{strays:?}");
}

#[test]
fn a_link_planted_as_the_workspace_claim_is_refused_untouched() {
    use crate::support::delivery::{FIXING_AGENT, SPACING, project};
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let victim = dir.path().join("bashrc");
    fs::write(&victim, "export PATH\n").unwrap();
    let claim = dir.path().join("project/.dwpipe");
    fs::create_dir_all(&claim).unwrap();
    symlink(&victim, claim.join("deliver.lock")).unwrap();
    let stderr = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml"])
        .status(3)
        .run()
        .stderr;
    assert!(
        stderr.contains("E_DELIVER_LOCK") && stderr.contains("a symbolic link to"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "export PATH\n");
    // Asked for JSON, the refusal is a JSON diagnostic.
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml", "--json"])
        .status(3)
        .run();
    let said: crate::support::Said = crate::support::parse(&stdout);
    assert_eq!(said.codes()[0], "E_DELIVER_LOCK", "{said:?}");
}

/// A secret written into a history address every way a user might: in the user info with
/// `/`, `?` or `%40` in it, as a parameter however spelled or percent-encoded, in a
/// connection string, under a scheme in capitals, in an address mistyped (one slash, no
/// slash, a space, quotes).
fn secret_addresses() -> Vec<String> {
    let s = "S3cr3tPw";
    vec![
        format!("postgres://lab:{s}@127.0.0.1:1/dwpipe"),
        format!("postgres://lab:{s}/x@127.0.0.1:1/dwpipe"),
        format!("postgres://lab:{s}?x@127.0.0.1:1/dwpipe"),
        format!("postgres://lab:{s}%40x@127.0.0.1:1/dwpipe"),
        format!("postgres://lab@127.0.0.1:1/dwpipe?password={s}"),
        format!("postgres://lab@127.0.0.1:1/dwpipe?pass%77ord={s}"),
        format!("POSTGRES://lab:{s}@127.0.0.1:1/dwpipe"),
        format!("host=127.0.0.1 port=1 user=lab password={s} dbname=dwpipe"),
        format!("postgres://lab:p@{s}@127.0.0.1:1/dwpipe"),
        // Meant as addresses and not written as ones: refused, never an SQLite file.
        format!("postgres:/lab:{s}@127.0.0.1:1/dwpipe"),
        format!("postgres:lab:{s}@127.0.0.1:1/dwpipe"),
        format!(" postgres://lab:{s}@127.0.0.1:1/dwpipe"),
        format!("\"postgres://lab:{s}@127.0.0.1:1/dwpipe\""),
        format!("postgres ://lab:{s}@127.0.0.1:1/dwpipe"),
        format!("postgres//lab:{s}@127.0.0.1:1/dwpipe"),
        format!("PostgreSQL/lab:{s}@127.0.0.1:1/dwpipe"),
    ]
}

#[test]
fn a_secret_in_a_history_address_is_never_printed_nor_a_file_named() {
    let dir = frozen_example();
    let config = |history: &str| {
        fs::write(
            dir.path().join("dwpipe.yaml"),
            format!("workspace: .\nverify: []\nhistory: '{history}'\n"),
        )
        .unwrap();
    };
    for address in secret_addresses() {
        for args in [
            vec!["history", "--history", &address],
            vec!["history", "--json", "--history", &address],
            vec![
                "history",
                "--history",
                &address,
                "prune",
                "--keep-last",
                "1",
            ],
            vec![
                "audit",
                "--pack",
                "pack.lock.json",
                "--replay",
                "none",
                "--history",
                &address,
            ],
            vec![
                "compare",
                "--against",
                "last-pass",
                "x.json",
                "--history",
                &address,
            ],
        ] {
            let Ran { stdout, stderr, .. } = Test::new(dir.path()).args(&args).status(2).run();
            assert!(
                !stdout.contains("S3cr") && !stderr.contains("S3cr"),
                "{args:?} printed the secret: {stdout}{stderr}"
            );
        }
        config(&address);
        for args in [
            vec!["doctor", "--config", "dwpipe.yaml"],
            vec!["doctor", "--json"],
        ] {
            let Ran { stdout, stderr, .. } = Test::new(dir.path())
                .args(&args)
                .status_in(EXIT_CODES)
                .run();
            assert!(
                !stdout.contains("S3cr") && !stderr.contains("S3cr"),
                "{args:?} printed the secret: {stdout}{stderr}"
            );
        }
        let named: Vec<_> = walk(dir.path())
            .into_iter()
            .filter(|p| p.to_string_lossy().contains("S3cr"))
            .collect();
        assert!(named.is_empty(), "{address}: {named:?}");
    }
    // A server without a password in its address is shown as rebuilt from its parts, on
    // every path that shows it, and never becomes a file.
    let Ran { stdout, .. } = Test::new(dir.path())
        .args([
            "history",
            "--json",
            "--history",
            "PostgreSQL://lab@127.0.0.1:1/dwpipe?application_name=x",
        ])
        .status(3)
        .run();
    assert!(
        stdout.contains("postgres://lab@127.0.0.1:1/dwpipe") && stdout.contains("E_HISTORY_OPEN"),
        "{stdout}"
    );
}

/// Every path under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.is_symlink() {
            all.extend(walk(&path));
        }
        all.push(path);
    }
    all
}

/// `compare --against last-pass CANDIDATE` finds no baseline in `h.sqlite`.
fn no_baseline(dir: &Path, candidate: &Path) {
    Test::new(dir)
        .args([
            "compare",
            "--against",
            "last-pass",
            candidate.to_str().unwrap(),
        ])
        .args(["--history", "h.sqlite", "--out", "cmp"])
        .status(2)
        .stderr_contains("E_HISTORY_NO_BASELINE")
        .run();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn an_import_rebuilds_each_audit_and_a_relabelled_one_is_never_a_baseline() {
    let dir = frozen_example();
    // A failing audit made on a device, relabelled a pass.
    let failing = live_audit(dir.path(), "notes-fail", "PHONE-F", "failing");
    let audited: dwpipe::schema::AuditReport = crate::support::read(&failing);
    assert_eq!(audited.verdict, dwpipe::gate::Verdict::Fail);
    let mut report = read_json(&failing);
    report["verdict"] = "pass".into();
    fs::write(&failing, report.to_string()).unwrap();
    let candidate = live_audit(dir.path(), "notes-pass", "PHONE-F", "candidate");
    Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "failing"])
        .status(2)
        .stderr_contains("not what its evidence gives")
        .stderr_contains("verdict")
        .run();
    no_baseline(dir.path(), &candidate);
    // A genuine passing audit is rebuilt from its evidence and becomes the baseline.
    live_audit(dir.path(), "notes-pass", "PHONE-G", "baseline");
    Test::new(dir.path())
        .args(["history", "--history", "h2.sqlite", "import", "baseline"])
        .stdout_contains("imported 1 audit(s) and 0 comparison(s)")
        .run();
    // (Three runs an arm decide nothing: the comparison itself is inconclusive, exit 1.)
    let compared = Test::new(dir.path())
        .args([
            "compare",
            "--against",
            "last-pass",
            candidate.to_str().unwrap(),
        ])
        .args(["--history", "h2.sqlite", "--out", "cmp2"])
        .status(1)
        .run();
    assert!(
        compared.stderr.contains("baseline: ") && compared.stderr.contains("baseline/audit-1.json"),
        "{}",
        compared.stderr
    );
}

#[test]
fn an_audit_without_its_evidence_enters_the_history_unverified_and_never_as_a_baseline() {
    // A report of format 3 (before the source was kept), its evidence gone: what can still be
    // checked is that its own readings give its verdict.
    let dir = frozen_example();
    let made = live_audit(dir.path(), "notes-pass", "PHONE-U", "made");
    let candidate = live_audit(dir.path(), "notes-pass", "PHONE-U", "candidate");
    let mut report = read_json(&made);
    report["format-version"] = 3.into();
    report["inputs"].as_object_mut().unwrap().remove("source");
    report["inputs"].as_object_mut().unwrap().remove("lock");
    report["lock"] = "../pack.lock.json".into();
    let bare = dir.path().join("bare");
    fs::create_dir_all(&bare).unwrap();
    fs::write(bare.join("audit-1.json"), report.to_string()).unwrap();
    Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "bare"])
        .stdout_contains("imported 1 audit(s) (1 without their evidence")
        .run();
    no_baseline(dir.path(), &candidate);
    // Its readings contradicting its verdict: refused.
    report["verdict"] = "fail".into();
    fs::write(bare.join("audit-1.json"), report.to_string()).unwrap();
    Test::new(dir.path())
        .args(["history", "--history", "h3.sqlite", "import", "bare"])
        .status(2)
        .stderr_contains("its verdict says fail, its own readings give pass")
        .run();
}

#[test]
fn a_reading_that_cannot_be_read_is_unverified_with_its_line_quoted() {
    let dir = crate::support::frozen_fixture("packs/resources.yaml");
    let capture = dir.path().join("capture");
    crate::support::copy_tree(
        &crate::support::delivery::repo("device-fixtures/notes-resources"),
        &capture,
    );
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let doctored = transcript
        .replacen("gpuLoad=40.000000", "gpuLoad=-282.000000", 1)
        .replacen("gpuLoad=45.000000", "gpuLoad=95,000000", 1)
        .replacen("Temperature: 41000", "Temperature: 99000x", 1);
    assert_ne!(doctored, transcript);
    fs::write(capture.join("transcript.yaml"), doctored).unwrap();
    let Ran { stderr, .. } = crate::support::replay_audit(dir.path(), &capture)
        .status_in(&[0, 1])
        .run();
    let report = crate::support::first_audit(dir.path());
    for (criterion, quoted) in [
        ("R-01", "gpuLoad=-282.000000"),
        ("R-04", "Temperature: 99000x"),
    ] {
        let check = &crate::support::Audited::check(&report, criterion).check;
        assert_eq!(
            check.result,
            dwpipe::gate::CheckResult::Unverified,
            "{criterion}: {stderr}"
        );
        assert!(check.evidence.contains(quoted), "{criterion}: {check:?}");
    }
}

#[test]
fn a_precondition_on_a_state_the_device_does_not_say_is_never_met() {
    let dir = frozen_example();
    let capture = dir.path().join("capture");
    crate::support::copy_tree(
        &crate::support::delivery::repo("device-fixtures/notes-pass"),
        &capture,
    );
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let unknown = transcript.replace("chargingStatus: 0", "chargingStatus: 9");
    assert_ne!(unknown, transcript);
    fs::write(capture.join("transcript.yaml"), unknown).unwrap();
    let Ran { stderr, .. } = crate::support::replay_audit_into(dir.path(), &capture, "out")
        .args(["--require", "charging: off"])
        .status(3)
        .run();
    assert!(
        stderr.contains("E_DEVICE_NOT_READY") && stderr.contains("not ready: unknown"),
        "{stderr}"
    );
}

/// A server that takes the connection and never says a word: every TLS mode gives up within
/// the connect bound, as an environment error naming the server.
#[test]
fn a_server_that_never_answers_is_given_up_on_within_the_bound() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = std::sync::Arc::clone(&held);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            keep.lock().unwrap().push(stream);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let runs: Vec<_> = ["disable", "prefer", "require"]
        .into_iter()
        .map(|mode| {
            let url = format!("postgres://lab@127.0.0.1:{port}/dwpipe?sslmode={mode}");
            let dir = dir.path().to_owned();
            std::thread::spawn(move || {
                let started = Instant::now();
                let Ran { code, stderr, .. } = Test::new(&dir)
                    .args(["history", "--history", &url])
                    .status_in(EXIT_CODES)
                    .run();
                (mode, code, stderr, started.elapsed())
            })
        })
        .collect();
    for run in runs {
        let (mode, code, stderr, took) = run.join().unwrap();
        assert_eq!(code, 3, "{mode}: {stderr}");
        assert!(
            stderr.contains("E_HISTORY_OPEN") && stderr.contains("did not answer within 10s"),
            "{mode}: {stderr}"
        );
        assert!(took < Duration::from_secs(20), "{mode}: {took:?}");
    }
    // A CA file that never ends is refused by type, not read.
    let stderr = Test::new(dir.path())
        .args([
            "history",
            "--history",
            &format!("postgres://lab@127.0.0.1:{port}/dwpipe?sslmode=verify-full"),
        ])
        .env("PGSSLROOTCERT", "/dev/zero")
        .status(3)
        .run()
        .stderr;
    assert!(
        stderr.contains("E_HISTORY_TLS") && stderr.contains("a character device"),
        "{stderr}"
    );
}

/// An ACP agent in Python that asks to write through a link out of the workspace, speaks in
/// a session dwpipe did not open, then floods requests and never reads another reply.
const DEAF_ACP_AGENT: &str = r#"
import json, os, sys
def say(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
def heard():
    return json.loads(sys.stdin.readline())
workspace = sys.argv[1]
os.makedirs(workspace + "/big", exist_ok=True)
with open(workspace + "/big/file.txt", "w") as f:
    f.write("x" * (1024 * 1024))
m = heard(); say({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": 1}})
m = heard(); say({"jsonrpc": "2.0", "id": m["id"], "result": {"sessionId": "ses_1"}})
prompt = heard()
say({"jsonrpc": "2.0", "id": 900, "method": "fs/write_text_file", "params": {"sessionId": "ses_1", "path": "symdir/../escaped.txt", "content": "x"}})
heard()
say({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "ses_other", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Result: PASS"}}}})
for i in range(200):
    say({"jsonrpc": "2.0", "id": 1000 + i, "method": "fs/read_text_file", "params": {"sessionId": "ses_1", "path": "big/file.txt"}})
import time
time.sleep(120)
"#;

#[test]
fn an_acp_agent_is_held_to_the_real_file_system_and_stopped_when_it_stops_reading() {
    use crate::support::delivery::{SPACING, deliver, project};
    let dir = project("[true]", SPACING, "notes-pass", "");
    let script = dir.path().join("deaf_agent.py");
    fs::write(&script, DEAF_ACP_AGENT).unwrap();
    let outside = dir.path().join("elsewhere/deep");
    fs::create_dir_all(&outside).unwrap();
    symlink(&outside, dir.path().join("project/symdir")).unwrap();
    acp_agent(
        dir.path(),
        &format!("python3, {}, '{{workspace}}'", script.display()),
    );
    let started = Instant::now();
    let (code, report, stderr) = deliver(dir.path(), &["--no-review"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(100),
        "stopped, not waited out"
    );
    let ending = report.agent_ending.as_deref().unwrap_or_default();
    assert!(
        ending.contains("stopped reading dwpipe's replies"),
        "{report:?}"
    );
    assert!(!dir.path().join("elsewhere/escaped.txt").exists());
    let run = dir.path().join(&report.run_dir);
    let answers = fs::read_to_string(run.join("agent-1.answers.jsonl")).unwrap();
    assert!(
        answers.lines().any(|l| l.contains("symdir/../escaped.txt")
            && l.contains("\"denied\"")
            && l.contains("outside the workspace")),
        "{answers}"
    );
    assert_ne!(
        report.agent_claim,
        Some(Claim::Pass),
        "a stranger's words are no claim: {report:?}"
    );
}

/// The project's dwpipe.yaml with its agent replaced by the ACP agent `argv` (YAML list items),
/// one repair round at most.
fn acp_agent(project: &Path, argv: &str) {
    let config = fs::read_to_string(project.join("dwpipe.yaml")).unwrap();
    let agent =
        format!("agent:\n  kind: acp\n  argv: [{argv}]\n  timeout: 2m\n  idle-timeout: 1m\n");
    let (before, after) = config.split_once("agent:").unwrap();
    let rest = after.split_once("verify:").unwrap().1;
    fs::write(
        project.join("dwpipe.yaml"),
        format!("{before}{agent}repair:\n  max-rounds: 1\nverify:{rest}"),
    )
    .unwrap();
}

/// An ACP agent that answers the prompt with one message line that never ends (32 MiB and
/// counting), then waits.
const ENDLESS_LINE_ACP_AGENT: &str = r#"
import json, sys, time
def say(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
def heard():
    return json.loads(sys.stdin.readline())
m = heard(); say({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": 1}})
m = heard(); say({"jsonrpc": "2.0", "id": m["id"], "result": {"sessionId": "ses_1"}})
heard()
out = sys.stdout.buffer
out.write(b'{"jsonrpc": "2.0", "method": "session/update", "params": {"text": "')
for _ in range(32):
    out.write(b"a" * (1 << 20))
out.flush()
time.sleep(120)
"#;

#[test]
fn an_acp_line_past_the_bound_ends_the_run_with_the_reason() {
    use crate::support::delivery::{SPACING, deliver, project};
    let dir = project("[true]", SPACING, "notes-pass", "");
    let script = dir.path().join("endless_agent.py");
    fs::write(&script, ENDLESS_LINE_ACP_AGENT).unwrap();
    acp_agent(dir.path(), &format!("python3, {}", script.display()));
    let started = Instant::now();
    let (code, report, stderr) = deliver(dir.path(), &["--no-review"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(50),
        "stopped at the line, not at the idle limit"
    );
    let ending = report.agent_ending.as_deref().unwrap_or_default();
    assert!(
        ending.contains("a message line longer than 16 MiB") && ending.contains("stopped"),
        "{report:?}"
    );
}

/// The OpenCode plugin, loaded by Node as OpenCode loads it, with a client that records what
/// it is asked: a dwpipe that never answers is stopped at `DWPIPE_GATE_TIMEOUT`, and a loop
/// limit that is no bound (`Infinity`) is said and replaced by the default.
#[test]
fn the_opencode_plugin_bounds_its_wait_and_its_loop() {
    if Command::new("node").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs the plugin under Node"
        );
        crate::support::skipped!("no Node.js to load the OpenCode plugin");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let hang = dir.path().join("dwpipe-hangs");
    crate::support::executable(&hang, "#!/bin/sh\nsleep 600\n");
    let refuse = dir.path().join("dwpipe-refuses");
    crate::support::executable(
        &refuse,
        "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"fix it\"}'\n",
    );
    let plugin = crate::support::delivery::repo("integrations/opencode/dwpipe-gate.js");
    let driver = format!(
        r#"
import {{ DwpipeGate }} from {plugin:?};
const logs = [];
let prompts = 0;
const client = {{
  app: {{ log: async ({{ body }}) => logs.push(body.level + ": " + body.message) }},
  session: {{
    get: async () => ({{ data: {{}} }}),
    promptAsync: async () => {{ prompts += 1; }},
  }},
}};
const gate = await DwpipeGate({{ client, directory: {dir:?} }});
const idle = async () => {{
  await gate.event({{ event: {{ type: "session.status", properties: {{ sessionID: "s", status: {{ type: "busy" }} }} }} }});
  await gate.event({{ event: {{ type: "session.idle", properties: {{ sessionID: "s" }} }} }});
}};
const rounds = Number(process.argv[2]);
const started = Date.now();
for (let i = 0; i < rounds; i++) await idle();
console.log(JSON.stringify({{ logs, prompts, seconds: (Date.now() - started) / 1000 }}));
"#,
        plugin = plugin.display().to_string(),
        dir = dir.path().display().to_string(),
    );
    let script = dir.path().join("driver.mjs");
    fs::write(&script, driver).unwrap();
    let run = |bin: &Path, env: &[(&str, &str)], rounds: &str| -> Value {
        let output = Command::new("node")
            .arg(&script)
            .arg(rounds)
            .env("DWPIPE_BIN", bin)
            .envs(env.iter().copied())
            .stderr(Stdio::inherit())
            .output()
            .unwrap();
        assert!(output.status.success());
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let hung = run(&hang, &[("DWPIPE_GATE_TIMEOUT", "1")], "1");
    assert!(hung["seconds"].as_f64().unwrap() < 10.0, "{hung}");
    assert!(
        hung["logs"]
            .to_string()
            .contains("did not answer within 1 s"),
        "{hung}"
    );
    let endless = run(&refuse, &[("DWPIPE_LOOP_LIMIT", "Infinity")], "12");
    assert_eq!(endless["prompts"], 8, "the default bound: {endless}");
    assert!(
        endless["logs"]
            .to_string()
            .contains("\\\"Infinity\\\" is not a whole number from 1 to 100"),
        "{endless}"
    );
}

/// Two replays of one capture begun at once are two runs, each with its own name, both
/// recorded; a copy of one is the run it was, whatever times it says.
#[test]
fn replays_begun_at_once_are_two_runs_and_a_copy_is_neither_a_third() {
    let dir = frozen_example();
    let capture = crate::support::delivery::repo("device-fixtures/notes-pass");
    let outs = ["a", "b"];
    let runs: Vec<_> = outs
        .iter()
        .map(|out| {
            crate::support::dwpipe_command()
                .args(["audit", "--pack", "pack.lock.json", "--replay"])
                .arg(&capture)
                .args(["--history", "h.sqlite", "--out", out])
                .current_dir(dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for run in runs {
        let output = run.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let reports: Vec<dwpipe::schema::AuditReport> = outs
        .iter()
        .map(|out| crate::support::read(dir.path().join(out).join("audit-1.json")))
        .collect();
    assert!(
        reports
            .iter()
            .all(|r| r.unrecorded.is_none() && r.run_id.is_some())
    );
    assert_ne!(reports[0].run_id, reports[1].run_id);
    let conn = rusqlite::Connection::open(dir.path().join("h.sqlite")).unwrap();
    let count = |sql: &str| conn.query_row(sql, [], |row| row.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT count(*) FROM runs"), 2);
    // A copy of `a` re-dated, its kept times re-dated too (and their hash): the run it was.
    crate::support::copy_tree(&dir.path().join("a"), &dir.path().join("copy"));
    let copy = dir.path().join("copy/audit-1.json");
    let mut doc: Value = serde_json::from_slice(&fs::read(&copy).unwrap()).unwrap();
    let kept = dir
        .path()
        .join("copy")
        .join(doc["inputs"]["times"]["path"].as_str().unwrap());
    let mut times: Value = serde_json::from_slice(&fs::read(&kept).unwrap()).unwrap();
    times["started"] = "2027-01-01T00:00:00Z".into();
    let bytes = serde_json::to_vec_pretty(&times).unwrap();
    fs::write(&kept, &bytes).unwrap();
    doc["inputs"]["times"]["sha256"] = dwpipe::hash::sha256_hex(&bytes).into();
    doc["started"] = "2027-01-01T00:00:00Z".into();
    fs::write(&copy, doc.to_string()).unwrap();
    let Ran { stdout, stderr, .. } = Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "copy"])
        .status(2)
        .run();
    assert!(
        stderr.contains("holds this audit's run") && stderr.contains("not another audit"),
        "{stdout}{stderr}"
    );
    assert_eq!(count("SELECT count(*) FROM runs"), 2);
}

/// `.dwpipe/hooks` and `.dwpipe/runs` are dwpipe's to make: a link planted there (to make a
/// root job write where it leads) is refused, and nothing is written where it leads.
#[test]
fn a_link_planted_for_a_folder_of_dwpipes_own_is_refused() {
    use crate::support::delivery::{FIXING_AGENT, SPACING, project};
    let dir = project(
        FIXING_AGENT,
        SPACING,
        "notes-pass",
        "review:\n  fail-mode: closed\n",
    );
    let elsewhere = dir.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::create_dir_all(dir.path().join(".dwpipe")).unwrap();
    symlink(&elsewhere, dir.path().join(".dwpipe/hooks")).unwrap();
    let mut hook = crate::support::dwpipe_command()
        .args([
            "hook",
            "stop",
            "--target",
            "claude-code",
            "--pack",
            "pack.yaml",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut hook.stdin.take().unwrap(),
        br#"{"session_id": "s", "stop_hook_active": false}"#,
    )
    .unwrap();
    let output = hook.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    );
    assert!(stderr.contains("a symbolic link to"), "{stderr}");
    assert!(stdout.contains("\"decision\":\"block\""), "{stdout}");
    fs::remove_file(dir.path().join(".dwpipe/hooks")).unwrap();
    fs::remove_dir_all(dir.path().join(".dwpipe/runs")).ok();
    symlink(&elsewhere, dir.path().join(".dwpipe/runs")).unwrap();
    let stderr = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml"])
        .status(3)
        .run()
        .stderr;
    assert!(
        stderr.contains("E_PLANTED") && stderr.contains("a symbolic link to"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing written there"
    );
}

/// A capture's folder name is the user's (or a stranger's) to choose: in the Markdown dwpipe
/// writes (the report, a CI summary) it is text, never HTML a renderer would run.
#[test]
fn a_capture_named_as_html_is_text_in_every_markdown() {
    let dir = frozen_example();
    let capture = dir.path().join("<img src=x onerror=alert(1)>");
    crate::support::copy_tree(
        &crate::support::delivery::repo("device-fixtures/notes-pass"),
        &capture,
    );
    Test::new(dir.path())
        .args(["audit", "--pack", "pack.lock.json", "--replay"])
        .args([capture.to_str().unwrap()])
        .args(["--out", "out", "--summary-md", "summary.md"])
        .run();
    for file in ["out/audit-1.md", "summary.md"] {
        let text = fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(
            text.contains("&lt;img src=x onerror=alert(1)>") && !text.contains("<img"),
            "{file}: {text}"
        );
    }
    // The Markdown is what verify-evidence renders again.
    Test::new(dir.path())
        .args(["verify-evidence", "out/audit-1.json"])
        .stdout_contains("3 published form(s) rendered again")
        .stdout_contains("0 difference(s)")
        .run();
}
