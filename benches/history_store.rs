//! The history on both stores at a lab's scale: `dwpipe history import` of 10,000 audit
//! reports into a new SQLite file and into a new PostgreSQL database (the binary, as a lab runs
//! it); then 100,000 audits (10 device models, one criterion, 10 runs each: the 10,000 copied
//! nine times later in time) moved into PostgreSQL with `history import FILE.sqlite`; then, on
//! each store, 50 times each, the queries behind `dwpipe history` (one criterion on one model:
//! the last 30 days, and all of it), `compare --against last-pass`, and the trends an audit's
//! page draws, each opening the history as a command does. Medians and 90th percentiles.
//!
//! PostgreSQL is the server `bash .ci/postgres` starts; without it that half is skipped, said.
//!
//! `cargo bench --bench history_store`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod reports;

const REPORTS: usize = 10_000;
const MODELS: usize = 10;
const COPIES: usize = 10;
const REPEATS: usize = 50;

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let postgres = server(repo);
    if let Some((_, _, pgpass)) = &postgres {
        // Every connection reads the password file from the environment: the bench runs
        // itself again with it set (setting it in a running process is not safe Rust).
        if std::env::var_os("PGPASSFILE").as_deref() != Some(pgpass.as_os_str()) {
            let status = Command::new(std::env::current_exe().unwrap())
                .args(std::env::args_os().skip(1))
                .env("PGPASSFILE", pgpass)
                .status()
                .unwrap();
            std::process::exit(status.code().unwrap_or(1));
        }
    } else {
        println!("skipped: the PostgreSQL half (no server answers; run `bash .ci/postgres`)");
    }
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    reports(repo, dir);

    let import = |history: &str, what: &str| {
        let started = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
            .args(["history", "--history", history, "import", what])
            .current_dir(dir)
            .env(
                "PGPASSFILE",
                std::env::var_os("PGPASSFILE").unwrap_or_default(),
            )
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        (
            started.elapsed(),
            String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        )
    };
    let (took, said) = import("small.sqlite", "runs");
    println!("history import of {REPORTS} reports into a new SQLite file: {took:.2?} ({said})");
    let mut stores = vec![(
        "SQLite".to_owned(),
        dir.join("big.sqlite").display().to_string(),
    )];
    if let Some((url, password, _)) = &postgres {
        let small = database(url, password, "dwpipe_bench_small");
        let (took, said) = import(&small, "runs");
        println!(
            "history import of {REPORTS} reports into a new PostgreSQL database: {took:.2?} ({said})"
        );
    }
    let month = grow(&dir.join("small.sqlite"), &dir.join("big.sqlite"));
    if let Some((url, password, _)) = &postgres {
        let big = database(url, password, "dwpipe_bench_big");
        let (took, said) = import(&big, "big.sqlite");
        println!(
            "history import of an SQLite history of {} audits into PostgreSQL: {took:.2?} ({said})",
            REPORTS * COPIES
        );
        stores.push(("PostgreSQL".to_owned(), big));
    }

    let candidate = dir.join(format!("runs/{:05}/audit-1.json", REPORTS - 1));
    let model = format!("M-{:02}", (REPORTS - 1) % MODELS);
    for (name, history) in &stores {
        println!("{name}, {} audits:", REPORTS * COPIES);
        time(
            "  history: one criterion on one model, the last 30 days",
            || dwpipe::history_bench::series(history, "P-01", &model, Some(&month)).unwrap(),
        );
        time("  history: one criterion on one model, all of it", || {
            dwpipe::history_bench::series(history, "P-01", &model, None).unwrap()
        });
        time("  compare --against last-pass: the baseline", || {
            usize::from(
                dwpipe::history_bench::last_pass(history, &candidate)
                    .unwrap()
                    .is_some(),
            )
        });
        time("  an audit page's trends", || {
            dwpipe::history_bench::trends(history, &candidate).unwrap()
        });
    }
}

/// Runs `query` [`REPEATS`] times: its median and 90th percentile, and what it answered.
fn time(label: &str, query: impl Fn() -> usize) {
    let mut times: Vec<Duration> = Vec::with_capacity(REPEATS);
    let mut answered = 0;
    for _ in 0..REPEATS {
        let started = Instant::now();
        answered = query();
        times.push(started.elapsed());
    }
    times.sort();
    println!(
        "{label}: median {:.1?}, p90 {:.1?}, max {:.1?} ({answered} found)",
        times[REPEATS / 2],
        times[REPEATS * 9 / 10],
        times[REPEATS - 1]
    );
}

/// The server `.ci/postgres` started: its URL, password and password file.
fn server(repo: &Path) -> Option<(String, String, PathBuf)> {
    let folder = repo.join("target/postgres");
    let url = std::fs::read_to_string(folder.join("url")).ok()?;
    let password = std::fs::read_to_string(folder.join("password")).ok()?;
    let (url, password) = (url.trim().to_owned(), password.trim().to_owned());
    admin(&url, &password).ok()?;
    Some((url, password, folder.join("pgpass")))
}

fn admin(url: &str, password: &str) -> Result<postgres::Client, postgres::Error> {
    let mut config: postgres::Config = url.parse()?;
    config.password(password);
    config.connect(postgres::NoTls)
}

/// A new, empty database `name` on the server: its URL.
fn database(url: &str, password: &str, name: &str) -> String {
    let mut admin = admin(url, password).unwrap();
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    format!("{}/{name}", url.rsplit_once('/').unwrap().0)
}

/// [`REPORTS`] audit reports of P-01 (10 runs each) in `dir/runs/NNNNN/audit-1.json`, an
/// hour apart from 2020-01-01, on [`MODELS`] device models in turn, each made on a device.
fn reports(repo: &Path, dir: &Path) {
    reports::write(
        repo,
        dir,
        REPORTS,
        2020,
        |_| 700.0,
        |i, report| {
            report["device"]["model"] = serde_json::json!(format!("M-{:02}", i % MODELS));
            report["source"] = serde_json::json!({"kind": "device", "serial": "FMR0223C13000649"});
        },
    );
}

/// `big`: the audits of `small`, and [`COPIES`]` - 1` copies of them, each copy later in time
/// than the one before (as if the lab ran on for years), written straight into the tables;
/// 30 days before the latest audit.
fn grow(small: &Path, big: &Path) -> String {
    std::fs::copy(small, big).unwrap();
    let mut conn = rusqlite::Connection::open(big).unwrap();
    let tx = conn.transaction().unwrap();
    let n = REPORTS as i64;
    for copy in 1..COPIES as i64 {
        let (offset, hours) = (copy * n, copy * n);
        tx.execute_batch(&format!(
            "INSERT INTO runs (id, report_sha256, report, recorded_at, app, app_version, \
             commit_sha, pack_sha256, serial, model, software_version, refresh_rate, replay, \
             verdict, arm, report_id, run_key) \
             SELECT id + {offset}, report_sha256 || '-{copy}', report || '#{copy}', \
             strftime('%Y-%m-%dT%H:%M:%SZ', recorded_at, '+{hours} hours'), app, app_version, \
             commit_sha, pack_sha256, serial, model, software_version, refresh_rate, replay, \
             verdict, arm, report_id || '-{copy}', run_key || '-{copy}' FROM runs WHERE id <= {n}; \
             INSERT INTO measurements (run_id, criterion, probe, unit, value, verdict, run_values) \
             SELECT run_id + {offset}, criterion, probe, unit, value, verdict, run_values \
             FROM measurements WHERE run_id <= {n}; \
             INSERT INTO samples (run_id, criterion, run, value) \
             SELECT run_id + {offset}, criterion, run, value FROM samples WHERE run_id <= {n};"
        ))
        .unwrap();
    }
    tx.commit().unwrap();
    let audits: i64 = conn
        .query_row("SELECT count(*) FROM runs", [], |row| row.get(0))
        .unwrap();
    assert_eq!(audits, n * COPIES as i64);
    conn.query_row(
        "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', max(recorded_at), '-30 days') FROM runs",
        [],
        |row| row.get(0),
    )
    .unwrap()
}
