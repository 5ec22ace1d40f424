//! The PostgreSQL server `.ci/postgres` starts (on 127.0.0.1, its password in a password file
//! the tests point `PGPASSFILE` at), a database of its own for each test, and the history
//! stores the history suites run against: SQLite always, PostgreSQL when the server is up.
//! Outside CI a server that is not running skips its half with a line; inside CI it fails.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/postgres")
}

/// The password file every `dwpipe` a test runs is given (`PGPASSFILE`).
pub(crate) fn pgpass() -> PathBuf {
    folder().join("pgpass")
}

/// The server: its URL (database `postgres`) and its password.
pub(crate) struct Server {
    url: String,
    password: String,
}

/// The running server, or `None` (with a line saying so) outside CI.
#[track_caller]
pub(crate) fn server() -> Option<Server> {
    let read = |name: &str| std::fs::read_to_string(folder().join(name)).ok();
    let found = read("url")
        .zip(read("password"))
        .and_then(|(url, password)| {
            let server = Server {
                url: url.trim().to_owned(),
                password: password.trim().to_owned(),
            };
            server.admin().ok().map(|_| server)
        });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "no PostgreSQL server answers at target/postgres (run `bash .ci/postgres`)"
        );
        crate::support::skipped!(
            "the PostgreSQL half (no server answers; run `bash .ci/postgres`)"
        );
    }
    found
}

impl Server {
    fn admin(&self) -> Result<postgres::Client, postgres::Error> {
        let mut config: postgres::Config = self.url.parse()?;
        config.password(&self.password);
        config.connect(postgres::NoTls)
    }

    /// A new, empty database, dropped with the value.
    pub(crate) fn database(&self) -> Database {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "dwpipe_test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut admin = self.admin().unwrap();
        // One statement each: neither may run inside a transaction block.
        admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .unwrap();
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        let url = self.url.rsplit_once('/').unwrap().0.to_owned() + "/" + &name;
        Database {
            url,
            name,
            password: self.password.clone(),
            server_url: self.url.clone(),
        }
    }
}

/// A test's own database.
pub(crate) struct Database {
    /// `postgres://dwpipe@127.0.0.1:PORT/NAME`: no password in it.
    pub(crate) url: String,
    name: String,
    password: String,
    server_url: String,
}

impl Database {
    /// Its password (what a CI keeps as a secret).
    pub(crate) fn password(&self) -> &str {
        &self.password
    }

    /// A connection to it.
    pub(crate) fn connect(&self) -> postgres::Client {
        let mut config: postgres::Config = self.url.parse().unwrap();
        config.password(&self.password);
        config.connect(postgres::NoTls).unwrap()
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let server = Server {
            url: self.server_url.clone(),
            password: self.password.clone(),
        };
        if let Ok(mut admin) = server.admin() {
            let _ = admin.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// A history a suite runs against.
pub(crate) enum Store {
    /// `h.sqlite` in the test's folder.
    Sqlite,
    /// A database of the test's own.
    Postgres(Database),
}

impl Store {
    /// What `--history` is given.
    pub(crate) fn arg(&self) -> &str {
        match self {
            Store::Sqlite => "h.sqlite",
            Store::Postgres(db) => &db.url,
        }
    }

    /// The one number `sql` answers (a count), read from the store in `dir`.
    pub(crate) fn count(&self, dir: &Path, sql: &str) -> i64 {
        match self {
            Store::Sqlite => rusqlite::Connection::open(dir.join("h.sqlite"))
                .unwrap()
                .query_row(sql, [], |row| row.get(0))
                .unwrap(),
            Store::Postgres(db) => db.connect().query_one(sql, &[]).unwrap().get(0),
        }
    }
}

/// Runs `suite` against SQLite, then PostgreSQL when its server is up.
pub(crate) fn each_store(suite: impl Fn(&Store)) {
    eprintln!("history store: SQLite");
    suite(&Store::Sqlite);
    if let Some(server) = server() {
        eprintln!("history store: PostgreSQL");
        suite(&Store::Postgres(server.database()));
    }
}
