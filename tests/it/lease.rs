//! Device leases through the real binary, on both stores: a second job wanting a device
//! another job drives waits, saying who holds it, and runs once it is free; a job that would
//! wait past `--lease-wait` ends with an environment error naming the holder; a holder killed
//! with SIGKILL leaves the device free at once; listing devices never waits. Each audit records
//! its lease.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dwpipe::device::lease::LeaseRecord;
use dwpipe::schema::AuditReport;

use crate::support::pg::{Database, Store, each_store, pgpass};
use crate::support::{device, fake_hdc, no_sleeps};

/// A frozen example pack, one fake phone behind a slow hdc (every call 40 ms: an audit holds
/// it for seconds) and a quick one, the leases in the folder's own place.
struct Lab {
    dir: tempfile::TempDir,
    slow: String,
    quick: String,
    playbooks: String,
}

fn lab() -> Lab {
    let dir = tempfile::tempdir().unwrap();
    let pack = crate::support::delivery::repo("examples/notes/pack.yaml");
    crate::support::Test::new(dir.path())
        .args(["freeze", pack.to_str().unwrap()])
        .run();
    let phone = device(dir.path(), "notes-pass", "PHONE-L", false);
    let slow = fake_hdc(
        dir.path(),
        "hdc-slow",
        std::slice::from_ref(&phone),
        "DWPIPE_FAKE_HDC_LATENCY=40ms",
    );
    // Its own state folder: a fake phone's state carries from one job to the next.
    fs::create_dir_all(dir.path().join("quick")).unwrap();
    let quick = fake_hdc(&dir.path().join("quick"), "hdc", &[phone], "");
    let playbooks = no_sleeps(dir.path());
    Lab {
        slow: slow.display().to_string(),
        quick: quick.display().to_string(),
        playbooks,
        dir,
    }
}

impl Lab {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `dwpipe audit` of the phone through `hdc` into `out`, recording into `store`.
    fn audit(&self, store: &Store, hdc: &str, out: &str, wait: &str) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dwpipe"));
        command
            .args(["audit", "--pack", "pack.lock.json", "--device", "PHONE-L"])
            .args(["--hdc", hdc, "--playbooks", &self.playbooks, "--out", out])
            .args(["--lease-wait", wait, "--history", store.arg()])
            .current_dir(self.path())
            .env("DWPIPE_LEASES", self.path().join("leases"))
            .env("PGPASSFILE", pgpass())
            .env_remove("DWPIPE_HDC");
        command
    }

    /// Starts the slow audit into `out`, recording into `store`, and returns once it holds the
    /// phone's lease: once the host's lock file names it (a lease in PostgreSQL holds the
    /// host's lock file too, taken first).
    fn holder(&self, store: &Store, out: &str) -> Child {
        self.holder_saying(store, out, Stdio::null())
    }

    /// [`Lab::holder`], its stderr going to `stderr`.
    #[track_caller]
    fn holder_saying(&self, store: &Store, out: &str, stderr: Stdio) -> Child {
        let mut child = self
            .audit(store, &self.slow, out, "1m")
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap();
        crate::support::leasing(&self.path().join("leases"), &mut child);
        child
    }
}

/// How a job is named as a lease's holder (`dwpipe audit (pid 42 on lab-2), since …`).
fn named(job: &Child) -> String {
    format!("pid {} on ", job.id())
}

/// Whether a job holds the phone's advisory lock in `db` (its own database: other tests lease
/// the same key in theirs).
fn advisory_lock_held(db: &Database) -> bool {
    db.connect()
        .query_one(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted \
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0)
        > 0
}

/// The lease `OUT/audit-1.json` in `dir` records.
#[track_caller]
fn lease_of(dir: &Path, out: &str) -> LeaseRecord {
    let report: AuditReport = crate::support::read(dir.join(out).join("audit-1.json"));
    report.lease.expect("the audit records its lease")
}

#[test]
fn a_second_job_waits_for_the_device_then_runs_and_a_bounded_one_gives_up() {
    each_store(|store| {
        let lab = lab();
        let mut first = lab.holder(store, "first");
        let first_pid = first.id();
        // Listing devices asks each one who it is, without a lease: never waits.
        let started = Instant::now();
        let listed = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
            .args(["devices", "--hdc", &lab.quick])
            .current_dir(lab.path())
            .env("DWPIPE_LEASES", lab.path().join("leases"))
            .output()
            .unwrap();
        assert!(listed.status.success());
        assert!(started.elapsed() < Duration::from_secs(10));
        // A job that may wait one second: refused, naming the holder.
        let refused = lab
            .audit(store, &lab.quick, "refused", "1s")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(3), "{stderr}");
        assert!(stderr.contains("E_DEVICE_LEASED"), "{stderr}");
        assert!(
            stderr.contains(&format!("dwpipe audit (pid {first_pid} on ")),
            "{stderr}"
        );
        // A job that may wait long enough: says who it waits for, then runs.
        let second = lab
            .audit(store, &lab.quick, "second", "2m")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&second.stderr);
        assert_eq!(second.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains("device PHONE-L: waiting for its lease, held by dwpipe audit (pid")
                && stderr.contains(&named(&first)),
            "{stderr}"
        );
        assert!(first.wait().unwrap().success());
        // Each audit records its lease; the second held the phone only after the first.
        let (a, b) = (
            lease_of(lab.path(), "first"),
            lease_of(lab.path(), "second"),
        );
        let kind = match store {
            Store::Sqlite => "host",
            Store::Postgres(_) => "postgres",
        };
        assert_eq!(a.store, kind, "{a:?}");
        assert_eq!(a.key, "PHONE-L");
        assert!(b.waited_seconds > 0.0);
        assert!(b.held_from >= a.held_to, "{a:?} then {b:?}");
    });
}

#[test]
fn a_holder_killed_with_sigkill_leaves_the_device_free() {
    each_store(|store| {
        let lab = lab();
        let mut first = lab.holder(store, "first");
        first.kill().unwrap();
        first.wait().unwrap();
        let started = Instant::now();
        let second = lab
            .audit(store, &lab.quick, "second", "5s")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&second.stderr);
        assert_eq!(second.status.code(), Some(0), "{stderr}");
        assert!(!stderr.contains("waiting for its lease"), "{stderr}");
        assert!(started.elapsed() < Duration::from_secs(30));
        let waited = lease_of(lab.path(), "second").waited_seconds;
        assert!(waited < 1.0, "{waited}");
    });
}

/// A server that ends idle sessions (`idle_session_timeout`, set by many labs' administrators)
/// does not end a lease: the lease's connection sits idle while its audit runs, and is kept.
#[test]
fn a_lease_outlives_the_servers_idle_session_timeout() {
    let Some(server) = crate::support::pg::server() else {
        return;
    };
    let db = server.database();
    db.connect()
        .batch_execute(
            "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET idle_session_timeout = %L', \
             current_database(), '1s'); END $$",
        )
        .unwrap();
    let store = Store::Postgres(db);
    let lab = lab();
    let mut first = lab.holder(&store, "first");
    std::thread::sleep(Duration::from_millis(2500));
    assert!(
        first.try_wait().unwrap().is_none(),
        "the audit ended too soon to tell"
    );
    let Store::Postgres(db) = &store else {
        unreachable!("a PostgreSQL store, made above")
    };
    assert!(
        advisory_lock_held(db),
        "the server ended the lease mid-audit"
    );
    assert!(first.wait().unwrap().success());
}

/// On one host, a job leasing in PostgreSQL (given the lab's history) and a job leasing on the
/// host alone (given none) see each other, whichever came first: a lease in PostgreSQL holds
/// the host's lock file too.
#[test]
fn a_lease_in_postgresql_and_one_on_the_host_see_each_other() {
    let Some(server) = crate::support::pg::server() else {
        return;
    };
    let lab = lab();
    let pg = Store::Postgres(server.database());
    for (first, second) in [(&pg, &Store::Sqlite), (&Store::Sqlite, &pg)] {
        let mut holder = lab.holder(first, "first");
        let said = named(&holder);
        let refused = lab
            .audit(second, &lab.quick, "refused", "1s")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(3), "{stderr}");
        assert!(
            stderr.contains("E_DEVICE_LEASED") && stderr.contains(&said),
            "{stderr}"
        );
        assert!(holder.wait().unwrap().success());
        // The next round starts over: new folders, the fake phones at their transcripts' start.
        for used in ["first", "refused", "state", "quick/state"] {
            let _ = fs::remove_dir_all(lab.path().join(used));
        }
    }
}

/// Advisory locks are per database: a lab whose history is another database on the same server,
/// leasing a phone of the same connect key, is not named as the holder of ours.
#[test]
fn a_lease_in_another_database_of_the_server_is_not_this_labs() {
    let Some(server) = crate::support::pg::server() else {
        return;
    };
    let (lab, other_lab) = (lab(), lab());
    let (ours, theirs) = (
        Store::Postgres(server.database()),
        Store::Postgres(server.database()),
    );
    // The other lab's job holds PHONE-L in its database; ours is held by a job on our host
    // that was given no history.
    let mut other = other_lab.holder(&theirs, "first");
    let mut host_only = lab.holder(&Store::Sqlite, "first");
    let refused = lab
        .audit(&ours, &lab.quick, "refused", "1s")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&named(&host_only)),
        "the holder named is ours: {stderr}"
    );
    assert!(host_only.wait().unwrap().success());
    assert!(other.wait().unwrap().success());
}

/// A lease in PostgreSQL whose connection is cut mid-audit (here by the server's own
/// `pg_terminate_backend`, as a restart or a partition would) is lost: the device is another
/// job's for the taking at once, so the audit stops at its next device call and says so, and
/// a job on another host (another lease folder) takes the phone.
#[test]
fn a_lease_lost_mid_audit_stops_the_audit_and_says_so() {
    let Some(server) = crate::support::pg::server() else {
        return;
    };
    let db = server.database();
    let lab = lab();
    let store = Store::Postgres(db);
    let mut first = lab.holder_saying(&store, "first", Stdio::piped());
    let Store::Postgres(db) = &store else {
        unreachable!("a PostgreSQL store, made above")
    };
    // Mid-audit: its lease held in the server and its first visit begun.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(advisory_lock_held(db) && lab.path().join("first/evidence").is_dir()) {
        assert!(Instant::now() < deadline, "the audit never began");
        assert!(first.try_wait().unwrap().is_none(), "the audit ended first");
        std::thread::sleep(Duration::from_millis(20));
    }
    let cut = db
        .connect()
        .query_one(
            "SELECT count(pg_terminate_backend(a.pid)) FROM pg_stat_activity a \
             JOIN pg_locks l ON l.pid = a.pid WHERE l.locktype = 'advisory' AND l.granted \
             AND a.datname = current_database()",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(cut, 1, "the lease's connection");
    // Another host's job: the lease in PostgreSQL is free; its own host's lock files are not
    // this one's.
    let other = lab
        .audit(&store, &lab.quick, "other", "30s")
        .env("DWPIPE_LEASES", lab.path().join("other-host-leases"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&other.stderr);
    assert_eq!(other.status.code(), Some(0), "{said}");
    let output = first.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("E_LEASE_LOST") && stderr.contains("was lost"),
        "{stderr}"
    );
    assert!(
        !lab.path().join("first/audit-1.json").exists(),
        "no report of readings made after the lease was lost"
    );
}

/// A server that stops answering mid-audit (its backend holding the lease frozen with
/// SIGSTOP): the lost lease is seen within seconds, and the audit stops at its next call with
/// `E_LEASE_LOST`, never waiting for the server to come back.
#[test]
fn a_frozen_server_cannot_hold_an_audit() {
    let Some(server) = crate::support::pg::server() else {
        return;
    };
    if !nix_root() {
        crate::support::skipped!("freezing the server's backend takes root");
        return;
    }
    let db = server.database();
    let lab = lab();
    let store = Store::Postgres(db);
    let first = lab.holder_saying(&store, "first", Stdio::piped());
    let Store::Postgres(db) = &store else {
        unreachable!("a PostgreSQL store, made above")
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(advisory_lock_held(db) && lab.path().join("first/evidence").is_dir()) {
        assert!(Instant::now() < deadline, "the audit never began");
        std::thread::sleep(Duration::from_millis(20));
    }
    let backend: i32 = db
        .connect()
        .query_one(
            "SELECT a.pid FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid \
             WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()",
            &[],
        )
        .unwrap()
        .get(0);
    /// The backend frozen until dropped: it runs again whatever happens, for the server's
    /// other tests.
    struct Frozen(i32);
    impl Drop for Frozen {
        fn drop(&mut self) {
            let _ = Command::new("kill")
                .args(["-CONT", &self.0.to_string()])
                .status();
        }
    }
    assert!(
        Command::new("kill")
            .args(["-STOP", &backend.to_string()])
            .status()
            .unwrap()
            .success()
    );
    let _frozen = Frozen(backend);
    let frozen = Instant::now();
    let mut first = crate::support::Group(first);
    while first.0.try_wait().unwrap().is_none() {
        assert!(
            frozen.elapsed() < Duration::from_secs(30),
            "the audit still runs {:?} after the server froze",
            frozen.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut stderr = String::new();
    std::io::Read::read_to_string(first.0.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    let code = first.0.wait().unwrap().code();
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("E_LEASE_LOST"), "{stderr}");
}

fn nix_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
}
