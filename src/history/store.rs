//! Where the history lives: an SQLite file (the default: embedded, nothing to install, one
//! host), or a PostgreSQL server named by a `postgres://` URL (one history for a lab on
//! several hosts). A URL is shown everywhere without its secrets, and a URL that carries a
//! password is refused: it would sit in the process list, in dwpipe.yaml and in every log
//! that prints the command. The password comes from `PGPASSWORD` or the password file
//! (`PGPASSFILE`, else `~/.pgpass`), as for `psql`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use postgres::config::{Host, SslMode};

use super::HistoryError;

/// How long a connection to the server may take before the history is unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A history's place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Store {
    /// An SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL server.
    Postgres(Box<Server>),
}

/// A PostgreSQL server's address, with no password in it.
#[derive(Clone, Debug)]
pub(crate) struct Server {
    config: postgres::Config,
    /// The URL as it may be shown.
    shown: String,
    /// Whether the URL asked for the server's certificate to be checked
    /// (`sslmode=verify-ca|verify-full`).
    verify: bool,
}

impl PartialEq for Server {
    fn eq(&self, other: &Server) -> bool {
        self.shown == other.shown
    }
}

impl Eq for Server {}

/// Why `--history` (or `history:` in dwpipe.yaml) names no usable store.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
    #[error("the history URL `{shown}` carries a password")]
    Password { shown: String },
    #[error("the history URL `{shown}` cannot be read: {why}")]
    Url { shown: String, why: String },
}

impl StoreError {
    pub(crate) fn code(&self) -> &'static str {
        match self {
            StoreError::Password { .. } => "E_HISTORY_PASSWORD",
            StoreError::Url { .. } => "E_HISTORY_URL",
        }
    }

    pub(crate) fn fix(&self) -> &'static str {
        match self {
            StoreError::Password { .. } => {
                "leave the password out of the URL: put it in PGPASSWORD or the password file (~/.pgpass, or the file PGPASSFILE names)"
            }
            StoreError::Url { .. } => {
                "write it as postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require|verify-ca|verify-full]"
            }
        }
    }
}

impl Store {
    /// `text` as a store: a `postgres://` (or `postgresql://`) URL, else a file's path.
    pub(crate) fn parse(text: &str) -> Result<Store, StoreError> {
        let Some(rest) = text
            .strip_prefix("postgres://")
            .or_else(|| text.strip_prefix("postgresql://"))
        else {
            return Ok(Store::Sqlite(PathBuf::from(text)));
        };
        let shown = format!("postgres://{}", redact(rest));
        // The client reads `sslmode` up to `require`; the checking modes are dwpipe's to keep.
        let (text, verify) = match ["verify-full", "verify-ca"]
            .iter()
            .find(|mode| text.contains(&format!("sslmode={mode}")))
        {
            Some(mode) => (
                text.replacen(&format!("sslmode={mode}"), "sslmode=require", 1),
                true,
            ),
            None => (text.to_owned(), false),
        };
        let config = postgres::Config::from_str(&text).map_err(|e| StoreError::Url {
            shown: shown.clone(),
            why: e.to_string(),
        })?;
        if config.get_password().is_some() {
            return Err(StoreError::Password { shown });
        }
        if config.get_hosts().is_empty() {
            return Err(StoreError::Url {
                shown,
                why: "it names no host".to_owned(),
            });
        }
        Ok(Store::Postgres(Box::new(Server {
            config,
            shown,
            verify,
        })))
    }

    /// The SQLite file, when the history is one.
    pub(crate) fn file(&self) -> Option<&Path> {
        match self {
            Store::Sqlite(path) => Some(path),
            Store::Postgres(_) => None,
        }
    }
}

impl fmt::Display for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Store::Sqlite(path) => write!(f, "{}", path.display()),
            Store::Postgres(server) => f.write_str(&server.shown),
        }
    }
}

/// A URL's part after the scheme with anything after `user:` in its user info left out
/// (a password, which the URL is refused for, is never echoed either).
fn redact(rest: &str) -> String {
    let (authority, tail) = rest
        .find(['/', '?'])
        .map_or((rest, ""), |at| rest.split_at(at));
    match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(name, _)| name);
            format!("{user}@{host}{}", redact_query(tail))
        }
        None => format!("{authority}{}", redact_query(tail)),
    }
}

/// The query string without a `password=` parameter's value.
fn redact_query(tail: &str) -> String {
    let Some((path, query)) = tail.split_once('?') else {
        return tail.to_owned();
    };
    let params: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=…"),
            _ => p.to_owned(),
        })
        .collect();
    format!("{path}?{}", params.join("&"))
}

impl Server {
    /// Connects (TLS as the URL's `sslmode` asks, `prefer` by default), with the password
    /// from the environment or the password file when there is one.
    pub(crate) fn connect(&self) -> Result<postgres::Client, HistoryError> {
        self.connect_as("dwpipe")
    }

    /// Connects under the name `application` (what `pg_stat_activity` shows; at most 63
    /// bytes are kept).
    pub(crate) fn connect_as(&self, application: &str) -> Result<postgres::Client, HistoryError> {
        let mut config = self.config.clone();
        if config.get_user().is_none() {
            let user = std::env::var("PGUSER")
                .or_else(|_| std::env::var("USER"))
                .unwrap_or_else(|_| "postgres".to_owned());
            config.user(&user);
        }
        if let Some(password) = password(&config) {
            config.password(password);
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.application_name(application);
        let unreachable = |source: postgres::Error| HistoryError::Open {
            at: self.shown.clone(),
            source: source.into(),
        };
        // As libpq: `prefer` and `require` encrypt; the certificate is checked when the URL
        // asks (`verify-ca`, `verify-full`) or a CA file is given.
        let verify = self.verify || std::env::var_os("PGSSLROOTCERT").is_some();
        super::db::off_runtime(|| match config.get_ssl_mode() {
            SslMode::Disable => config.connect(postgres::NoTls).map_err(unreachable),
            _ => config.connect(tls(verify)?).map_err(unreachable),
        })
    }
}

/// A TLS connector: with `verify`, the server's certificate checked against the system's
/// roots and the CA file `PGSSLROOTCERT` names (a lab's own CA); without, the connection is
/// encrypted and the certificate taken as it comes (libpq's `prefer` and `require`: a
/// Debian server's self-signed certificate is the common case).
fn tls(verify: bool) -> Result<tokio_postgres_rustls::MakeRustlsConnect, HistoryError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    if !verify {
        let config = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| HistoryError::Tls { why: e.to_string() })?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unchecked(provider)))
            .with_no_client_auth();
        return Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config));
    }
    let mut roots = rustls::RootCertStore::empty();
    roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    if let Some(file) = std::env::var_os("PGSSLROOTCERT") {
        use rustls::pki_types::{CertificateDer, pem::PemObject};
        let certs = CertificateDer::pem_file_iter(&file)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|e| HistoryError::Tls {
                why: format!("PGSSLROOTCERT `{}`: {e}", Path::new(&file).display()),
            })?;
        roots.add_parsable_certificates(certs);
    }
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| HistoryError::Tls { why: e.to_string() })?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// The certificate taken as it comes (the handshake's signatures still checked): what
/// `sslmode=prefer|require` ask of libpq.
#[derive(Debug)]
struct Unchecked(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &[rustls::pki_types::CertificateDer<'_>],
        _: &rustls::pki_types::ServerName<'_>,
        _: &[u8],
        _: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The password for `config`: `PGPASSWORD`, else the first matching line of the password
/// file (`host:port:database:user:password`, `*` matching anything; ignored, as `psql`
/// ignores it, when others may read it).
fn password(config: &postgres::Config) -> Option<String> {
    if let Ok(password) = std::env::var("PGPASSWORD") {
        return Some(password);
    }
    let file = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".pgpass")))?;
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(&file).ok()?;
        if !meta.is_file() || meta.permissions().mode() & 0o077 != 0 || meta.len() > 1 << 20 {
            return None;
        }
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let host = match config.get_hosts().first()? {
        Host::Tcp(name) => name.clone(),
        Host::Unix(path) => path.display().to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let wanted = [
        host.as_str(),
        port.as_str(),
        config.get_dbname().unwrap_or(config.get_user()?),
        config.get_user()?,
    ];
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let fields = pgpass_fields(line);
            let [h, p, d, u, password] = <[String; 5]>::try_from(fields).ok()?;
            [h, p, d, u]
                .iter()
                .zip(wanted)
                .all(|(field, want)| field == "*" || field == want)
                .then_some(password)
        })
}

/// A password file's line split at unescaped `:` (`\:` and `\\` are the field's own).
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields.last_mut().expect("one field").push(next);
                }
            }
            ':' => fields.push(String::new()),
            _ => fields.last_mut().expect("one field").push(c),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_a_file_and_a_url_a_server_shown_without_secrets() {
        assert_eq!(
            Store::parse(".dwpipe/history.sqlite").unwrap(),
            Store::Sqlite(PathBuf::from(".dwpipe/history.sqlite"))
        );
        let server =
            Store::parse("postgresql://lab@db.example:5433/dwpipe?sslmode=require").unwrap();
        assert_eq!(
            server.to_string(),
            "postgres://lab@db.example:5433/dwpipe?sslmode=require"
        );
        assert!(server.file().is_none());
    }

    #[test]
    fn a_password_in_the_url_is_refused_and_never_echoed() {
        for url in [
            "postgres://lab:s3cret@db/dwpipe",
            "postgres://lab@db/dwpipe?password=s3cret",
        ] {
            let e = Store::parse(url).unwrap_err();
            assert_eq!(e.code(), "E_HISTORY_PASSWORD", "{url}");
            assert!(!e.to_string().contains("s3cret"), "{e}");
        }
    }

    #[test]
    fn a_url_that_cannot_be_read_says_why_without_its_secrets() {
        let e = Store::parse("postgres://lab:s3cret@db/x?sslmode=sometimes").unwrap_err();
        assert_eq!(e.code(), "E_HISTORY_URL");
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }

    #[test]
    fn password_file_lines_match_field_by_field_with_escapes() {
        assert_eq!(
            pgpass_fields(r"db:5432:*:lab:pa\:ss\\word"),
            ["db", "5432", "*", "lab", r"pa:ss\word"]
        );
    }
}
