//! Where the history lives, as `history:` in dwpipe.yaml and `--history` name it: an SQLite
//! file (the default: embedded, nothing to install, one host), or a PostgreSQL server named
//! by a `postgres://` URL (one history for a lab on several hosts). A URL is shown everywhere
//! without its secrets, and a URL that carries a password is refused: it would sit in the
//! process list, in dwpipe.yaml and in every log that prints the command. Opening it is the
//! history's (`history::store`); this is only the address, read where the config is.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::LazyLock;

use postgres::config::{Host, SslMode};
use regex::Regex;

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
    /// The client's settings, as parsed (`sslmode` at most `require`: see `verify`).
    pub(crate) config: postgres::Config,
    /// The address as it may be shown: rebuilt from what was parsed, never the text given.
    pub(crate) shown: String,
    /// Whether the address asked for the server's certificate to be checked
    /// (`sslmode=verify-ca|verify-full`).
    pub(crate) verify: bool,
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
    /// Meant as a server's address, and not written as one (`postgres:/…`, ` postgres://…`,
    /// a quoted URL, `postgres ://…`): what may be shown of it, and what is wrong.
    NearMiss(String, &'static str),
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
    if let Some((shown, why)) = near_miss(text) {
        return Kind::NearMiss(shown, why);
    }
    Kind::File(text)
}

/// A text that is no address but was meant as one: a scheme of two letters or more before a
/// colon and a slash, or `postgres` before a colon — with spaces or quotes around it, a
/// space before its colon, or one slash — or `postgres` and slashes before a user's `@`, its
/// colon lost. (A drive's letter, `C:/…`, is a file's path.)
fn near_miss(text: &str) -> Option<(String, &'static str)> {
    static NEAR: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^([A-Za-z][A-Za-z0-9+.-]+)(\s*):(/*)").expect("a valid pattern")
    });
    let bare = text
        .trim()
        .trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .trim();
    // `postgres` followed by no colon, with a user before an `@` further on: an address with
    // its colon lost (`postgres//lab:pw@host/db`), not a file named after its password. (A
    // file under a folder so named is given as `./postgres/…`.)
    static COLONLESS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(postgres(?:ql)?)[/\\\s]+.*@").expect("a valid pattern")
    });
    if let Some(found) = COLONLESS.captures(bare) {
        let name = found[1].to_ascii_lowercase();
        return Some((
            format!("{name}…"),
            "a server's address begins `postgres://`, with a colon and two slashes",
        ));
    }
    let found = NEAR.captures(bare)?;
    let name = found[1].to_ascii_lowercase();
    let server = name.starts_with("postgres");
    if !server && found[3].is_empty() {
        return None;
    }
    let why = if bare != text {
        "it has spaces or quotes around it: give the address bare"
    } else if !found[2].is_empty() {
        "it has a space before its `:`"
    } else if !server {
        "a history is a file's path or a postgres:// URL"
    } else {
        "a server's address begins `postgres://`, with two slashes"
    };
    Some((format!("{}…", crate::text::one_line(&name, 32)), why))
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
            Kind::NearMiss(shown, why) => {
                return Err(StoreError::Url {
                    shown,
                    why: why.to_owned(),
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
                #[cfg(unix)]
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
