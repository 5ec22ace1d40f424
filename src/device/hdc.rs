//! The hdc driver: builds argv for the real `hdc` client, runs it through the process runner
//! with a host-side timeout on every call, and judges replies by their text (hdc's exit status
//! is always 0).

use std::ffi::OsString;
use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::process::{Cancel, Completion, ProcessSpec, SpawnError, run};

use super::Spent;
use super::error::DeviceError;
use super::lease::{LeaseSlot, Leasing};
use super::reply::{HdcFailure, Target, hdc_failure, normalize, parse_targets, split_sentinel};
use crate::shell::{ShellValue, UnsafeValue};
use crate::text::{GLIMPSE, one_line};

mod phone;
mod sdk;
pub use phone::HdcDevice;
pub(crate) use sdk::default_hdc;

/// A remote hdc server (`hdc -s HOST:PORT -m` on the host that has the USB devices): the
/// name given, and the address hdc is handed. hdc's `-s` takes IP literals only (`main.cpp`,
/// `FormatServerListenString`: `uv_ip4_addr`, else `uv_ip6_addr`, else it prints `-s content
/// IP incorrect.` and exits 0), so a host name is resolved here, before hdc runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Server {
    host: String,
    port: u16,
    address: IpAddr,
}

/// A server that cannot be handed to hdc.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ServerError {
    /// Not `HOST:PORT`, or a host with characters no host name has.
    #[error(transparent)]
    Invalid(#[from] UnsafeValue),
    /// A host name that does not resolve.
    #[error(
        "the host name `{host}` does not resolve ({reason}); hdc takes IP addresses only: give the server's address (like 10.0.0.5:8710), or fix the name"
    )]
    Unresolved {
        /// The name given.
        host: String,
        /// What the resolver said.
        reason: String,
    },
}

impl Server {
    /// Parses `HOST:PORT` (`[v6]:PORT` for IPv6), resolving a host name to the address hdc
    /// is handed (IPv4 first, the form hdc's own examples use).
    pub fn parse(text: &str) -> Result<Server, ServerError> {
        let refuse = || UnsafeValue::new("server", text, "HOST:PORT, like 10.0.0.5:8710");
        let (host, port) = text.rsplit_once(':').ok_or_else(refuse)?;
        let port: u16 = port.parse().ok().filter(|p| *p > 0).ok_or_else(refuse)?;
        let bare = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        let host_ok = !bare.is_empty()
            && bare.len() <= 253
            && bare
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'));
        if !host_ok || host.starts_with('-') {
            return Err(refuse().into());
        }
        let address = match bare.parse::<IpAddr>() {
            Ok(address) => address,
            Err(_) if bare.contains(':') => return Err(refuse().into()),
            Err(_) => resolve(bare, port)?,
        };
        Ok(Server {
            host: host.to_owned(),
            port,
            address,
        })
    }

    /// The argument of hdc's `-s`: the address, unbracketed (`10.0.0.5:8710`, `::1:8710`),
    /// as `FormatServerListenString` splits it at its last colon.
    fn hdc_argument(&self) -> String {
        format!("{}:{}", self.address, self.port)
    }
}

/// The first address `host` resolves to, IPv4 before IPv6.
fn resolve(host: &str, port: u16) -> Result<IpAddr, ServerError> {
    use std::net::ToSocketAddrs;
    let unresolved = |reason: String| ServerError::Unresolved {
        host: host.to_owned(),
        reason,
    };
    let addresses: Vec<IpAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| unresolved(e.to_string()))?
        .map(|a| a.ip())
        .collect();
    addresses
        .iter()
        .find(|a| a.is_ipv4())
        .or_else(|| addresses.first())
        .copied()
        .ok_or_else(|| unresolved("no address".to_owned()))
}

impl fmt::Display for Server {
    /// As given, with the address hdc was handed when that was a name
    /// (`lab-host.local:8710 (10.0.0.5)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)?;
        let bare = self.host.trim_start_matches('[').trim_end_matches(']');
        if bare.parse::<IpAddr>().is_err() {
            write!(f, " ({})", self.address)?;
        }
        Ok(())
    }
}

/// Host-side time limits per kind of call.
#[derive(Clone, Copy, Debug)]
pub struct CallTimeouts {
    /// `list targets`, other server queries, and reading a device's identity. Above the time
    /// hdc's client itself tries to reach its server (1200 ticks of 10 ms: 12.2 to 13.0 s
    /// measured on 2 cores with 0 to 4 busy loops, 12.3 to 17.0 s in research/real-hdc.md),
    /// so that its own `Connect server failed` is what is reported.
    pub query: Duration,
    /// `shell`: a playbook's commands (a test suite among them).
    pub shell: Duration,
    /// `file send`/`file recv`.
    pub transfer: Duration,
    /// `install`/`uninstall`.
    pub app: Duration,
    /// Between SIGTERM and SIGKILL when a call overruns.
    pub grace: Duration,
}

impl Default for CallTimeouts {
    fn default() -> Self {
        CallTimeouts {
            query: Duration::from_secs(25),
            shell: Duration::from_secs(120),
            transfer: Duration::from_secs(180),
            app: Duration::from_secs(300),
            grace: Duration::from_secs(2),
        }
    }
}

impl CallTimeouts {
    /// Every call limited to `limit` (grace stays as is).
    pub fn all(limit: Duration) -> CallTimeouts {
        CallTimeouts {
            query: limit,
            shell: limit,
            transfer: limit,
            app: limit,
            ..CallTimeouts::default()
        }
    }
}

/// One hdc client talking to one server (the local one, or `-s HOST:PORT`).
#[derive(Clone, Debug)]
pub struct Hdc {
    binary: PathBuf,
    server: Option<Server>,
    timeouts: CallTimeouts,
    cancel: Cancel,
    /// How its devices are leased (`None`: not at all, for listing commands and tests).
    leasing: Option<Leasing>,
}

/// The raw, normalized reply of one hdc invocation.
struct Raw {
    stdout: String,
    stderr: String,
    duration: Duration,
}

impl Hdc {
    /// A client using `binary` against `server` (`None`: the local server).
    pub fn new(
        binary: PathBuf,
        server: Option<Server>,
        timeouts: CallTimeouts,
        cancel: Cancel,
    ) -> Hdc {
        Hdc {
            binary,
            server,
            timeouts,
            cancel,
            leasing: None,
        }
    }

    /// The same client, its devices leased as `leasing` says.
    pub(crate) fn leased(self, leasing: Option<Leasing>) -> Hdc {
        Hdc { leasing, ..self }
    }

    /// `local` or `HOST:PORT`.
    pub(crate) fn server_name(&self) -> String {
        self.server
            .as_ref()
            .map_or_else(|| "local".to_owned(), ToString::to_string)
    }

    /// A device behind this server.
    pub fn device(&self, serial: &str) -> Result<HdcDevice, UnsafeValue> {
        let serial = ShellValue::serial(serial)?;
        let lease = self.leasing.clone().map(|leasing| {
            // A server on this host's loopback is this host's.
            let host = self.server.as_ref().filter(|s| !s.address.is_loopback());
            Arc::new(LeaseSlot::new(
                leasing,
                serial.as_str(),
                host.map(|s| s.host.as_str()),
            ))
        });
        Ok(HdcDevice {
            hdc: self.clone(),
            serial,
            spent: Spent::default(),
            lease,
        })
    }

    /// `hdc list targets -v`.
    pub async fn list_targets(&self) -> Result<Vec<Target>, DeviceError> {
        let raw = self
            .call(None, &["list", "targets", "-v"], self.timeouts.query)
            .await?;
        if let Some(failure) = hdc_failure(&raw.stdout, &raw.stderr) {
            return Err(self.failure(failure, ""));
        }
        Ok(parse_targets(&raw.stdout))
    }

    fn argv(&self, serial: Option<&str>, args: &[&str]) -> Vec<OsString> {
        let mut argv: Vec<OsString> = Vec::with_capacity(args.len() + 5);
        if let Some(server) = &self.server {
            // `-p`: do not pull up a local server that could never bind the remote address.
            argv.extend(["-s".into(), server.hdc_argument().into(), "-p".into()]);
        }
        if let Some(serial) = serial {
            argv.extend(["-t".into(), serial.into()]);
        }
        argv.extend(args.iter().map(OsString::from));
        argv
    }

    /// A call in a few words: `hdc shell` on a device and the start of its command.
    fn step_of(&self, serial: Option<&str>, args: &[&str]) -> String {
        let on = serial
            .map(|s| format!(" on device {s}"))
            .unwrap_or_default();
        let server = self
            .server
            .as_ref()
            .map(|s| format!(" (server {s})"))
            .unwrap_or_default();
        match args {
            ["shell", line] => format!(
                "`hdc shell`{on}{server} running `{}`",
                one_line(line, GLIMPSE)
            ),
            _ => format!("`hdc {}`{on}{server}", one_line(&args.join(" "), GLIMPSE)),
        }
    }

    async fn call(
        &self,
        serial: Option<&str>,
        args: &[&str],
        timeout: Duration,
    ) -> Result<Raw, DeviceError> {
        let spec = ProcessSpec::new(self.binary.clone(), self.argv(serial, args))
            .timeout(timeout)
            .grace(self.timeouts.grace);
        let outcome = run(&spec, &self.cancel).await.map_err(|e| match e {
            SpawnError::NotFound { program } => DeviceError::HdcNotFound { tried: program },
            SpawnError::Io { program, source } => DeviceError::Io {
                context: format!("cannot start `{}`", program.display()),
                source,
            },
        })?;
        match outcome.completion {
            // hdc retries a server given by `-s` for 12 s or more before it says so: a call
            // that ran out of time first, where nothing accepts a connection, met no server.
            // (Without `-s` the client starts the local server itself.)
            Completion::TimedOut if self.server.is_some() && !self.accepts_connections().await => {
                return Err(DeviceError::ServerUnreachable {
                    server: self.server_name(),
                    why: format!(
                        "nothing accepts a connection there; hdc was still trying after {}s",
                        timeout.as_secs()
                    ),
                });
            }
            Completion::TimedOut => {
                return Err(DeviceError::Timeout {
                    step: self.step_of(serial, args),
                    after: timeout,
                });
            }
            Completion::Cancelled => return Err(DeviceError::Cancelled),
            Completion::Exited(_) | Completion::Signalled(_) => {}
        }
        Ok(Raw {
            // hdc.exe's own words come in the host's code page (see `text::host_text`).
            stdout: normalize(&crate::text::host_text(&outcome.stdout.to_bytes())),
            stderr: normalize(&crate::text::host_text(&outcome.stderr.to_bytes())),
            duration: outcome.duration,
        })
    }

    /// The `-s` server's address.
    fn address(&self) -> Option<std::net::SocketAddr> {
        let server = self.server.as_ref()?;
        Some(std::net::SocketAddr::new(server.address, server.port))
    }

    /// Whether anything accepts a TCP connection at the server's address (within 2 s; off the
    /// runtime's threads, which other devices' calls share).
    async fn accepts_connections(&self) -> bool {
        let Some(address) = self.address() else {
            return true;
        };
        tokio::task::spawn_blocking(move || {
            std::net::TcpStream::connect_timeout(&address, Duration::from_secs(2)).is_ok()
        })
        .await
        .unwrap_or(true)
    }

    fn failure(&self, failure: HdcFailure, serial: &str) -> DeviceError {
        match failure {
            HdcFailure::ServerUnreachable => DeviceError::ServerUnreachable {
                server: self.server_name(),
                why: "Connect server failed".to_owned(),
            },
            HdcFailure::ServerBroken(said) => DeviceError::ServerBroken {
                server: self.server_name(),
                said,
            },
            HdcFailure::Unauthorized(message) => DeviceError::Unauthorized {
                serial: serial.to_owned(),
                message,
            },
            HdcFailure::DeviceNotFound(message) => DeviceError::DeviceNotFound {
                serial: serial.to_owned(),
                message,
            },
            HdcFailure::Fail { code, message } => DeviceError::HdcFailed { code, message },
        }
    }
}

/// How long a call is asked again while hdc says the device's channel is being established
/// (`[E000004]`), and how often.
const ESTABLISHING_WAIT: Duration = Duration::from_secs(10);
const ESTABLISHING_RETRY: Duration = Duration::from_millis(500);

/// Whether hdc refused a call because the device's channel is still being established
/// (`[Fail][E000004]:The communication channel is being established. Please wait for several
/// seconds and try again.`); the command did not run (a shell's status line never came:
/// device output may hold any text).
fn is_establishing(stdout: &str) -> bool {
    split_sentinel(stdout).is_none()
        && matches!(
            hdc_failure(stdout, ""),
            Some(HdcFailure::Fail { code: Some(code), .. }) if code == "E000004"
        )
}
