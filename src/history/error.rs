//! Why the history cannot be used, with its stable code and its fix.

use super::db::DbError;
use crate::diagnostic::{Diagnostic, chain};
use std::path::PathBuf;
use std::time::Duration;

/// Why the history cannot be used (`at`: the file, or the server's URL without secrets).
#[derive(Debug, thiserror::Error)]
pub(crate) enum HistoryError {
    /// The path names something that is not a regular file (a device, a folder, a FIFO), or
    /// a link planted in dwpipe's own `.dwpipe` folder.
    #[error("the history `{at}` is not a regular file of dwpipe's")]
    NotAFile { at: String },
    /// The file cannot be opened as a database, or the server cannot be reached.
    #[error("the history `{at}` cannot be opened")]
    Open {
        at: String,
        #[source]
        source: DbError,
    },
    /// The server refused the connection, and the password file was not read: others may
    /// read it.
    #[error("the history `{at}` cannot be opened, and the password file `{}` was not read: group or others may read it (as libpq, dwpipe reads one only you can)", file.display())]
    LoosePasswordFile {
        at: String,
        file: PathBuf,
        #[source]
        source: DbError,
    },
    /// The folder for a new file cannot be made.
    #[error("the history's folder `{}` cannot be made", folder.display())]
    Folder {
        folder: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The server took the connection and did not answer within the bound.
    #[error("the history `{at}` did not answer within {}s", after.as_secs())]
    Silent { at: String, after: Duration },
    /// TLS to the server cannot be set up.
    #[error("TLS for the history cannot be set up: {why}")]
    Tls { why: String },
    /// It can be read but not written (its file or its folder is read-only).
    #[error("the history `{at}` is read-only")]
    ReadOnly { at: String },
    /// A newer dwpipe wrote it.
    #[error("the history `{at}` has schema version {found}; this dwpipe knows {known} and older")]
    Newer { at: String, found: i64, known: i64 },
    /// The history holds the audit's run already, as another report: a copy of it under
    /// other times (or other words) is not another audit.
    #[error(
        "the history `{at}` holds this audit's run ({run_id}) already, as `{held}` (recorded {recorded}): a copy of it under other times is not another audit"
    )]
    SameRun {
        at: String,
        run_id: String,
        /// The report the history holds of the run.
        held: String,
        /// When the history recorded it.
        recorded: String,
    },
    /// A query or a write failed.
    #[error("the history `{at}` could not be {doing}")]
    Sql {
        at: String,
        /// `read` or `written`.
        doing: &'static str,
        #[source]
        source: DbError,
    },
}

impl HistoryError {
    /// The stable code.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            HistoryError::NotAFile { .. } => "E_HISTORY_NOT_A_FILE",
            HistoryError::Open { .. }
            | HistoryError::LoosePasswordFile { .. }
            | HistoryError::Folder { .. }
            | HistoryError::Silent { .. } => "E_HISTORY_OPEN",
            HistoryError::Tls { .. } => "E_HISTORY_TLS",
            HistoryError::ReadOnly { .. } => "E_HISTORY_READ_ONLY",
            HistoryError::Newer { .. } => "E_HISTORY_NEWER",
            HistoryError::SameRun { .. } => "E_HISTORY_SAME_RUN",
            HistoryError::Sql { doing: "read", .. } => "E_HISTORY_READ",
            HistoryError::Sql { .. } => "E_HISTORY_WRITE",
        }
    }

    /// What to do about it.
    pub(crate) fn fix(&self) -> &'static str {
        match self {
            HistoryError::Newer { .. } => {
                "use the dwpipe that wrote it, or a newer one (every dwpipe writing into one history must be as new as its newest)"
            }
            HistoryError::NotAFile { .. } => {
                "pass --history the path of a history file (it is created if missing; one in a .dwpipe folder is never a link: remove the link)"
            }
            HistoryError::ReadOnly { .. } => {
                "make the file and its folder writable, or pass --history another path"
            }
            HistoryError::SameRun { .. } => {
                "import each audit once, as dwpipe wrote it; `dwpipe verify-evidence` of both copies says which one was changed"
            }
            HistoryError::LoosePasswordFile { .. } => {
                "make the password file yours alone (`chmod 600 ~/.pgpass`, or the file PGPASSFILE names), or give the password in PGPASSWORD"
            }
            HistoryError::Silent { .. } => {
                "check that the address names a PostgreSQL server (its port, the host), and that it is not overloaded or stopped mid-start"
            }
            HistoryError::Open {
                source: DbError::Postgres(_),
                ..
            } => {
                "check the server is up and reachable, the user and database in the URL, and the password in PGPASSWORD or ~/.pgpass (a server with a certificate of its own CA: PGSSLROOTCERT=ca.pem)"
            }
            HistoryError::Tls { .. } => {
                "PGSSLROOTCERT names a PEM file of the CA that signed the server's certificate"
            }
            HistoryError::Sql {
                source: DbError::Postgres(e),
                ..
            } if e.code() == Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) => {
                "the role in the URL may not do this on the history's tables: grant it SELECT on all of them to read the history (dwpipe_schema included), INSERT, UPDATE and DELETE too to record and prune (GRANT … ON ALL TABLES IN SCHEMA public TO role), or use the role that created the history"
            }
            HistoryError::Sql {
                source: DbError::Postgres(_),
                ..
            } => {
                "the server refused the statement: its log says why (a full disk, a lost connection, a limit); run the command again once it is fixed"
            }
            _ => {
                "check the path (and the disk); a damaged history can be moved aside and rebuilt with `dwpipe history import`"
            }
        }
    }

    /// Whether the history refused one report's values (a NUL byte, a value past the store's
    /// limits) and would take another's: an import names that report and goes on.
    pub(crate) fn refuses_the_values(&self) -> bool {
        matches!(self, HistoryError::Sql { source, .. } if source.refuses_the_values())
    }

    /// Whether the history refused this one report (its values, or its run held already as
    /// another report) and would take another's: an import names it and goes on.
    pub(crate) fn refuses_the_report(&self) -> bool {
        self.refuses_the_values() || matches!(self, HistoryError::SameRun { .. })
    }

    /// The error as a diagnostic, with its fix.
    pub(crate) fn diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.code(), chain(self)).fix(self.fix())
    }
}
