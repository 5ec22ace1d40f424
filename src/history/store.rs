//! Opening the history where its address (`config::Store`) says: an SQLite file, or a
//! PostgreSQL server, connected within a bound, over TLS as its URL asks, with the password
//! from `PGPASSWORD` or the password file (`PGPASSFILE`, else `~/.pgpass`), as for `psql`.

use std::path::Path;
use std::time::Duration;

use postgres::config::SslMode;

use super::HistoryError;
use crate::config::{Server, Store};

mod connect;
use connect::{password, tls};

/// How long a connection to the server may take before the history is unreachable (the
/// socket, TLS and the server's answer to the startup together).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a connection may be idle before TCP asks whether its peer is still there, and
/// between the asks.
const KEEPALIVE: Duration = Duration::from_secs(5);
/// The most a CA file (`PGSSLROOTCERT`) may be: a bundle of every public root is 250 KB.
const CA_FILE_LIMIT: u64 = 4 * 1024 * 1024;

impl Server {
    /// Connects (TLS as the URL's `sslmode` asks, `prefer` by default), with the password
    /// from the environment or the password file when there is one.
    pub(crate) fn connect(&self) -> Result<postgres::Client, HistoryError> {
        self.connect_as("dwpipe")
    }

    /// Connects under the name `application` (what `pg_stat_activity` shows; at most 63
    /// bytes are kept). The whole of it is bounded — the socket, TLS, the server's startup
    /// answer — by [`CONNECT_TIMEOUT`]: a server that accepts and never answers is
    /// unreachable, not a hang. The connection is kept alive and its dead peer found (TCP
    /// keepalives, a user timeout), so that a lease held on it knows when it is lost.
    pub(crate) fn connect_as(&self, application: &str) -> Result<postgres::Client, HistoryError> {
        let mut config = self.config.clone();
        if config.get_user().is_none() {
            let user = std::env::var("PGUSER")
                .or_else(|_| std::env::var("USER"))
                .unwrap_or_else(|_| "postgres".to_owned());
            config.user(&user);
        }
        // A password file passed over (others may read it) is said if the connection fails.
        let loose = match password(&config) {
            Ok(Some(password)) => {
                config.password(password);
                None
            }
            Ok(None) => None,
            Err(file) => Some(file),
        };
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config
            .keepalives(true)
            .keepalives_idle(KEEPALIVE)
            .keepalives_interval(KEEPALIVE)
            .keepalives_retries(3)
            .tcp_user_timeout(CONNECT_TIMEOUT);
        config.application_name(application);
        let at = self.shown.clone();
        let unreachable = move |source: postgres::Error| match &loose {
            Some(file) => HistoryError::LoosePasswordFile {
                at: at.clone(),
                file: file.clone(),
                source: source.into(),
            },
            None => HistoryError::Open {
                at: at.clone(),
                source: source.into(),
            },
        };
        // As libpq: `prefer` and `require` encrypt; the certificate is checked when the URL
        // asks (`verify-ca`, `verify-full`) or a CA file is given.
        let verify = self.verify || std::env::var_os("PGSSLROOTCERT").is_some();
        let tls = match config.get_ssl_mode() {
            SslMode::Disable => None,
            _ => Some(tls(verify)?),
        };
        let connect = move || match tls {
            None => config.connect(postgres::NoTls).map_err(unreachable),
            Some(tls) => config.connect(tls).map_err(unreachable),
        };
        // On a thread of its own, waited for up to the bound: the client has no bound of its
        // own past the socket's connect. A connection that comes after it is closed there.
        let (sender, received) = std::sync::mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("dwpipe-pg-connect".to_owned())
            .spawn(move || drop(sender.send(connect())))
            .map_err(|e| HistoryError::Tls {
                why: format!("no thread to connect on: {e}"),
            })?;
        match received.recv_timeout(CONNECT_TIMEOUT + Duration::from_secs(1)) {
            Ok(connected) => connected,
            Err(_) => Err(HistoryError::Silent {
                at: self.shown.clone(),
                after: CONNECT_TIMEOUT,
            }),
        }
    }
}

#[cfg(test)]
mod tests;

/// A project's own history, below the folder holding `dwpipe.yaml`, beside its runs.
pub(crate) const PROJECT_HISTORY: &str = ".dwpipe/history.sqlite";

/// A project's own history, when nothing names another: [`PROJECT_HISTORY`] under `base`.
pub(crate) fn project_store(base: &Path) -> Store {
    Store::Sqlite(base.join(PROJECT_HISTORY))
}
