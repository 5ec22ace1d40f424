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
use regex::Regex;
use std::sync::LazyLock;

use super::HistoryError;

/// How long a connection to the server may take before the history is unreachable (the
/// socket, TLS and the server's answer to the startup together).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a connection may be idle before TCP asks whether its peer is still there, and
/// between the asks.
const KEEPALIVE: Duration = Duration::from_secs(5);
/// The most a CA file (`PGSSLROOTCERT`) may be: a bundle of every public root is 250 KB.
const CA_FILE_LIMIT: u64 = 4 * 1024 * 1024;

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
    /// The address as it may be shown: rebuilt from what was parsed, never the text given.
    shown: String,
    /// Whether the address asked for the server's certificate to be checked
    /// (`sslmode=verify-ca|verify-full`).
    verify: bool,
}

impl PartialEq for Server {
    fn eq(&self, other: &Server) -> bool {
        self.shown == other.shown
    }
}

impl Eq for Server {}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

/// Why `--history` (or `history:` in dwpipe.yaml) names no usable store. `shown` is the
/// address rebuilt from its parsed parts, or only its kind when it could not be parsed:
/// nothing of the text given is ever echoed (a password in it would be).
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
                "write it as postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require|verify-ca|verify-full] (or `host=… user=… dbname=…`)"
            }
        }
    }
}

/// What a `--history` text is, before it is parsed.
#[derive(Debug, PartialEq, Eq)]
enum Kind<'a> {
    /// A `postgres://` or `postgresql://` URL, in any case; the text with its scheme in
    /// lower case (the client's parser reads only that).
    Url(String),
    /// A libpq connection string (`host=db user=lab dbname=dwpipe`).
    KeyValue(&'a str),
    /// A URL of another scheme.
    OtherScheme(&'a str),
    /// A file's path.
    File(&'a str),
}

/// Tells a server's address from a file's path. A URL's scheme is case-blind (RFC 3986), and
/// a connection string begins with a keyword and `=`: neither becomes an SQLite file named
/// after what follows (its password, say).
fn kind(text: &str) -> Kind<'_> {
    static KEY_VALUE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*[A-Za-z_]+\s*=").expect("a valid pattern"));
    static SCHEME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^([A-Za-z][A-Za-z0-9+.-]*)://").expect("a valid pattern"));
    if let Some(scheme) = SCHEME.captures(text).map(|c| c.get(1).expect("group 1")) {
        let name = scheme.as_str().to_ascii_lowercase();
        return match name.as_str() {
            "postgres" | "postgresql" => Kind::Url(format!("{name}{}", &text[scheme.end()..])),
            _ => Kind::OtherScheme(&text[..scheme.end()]),
        };
    }
    if KEY_VALUE.is_match(text) {
        return Kind::KeyValue(text);
    }
    Kind::File(text)
}

impl Store {
    /// `text` as a store: a `postgres://` URL (or `postgresql://`, in any case) or a libpq
    /// connection string, else a file's path.
    pub(crate) fn parse(text: &str) -> Result<Store, StoreError> {
        let (text, withheld) = match kind(text) {
            Kind::File(path) => return Ok(Store::Sqlite(PathBuf::from(path))),
            Kind::OtherScheme(scheme) => {
                return Err(StoreError::Url {
                    shown: format!("{}…", crate::text::one_line(scheme, 32)),
                    why: "a history is a file's path or a postgres:// URL".to_owned(),
                });
            }
            Kind::Url(url) => (url, "postgres://…"),
            Kind::KeyValue(conninfo) => (conninfo.to_owned(), "host=… (a connection string)"),
        };
        let unreadable = |why: String| StoreError::Url {
            shown: withheld.to_owned(),
            why,
        };
        // The client reads `sslmode` up to `require`; the checking modes are dwpipe's to keep.
        static CHECKING: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"(sslmode\s*=\s*)verify-(full|ca)\b").expect("a valid pattern")
        });
        let verify = CHECKING.captures(&text).map(|c| {
            if &c[2] == "full" {
                "verify-full"
            } else {
                "verify-ca"
            }
        });
        let text = CHECKING.replace(&text, "${1}require");
        let config = postgres::Config::from_str(&text).map_err(|e| unreadable(e.to_string()))?;
        // The client's parser splits a URL's user and host at the first `@` (as libpq does):
        // a host with an `@` in it is the rest of an unescaped password.
        let hosts = config
            .get_hosts()
            .iter()
            .map(|host| match host {
                Host::Tcp(name) if name.contains('@') => Err(unreadable(
                    "its host has an `@` in it (a password's `@` is written %40)".to_owned(),
                )),
                Host::Tcp(name) => Ok(name.clone()),
                Host::Unix(path) => Ok(path.display().to_string()),
            })
            .collect::<Result<Vec<String>, StoreError>>()?;
        let shown = shown(&config, &hosts, verify);
        if config.get_password().is_some() {
            return Err(StoreError::Password { shown });
        }
        if hosts.is_empty() {
            return Err(StoreError::Url {
                shown,
                why: "it names no host".to_owned(),
            });
        }
        Ok(Store::Postgres(Box::new(Server {
            config,
            shown,
            verify: verify.is_some(),
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
            Store::Postgres(server) => server.fmt(f),
        }
    }
}

/// A server's address as it may be shown, rebuilt from its parsed parts: the user, the hosts
/// and ports, the database and a TLS mode that is not the default. Nothing else of what was
/// given is in it, so no credential is, however it was written or encoded.
fn shown(config: &postgres::Config, hosts: &[String], verify: Option<&str>) -> String {
    use std::fmt::Write;
    // Percent-encoded where a character would be read as another part of the URL.
    let part = |text: &str| -> String {
        crate::text::one_line(text, 128)
            .chars()
            .map(|c| match c {
                '@' | '/' | '?' | '&' | '#' | ':' | '%' | ',' | ' ' => format!("%{:02X}", c as u32),
                c => c.to_string(),
            })
            .collect()
    };
    let mut url = String::from("postgres://");
    if let Some(user) = config.get_user() {
        let _ = write!(url, "{}@", part(user));
    }
    let ports = config.get_ports();
    let places: Vec<String> = hosts
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let port = ports.get(i).or_else(|| ports.first()).copied();
            // An IPv6 address is written in brackets, as in the URL it came from.
            let host = match host.parse::<std::net::Ipv6Addr>() {
                Ok(v6) => format!("[{v6}]"),
                Err(_) => part(host),
            };
            match port {
                Some(port) if port != 5432 => format!("{host}:{port}"),
                _ => host,
            }
        })
        .collect();
    url.push_str(&places.join(","));
    if let Some(dbname) = config.get_dbname() {
        let _ = write!(url, "/{}", part(dbname));
    }
    let mode = verify.or(match config.get_ssl_mode() {
        SslMode::Disable => Some("disable"),
        SslMode::Require => Some("require"),
        _ => None,
    });
    if let Some(mode) = mode {
        let _ = write!(url, "?sslmode={mode}");
    }
    url
}

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
        if let Some(password) = password(&config) {
            config.password(password);
        }
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
        let unreachable = move |source: postgres::Error| HistoryError::Open {
            at: at.clone(),
            source: source.into(),
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
        // Through the bounded reader, as every file dwpipe reads: a FIFO or `/dev/zero`
        // named here is refused, not read for ever.
        let bytes = crate::input::read_bounded(Path::new(&file), CA_FILE_LIMIT, "a CA file")
            .map_err(|e| HistoryError::Tls {
                why: format!("PGSSLROOTCERT: {}", crate::diagnostic::chain(&e)),
            })?;
        let certs = CertificateDer::pem_slice_iter(&bytes)
            .collect::<Result<Vec<_>, _>>()
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
        if !meta.is_file() || meta.permissions().mode() & 0o077 != 0 {
            return None;
        }
    }
    // Through the bounded reader, as every file dwpipe reads (a FIFO never blocks it).
    let text = crate::input::read_text(&file, 1 << 20, "a password file").ok()?;
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

    /// Every way a password can be written into a history address is refused, and nothing
    /// of it is echoed: in the user info (with `/`, `?`, `@`, `%` in it), as a parameter
    /// however its key is spelled or encoded, in a connection string, under a scheme in
    /// capitals. No such text becomes an SQLite file.
    #[test]
    fn a_password_is_refused_and_never_echoed_however_it_is_written() {
        let secret = "s3cr3tXY";
        for text in [
            format!("postgres://lab:{secret}@db/dwpipe"),
            format!("postgres://lab:{secret}/x@db/dwpipe"),
            format!("postgres://lab:{secret}?x@db/dwpipe"),
            format!("postgres://lab:{secret}%40x@db/dwpipe"),
            format!("postgresql://lab@db/dwpipe?password={secret}"),
            format!("postgres://lab@db/dwpipe?sslmode=require&password={secret}"),
            format!("postgres://lab@db/dwpipe?pass%77ord={secret}"),
            format!("postgres://lab@db/dwpipe?%70assword={secret}"),
            format!("POSTGRES://lab:{secret}@db/dwpipe"),
            format!("PostgreSQL://lab@db/dwpipe?password={secret}"),
            format!("host=db user=lab password={secret} dbname=dwpipe"),
            format!("host=db user=lab password='{secret}'"),
            format!("postgres://lab:{secret}@db/dwpipe?sslmode=sometimes"),
            format!("postgres://lab:p@{secret}@db/dwpipe"),
            format!("mysql://lab:{secret}@db/dwpipe"),
        ] {
            let e = Store::parse(&text).expect_err(&text);
            assert!(
                ["E_HISTORY_PASSWORD", "E_HISTORY_URL"].contains(&e.code()),
                "{text}: {e}"
            );
            assert!(!e.to_string().contains(secret), "{text}: {e}");
            assert!(!e.to_string().contains("s3cr"), "{text}: {e}");
        }
    }

    #[test]
    fn a_server_is_shown_as_rebuilt_from_its_parts() {
        for (text, shown) in [
            ("POSTGRES://lab@db/dwpipe", "postgres://lab@db/dwpipe"),
            (
                "host=db port=5433 user=lab dbname=dwpipe",
                "postgres://lab@db:5433/dwpipe",
            ),
            (
                "postgres://lab@db/dwpipe?sslmode=verify-full",
                "postgres://lab@db/dwpipe?sslmode=verify-full",
            ),
            (
                "postgres://lab@db/dwpipe?application_name=x&sslmode=disable",
                "postgres://lab@db/dwpipe?sslmode=disable",
            ),
            (
                "postgres://lab@[::1]:5433/dwpipe?options=-c%20password%3Dx",
                "postgres://lab@[::1]:5433/dwpipe",
            ),
        ] {
            assert_eq!(Store::parse(text).unwrap().to_string(), shown, "{text}");
        }
        // A path with `=` further on is still a path.
        assert_eq!(
            Store::parse("runs/a=b/history.sqlite").unwrap(),
            Store::Sqlite(PathBuf::from("runs/a=b/history.sqlite"))
        );
    }

    #[test]
    fn password_file_lines_match_field_by_field_with_escapes() {
        assert_eq!(
            pgpass_fields(r"db:5432:*:lab:pa\:ss\\word"),
            ["db", "5432", "*", "lab", r"pa:ss\word"]
        );
    }
}
