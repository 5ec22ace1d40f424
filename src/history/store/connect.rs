//! How dwpipe connects to a PostgreSQL history as libpq would: TLS (the certificate checked against
//! the system's roots and `PGSSLROOTCERT`, or taken as it comes), and the password from
//! `PGPASSWORD` or the password file.

use super::super::HistoryError;
use super::CA_FILE_LIMIT;
use postgres::config::Host;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A TLS connector: with `verify`, the server's certificate checked against the system's
/// roots and the CA file `PGSSLROOTCERT` names (a lab's own CA); without, the connection is
/// encrypted and the certificate taken as it comes (libpq's `prefer` and `require`: a
/// Debian server's self-signed certificate is the common case).
pub(super) fn tls(verify: bool) -> Result<tokio_postgres_rustls::MakeRustlsConnect, HistoryError> {
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
pub(super) struct Unchecked(Arc<rustls::crypto::CryptoProvider>);
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
pub(super) fn password(config: &postgres::Config) -> Result<Option<String>, PathBuf> {
    if let Ok(password) = std::env::var("PGPASSWORD") {
        return Ok(Some(password));
    }
    let Some(file) = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(default_password_file)
    else {
        return Ok(None);
    };
    let Ok(meta) = std::fs::metadata(&file) else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Ok(None);
    }
    // As libpq: a password file others may read is not read; unlike libpq's warning on a
    // terminal nobody sees in CI, the connection's error says so. (On Windows libpq checks
    // nothing: the file lives in the user's own profile, which other users cannot read.)
    #[cfg(unix)]
    if std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o077 != 0 {
        return Err(file);
    }
    Ok(password_in(&file, config))
}

/// Where libpq looks for the password file: `~/.pgpass`, and on Windows
/// `%APPDATA%\postgresql\pgpass.conf`.
fn default_password_file() -> Option<PathBuf> {
    #[cfg(windows)]
    return std::env::var_os("APPDATA")
        .map(|appdata| Path::new(&appdata).join("postgresql").join("pgpass.conf"));
    #[cfg(not(windows))]
    std::env::var_os("HOME").map(|home| Path::new(&home).join(".pgpass"))
}

/// The password `file` holds for `config`'s host, port, database and user.
fn password_in(file: &Path, config: &postgres::Config) -> Option<String> {
    // Through the bounded reader, as every file dwpipe reads (a FIFO never blocks it).
    let text = crate::input::read_text(file, 1 << 20, "a password file").ok()?;
    let host = match config.get_hosts().first()? {
        Host::Tcp(name) => name.clone(),
        #[cfg(unix)]
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
pub(super) fn pgpass_fields(line: &str) -> Vec<String> {
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
