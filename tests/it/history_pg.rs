//! The history in PostgreSQL, through the real binary and a real server (`.ci/postgres`):
//! a delivery configured to record there does, a whole SQLite history moves into it (twice
//! gives nothing twice), a newer schema is refused, a killed import leaves whole audits only,
//! and the password is never taken from, nor shown in, a URL. The suites that run against both
//! stores are in `history.rs`.

use std::fs;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::delivery::{SPACING, deliver, project, repo};
use crate::support::pg::{Database, server};
use crate::support::{Test, frozen_fixture, replay_audit};

fn count(db: &Database, sql: &str) -> i64 {
    db.connect().query_one(sql, &[]).unwrap().get(0)
}

/// `deliver` with `history:` in dwpipe.yaml records its audit in the server, not beside its
/// runs.
#[test]
fn a_delivery_records_into_the_server_dwpipe_yaml_names() {
    let Some(server) = server() else { return };
    let db = server.database();
    let dir = project(
        "[true]",
        SPACING,
        "notes-pass",
        &format!("history: {}\n", db.url),
    );
    // The example's page already has the spacing: the agent changes nothing, the gate passes.
    let page = dir.path().join(crate::support::delivery::PAGE);
    let text = fs::read_to_string(&page).unwrap();
    fs::write(
        &page,
        text.replace("List({ space: 8 })", "List({ space: 12 })"),
    )
    .unwrap();
    let (code, summary, stderr) = deliver(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:?}\n{stderr}");
    assert_eq!(count(&db, "SELECT count(*) FROM runs"), 1, "{stderr}");
    assert!(!dir.path().join(".dwpipe/history.sqlite").exists());
    Test::new(dir.path())
        .args(["history", "--history", &db.url])
        .stdout_contains("9 measurement(s)")
        .run();
}

/// A lab's SQLite history moves into the server whole: audits, their measurements and every
/// run's value, comparisons; the same series reads back; an import repeated copies nothing.
#[test]
fn a_sqlite_history_moves_into_the_server() {
    let Some(server) = server() else { return };
    let db = server.database();
    let dir = frozen_fixture("packs/cold-start.yaml");
    replay_audit(dir.path(), &repo("device-fixtures/regress-base"))
        .status(0)
        .run();
    let slower = repo("device-fixtures/regress-slower");
    Test::new(dir.path())
        .args(["audit", "--pack", "pack.lock.json", "--replay"])
        .args([slower.to_str().unwrap(), "--out", "slower"])
        .run();
    Test::new(dir.path())
        .args([
            "history",
            "--history",
            "lab.sqlite",
            "import",
            "out",
            "slower",
        ])
        .run();
    Test::new(dir.path())
        .args(["compare", "out/audit-1.json", "slower/audit-1.json"])
        .args(["--history", "lab.sqlite", "--out", "cmp"])
        .status(1)
        .run();
    Test::new(dir.path())
        .args(["history", "--history", &db.url, "import", "lab.sqlite"])
        .stdout_contains("imported 2 audit(s) and 1 comparison(s)")
        .run();
    let listed = |history: &str| {
        let stdout = Test::new(dir.path())
            .args(["history", "--history", history, "--json"])
            .run()
            .stdout;
        let mut points: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        for p in points["points"].as_array_mut().unwrap() {
            p.as_object_mut().unwrap().remove("run");
        }
        points
    };
    assert_eq!(listed("lab.sqlite"), listed(&db.url));
    assert_eq!(count(&db, "SELECT count(*) FROM samples"), 2 * 10);
    assert_eq!(count(&db, "SELECT count(*) FROM compared"), 1);
    Test::new(dir.path())
        .args(["history", "--history", &db.url, "import", "lab.sqlite"])
        .stdout_contains("imported 0 audit(s) and 0 comparison(s)")
        .stdout_contains("3 already there")
        .run();
}

/// A history a newer dwpipe made is refused, with the fix, before anything is written.
#[test]
fn a_newer_schema_in_the_server_is_refused_with_a_fix() {
    let Some(server) = server() else { return };
    let db = server.database();
    let dir = frozen_fixture("packs/cold-start.yaml");
    replay_audit(dir.path(), &repo("device-fixtures/regress-base")).run();
    Test::new(dir.path())
        .args(["history", "--history", &db.url, "import", "out"])
        .run();
    db.connect()
        .batch_execute("UPDATE dwpipe_schema SET version = 99")
        .unwrap();
    Test::new(dir.path())
        .args(["history", "--history", &db.url])
        .status(3)
        .stderr_contains("E_HISTORY_NEWER")
        .stderr_contains("schema version 99")
        .stderr_contains("as new as its newest")
        .run();
    Test::new(dir.path())
        .args(["audit", "--pack", "pack.lock.json", "--replay"])
        .args([repo("device-fixtures/regress-base").to_str().unwrap()])
        .args(["--out", "again", "--history", &db.url])
        .status(3)
        .stderr_contains("E_HISTORY_NEWER")
        .run();
    assert!(
        !dir.path().join("again/audit-1.json").exists(),
        "refused before the audit"
    );
}

/// An import killed mid-way leaves whole audits only; run again, it records the rest.
#[test]
fn a_killed_import_into_the_server_leaves_whole_audits_only() {
    let Some(server) = server() else { return };
    let db = server.database();
    let dir = frozen_fixture("packs/cold-start.yaml");
    replay_audit(dir.path(), &repo("device-fixtures/regress-base")).run();
    // 300 audits beside the first (its evidence theirs, so each is rebuilt from it), each its
    // own report and run: audits of format 4, which kept no times, so that when they began
    // is the report's word.
    let template = crate::support::before_kept_times(&dir.path().join("out/audit-1.json"));
    for i in 2..=300 {
        let mut report = template.clone();
        report["started"] = serde_json::json!(format!(
            "2026-01-{:02}T{:02}:{:02}:00Z",
            1 + i / 60 / 24,
            i / 60 % 24,
            i % 60
        ));
        fs::write(
            dir.path().join(format!("out/audit-{i}.json")),
            report.to_string(),
        )
        .unwrap();
    }
    let mut child = crate::support::dwpipe_command()
        .args(["history", "--history", &db.url, "import", "out"])
        .current_dir(dir.path())
        .env("PGPASSFILE", crate::support::pg::pgpass())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut client = db.connect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let recorded = client
            .query_one("SELECT count(*) FROM runs", &[])
            .map(|row| row.get::<_, i64>(0));
        if recorded.is_ok_and(|n| n > 0) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = count(
        &db,
        "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM measurements m WHERE m.run_id = r.id) != 1 \
         OR (SELECT count(*) FROM samples s WHERE s.run_id = r.id) != 10",
    );
    assert_eq!(partial, 0);
    let recorded = count(&db, "SELECT count(*) FROM runs");
    eprintln!("{recorded} of 300 audits were recorded when the import was killed");
    Test::new(dir.path())
        .args(["history", "--history", &db.url, "import", "out"])
        .stdout_contains(&format!("imported {} audit(s)", 300 - recorded))
        .run();
    assert_eq!(count(&db, "SELECT count(*) FROM runs"), 300);
}

/// The password comes from the environment or the password file, never from the URL: a URL
/// with one is refused without echoing it; a wrong one and a server that does not answer are
/// environment errors with the fix, within the connect timeout.
#[test]
fn the_password_is_never_in_a_url_and_never_shown() {
    let Some(server) = server() else { return };
    let db = server.database();
    let dir = tempfile::tempdir().unwrap();
    let with_password = db.url.replacen("dwpipe@", "dwpipe:hunter2@", 1);
    let run = Test::new(dir.path())
        .args(["history", "--history", &with_password])
        .status(2)
        .stderr_contains("E_HISTORY_PASSWORD")
        .stderr_contains("PGPASSWORD")
        .run();
    assert!(!run.stderr.contains("hunter2"), "{}", run.stderr);
    // PGPASSWORD in the environment, and it wrong: refused by the server, said as an
    // environment error with what to check.
    let stderr = Test::new(dir.path())
        .args(["history", "--history", &db.url])
        .env("PGPASSWORD", "not-the-password")
        .status(3)
        .run()
        .stderr;
    assert!(stderr.contains("E_HISTORY_OPEN"), "{stderr}");
    assert!(stderr.contains("password"), "{stderr}");
    assert!(!stderr.contains("not-the-password"), "{stderr}");
    // The right password in a file others may read: not read (as libpq), and said so.
    let loose = dir.path().join("pgpass");
    fs::copy(crate::support::pg::pgpass(), &loose).unwrap();
    fs::set_permissions(&loose, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let stderr = Test::new(dir.path())
        .args(["history", "--history", &db.url])
        .env("PGPASSFILE", loose.to_str().unwrap())
        .status(3)
        .run()
        .stderr;
    assert!(
        stderr.contains("E_HISTORY_OPEN")
            && stderr.contains("was not read: group or others may read it")
            && stderr.contains("chmod 600"),
        "{stderr}"
    );
    // Nothing listens on this port: unreachable, said within the connect timeout.
    let started = Instant::now();
    let stderr = Test::new(dir.path())
        .args(["history", "--history", "postgres://dwpipe@127.0.0.1:9/x"])
        .status(3)
        .run()
        .stderr;
    assert!(stderr.contains("E_HISTORY_OPEN"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(15));
}

/// TLS as libpq has it: every other test here connects with `sslmode=prefer` (the default) to a
/// server speaking TLS with a certificate of a CA nobody trusts, so encrypted and the
/// certificate taken as it comes; `verify-full` checks it: refused without the CA, accepted
/// with it in `PGSSLROOTCERT`.
#[test]
fn the_certificate_is_checked_when_the_url_asks() {
    let Some(server) = server() else { return };
    let ca = repo("target/postgres/ca.pem");
    if !ca.is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the test server has no TLS (.ci/postgres makes it with openssl)"
        );
        crate::support::skipped!("the TLS test (the server was made without openssl)");
        return;
    }
    let db = server.database();
    let dir = tempfile::tempdir().unwrap();
    let verify = format!("{}?sslmode=verify-full", db.url);
    let history = |root_cert: Option<&std::path::Path>| {
        let mut command = crate::support::dwpipe_command();
        command
            .args(["history", "--history", &verify])
            .current_dir(dir.path())
            .env("PGPASSFILE", crate::support::pg::pgpass())
            .env_remove("PGSSLROOTCERT");
        if let Some(ca) = root_cert {
            command.env("PGSSLROOTCERT", ca);
        }
        command.output().unwrap()
    };
    let refused = history(None);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("E_HISTORY_OPEN"), "{stderr}");
    assert!(
        stderr.contains("PGSSLROOTCERT"),
        "the fix names it: {stderr}"
    );
    let accepted = history(Some(&ca));
    assert!(
        accepted.status.success(),
        "{}",
        String::from_utf8_lossy(&accepted.stderr)
    );
}

/// A report the server cannot hold (a NUL byte, which PostgreSQL's text never holds; a model
/// name past an index row's limit) is named and passed over: the rest is recorded, the import
/// exits 2, and a rerun is never blocked by it — from report files and from an SQLite history.
#[test]
fn an_import_names_a_report_the_server_cannot_hold_and_goes_on() {
    let Some(server) = server() else { return };
    let dir = frozen_fixture("packs/cold-start.yaml");
    crate::history::runs(dir.path(), 4, 99);
    for (run, model) in [(2, "ALN\u{0}AL00".to_owned()), (3, "M".repeat(1024 * 1024))] {
        let path = dir.path().join(format!("runs/run-0{run}/audit-1.json"));
        let mut report: serde_json::Value =
            serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        report["device"]["model"] = serde_json::json!(model);
        fs::write(&path, report.to_string()).unwrap();
    }
    // SQLite holds them all.
    Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "runs"])
        .stdout_contains("imported 4 audit(s)")
        .run();
    let files = server.database();
    let from_history = server.database();
    for (db, source) in [(&files, "runs"), (&from_history, "h.sqlite")] {
        for again in [false, true] {
            let ran = Test::new(dir.path())
                .args(["history", "--history", &db.url, "import", source])
                .status(2)
                .stderr_contains("cannot hold it")
                .run();
            let (imported, known) = if again { (0, 2) } else { (2, 0) };
            assert!(
                ran.stdout
                    .contains(&format!("imported {imported} audit(s)"))
                    && ran.stdout.contains(&format!("{known} already there"))
                    && ran.stdout.contains("2 not imported"),
                "{source}: {}",
                ran.stdout
            );
        }
        assert_eq!(count(db, "SELECT count(*) FROM runs"), 2, "{source}");
    }
}
