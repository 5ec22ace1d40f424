//! One connection to either store, with the few operations the history makes of it: run a
//! statement, read rows, run a script, hold a transaction. The statements are written once,
//! in the SQL both engines speak (`ON CONFLICT DO NOTHING`, `RETURNING`, `IS NOT DISTINCT
//! FROM`, `string_agg`), with `?N` placeholders that PostgreSQL gets as `$N`; values go in as
//! [`Arg`]s and come out through [`Cells`], so that what a row means is read in one place.

use std::collections::HashMap;
use std::sync::LazyLock;

use postgres::types::{IsNull, ToSql as PgToSql, Type};
use regex::Regex;
use rusqlite::types::{ToSql as LiteToSql, ToSqlOutput};

/// Why a statement failed, in the engine's own words.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DbError {
    /// SQLite's.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL's (or its client's).
    #[error(transparent)]
    Postgres(#[from] postgres::Error),
}

impl DbError {
    /// Whether the store refused this statement's values, not the statement or the store: a
    /// value it cannot hold (a NUL byte in text, for PostgreSQL; a value past its limits, an
    /// index row too large). Another row may well be stored; the store is fine.
    pub(crate) fn refuses_the_values(&self) -> bool {
        match self {
            // Class 22: data exception; class 54: program limit exceeded (an index row).
            DbError::Postgres(e) => e
                .code()
                .is_some_and(|code| code.code().starts_with("22") || code.code().starts_with("54")),
            DbError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.code == rusqlite::ErrorCode::TooBig
            }
            DbError::Sqlite(_) => false,
        }
    }
}

/// A value for a placeholder.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arg<'a> {
    Text(Option<&'a str>),
    Real(Option<f64>),
    Int(Option<i64>),
    Bool(bool),
}

impl LiteToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        match self {
            Arg::Text(v) => LiteToSql::to_sql(v),
            Arg::Real(v) => LiteToSql::to_sql(v),
            Arg::Int(v) => LiteToSql::to_sql(v),
            // SQLite keeps a boolean as 0 or 1.
            Arg::Bool(v) => LiteToSql::to_sql(v),
        }
    }
}

impl PgToSql for Arg<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Arg::Text(v) => PgToSql::to_sql(v, ty, out),
            Arg::Real(v) => PgToSql::to_sql(v, ty, out),
            Arg::Int(v) => PgToSql::to_sql(v, ty, out),
            Arg::Bool(v) => PgToSql::to_sql(v, ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        // Which types a value takes is its variant's to say (`to_sql_checked` below).
        true
    }

    fn to_sql_checked(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Arg::Text(v) => PgToSql::to_sql_checked(v, ty, out),
            Arg::Real(v) => PgToSql::to_sql_checked(v, ty, out),
            Arg::Int(v) => PgToSql::to_sql_checked(v, ty, out),
            Arg::Bool(v) => PgToSql::to_sql_checked(v, ty, out),
        }
    }
}

/// A row's cells by position, whichever engine read it.
pub(crate) trait Cells {
    fn text(&self, i: usize) -> Result<Option<String>, DbError>;
    fn real(&self, i: usize) -> Result<Option<f64>, DbError>;
    fn int(&self, i: usize) -> Result<Option<i64>, DbError>;
    fn boolean(&self, i: usize) -> Result<bool, DbError>;
}

impl Cells for rusqlite::Row<'_> {
    fn text(&self, i: usize) -> Result<Option<String>, DbError> {
        Ok(self.get(i)?)
    }
    fn real(&self, i: usize) -> Result<Option<f64>, DbError> {
        Ok(self.get(i)?)
    }
    fn int(&self, i: usize) -> Result<Option<i64>, DbError> {
        Ok(self.get(i)?)
    }
    fn boolean(&self, i: usize) -> Result<bool, DbError> {
        Ok(self.get(i)?)
    }
}

impl Cells for postgres::Row {
    fn text(&self, i: usize) -> Result<Option<String>, DbError> {
        Ok(self.try_get(i)?)
    }
    fn real(&self, i: usize) -> Result<Option<f64>, DbError> {
        Ok(self.try_get(i)?)
    }
    fn int(&self, i: usize) -> Result<Option<i64>, DbError> {
        Ok(self.try_get(i)?)
    }
    fn boolean(&self, i: usize) -> Result<bool, DbError> {
        Ok(self.try_get(i)?)
    }
}

/// A statement as PostgreSQL takes it: `?N` placeholders become `$N`.
fn dollars(sql: &str) -> String {
    static PLACEHOLDER: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\?([0-9]+)").expect("a valid pattern"));
    PLACEHOLDER.replace_all(sql, "$$$1").into_owned()
}

/// A PostgreSQL connection with its statements prepared once each.
pub(crate) struct Server {
    client: Connection,
    prepared: HashMap<String, postgres::Statement>,
}

impl Server {
    pub(crate) fn new(client: postgres::Client) -> Server {
        Server {
            client: Connection::new(client),
            prepared: HashMap::new(),
        }
    }

    fn statement(&mut self, sql: &str) -> Result<postgres::Statement, postgres::Error> {
        if let Some(statement) = self.prepared.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(&dollars(sql))?;
        self.prepared.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

/// The synchronous client, closed off any async runtime too: closing says goodbye to the
/// server, which blocks.
pub(crate) struct Connection(Option<postgres::Client>);

impl Connection {
    pub(crate) fn new(client: postgres::Client) -> Connection {
        Connection(Some(client))
    }
}

impl std::ops::Deref for Connection {
    type Target = postgres::Client;
    fn deref(&self) -> &postgres::Client {
        self.0.as_ref().expect("open until dropped")
    }
}

impl std::ops::DerefMut for Connection {
    fn deref_mut(&mut self) -> &mut postgres::Client {
        self.0.as_mut().expect("open until dropped")
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(client) = self.0.take() {
            off_runtime(move || drop(client));
        }
    }
}

/// Runs `work` where the synchronous PostgreSQL client may block: never on a thread that
/// is inside an async runtime (its own runtime would refuse to start there), so on a scoped
/// thread of its own when called from one.
pub(crate) fn off_runtime<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return work();
    }
    std::thread::scope(|scope| match scope.spawn(work).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// An open store.
pub(crate) enum Db {
    Sqlite(rusqlite::Connection),
    Postgres(Box<Server>),
}

fn pg_args<'a>(args: &'a [Arg<'a>]) -> Vec<&'a (dyn PgToSql + Sync)> {
    args.iter().map(|a| a as &(dyn PgToSql + Sync)).collect()
}

impl Db {
    /// Runs a statement; the rows it changed.
    pub(crate) fn execute(&mut self, sql: &str, args: &[Arg]) -> Result<u64, DbError> {
        match self {
            Db::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                Ok(statement.execute(rusqlite::params_from_iter(args.iter()))? as u64)
            }
            Db::Postgres(server) => off_runtime(|| {
                let statement = server.statement(sql)?;
                Ok(server.client.execute(&statement, &pg_args(args))?)
            }),
        }
    }

    /// The rows a query answers, each read by `read`.
    pub(crate) fn rows<T: Send>(
        &mut self,
        sql: &str,
        args: &[Arg],
        read: impl Fn(&dyn Cells) -> Result<T, DbError> + Sync,
    ) -> Result<Vec<T>, DbError> {
        match self {
            Db::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                let mut rows = statement.query(rusqlite::params_from_iter(args.iter()))?;
                let mut read_rows = Vec::new();
                while let Some(row) = rows.next()? {
                    read_rows.push(read(row)?);
                }
                Ok(read_rows)
            }
            Db::Postgres(server) => off_runtime(|| {
                let statement = server.statement(sql)?;
                let rows = server.client.query(&statement, &pg_args(args))?;
                rows.iter().map(|row| read(row)).collect()
            }),
        }
    }

    /// Runs a script of statements without placeholders (a schema step, `BEGIN`, `COMMIT`).
    pub(crate) fn script(&mut self, sql: &str) -> Result<(), DbError> {
        match self {
            Db::Sqlite(conn) => Ok(conn.execute_batch(sql)?),
            Db::Postgres(server) => off_runtime(|| Ok(server.client.batch_execute(sql)?)),
        }
    }

    /// Runs `work` in one transaction: committed when it succeeds, rolled back when it fails
    /// (a process killed in between leaves nothing of it either: the engines see to that).
    /// SQLite's is taken for writing at once, so that a writer waits for the others at its
    /// start rather than failing at its first write.
    /// `failed` makes the engine's own failure (to begin or commit) the caller's error.
    pub(crate) fn transaction<T, E>(
        &mut self,
        failed: impl Fn(DbError) -> E,
        work: impl FnOnce(&mut Db) -> Result<T, E>,
    ) -> Result<T, E> {
        let begin = match self {
            Db::Sqlite(_) => "BEGIN IMMEDIATE",
            Db::Postgres(_) => "BEGIN",
        };
        self.script(begin).map_err(&failed)?;
        match work(self) {
            Ok(value) => {
                self.script("COMMIT").map_err(&failed)?;
                Ok(value)
            }
            Err(e) => {
                // What failed is the error to report; a failed rollback ends with the
                // connection, which rolls back all the same.
                let _ = self.script("ROLLBACK");
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests;
