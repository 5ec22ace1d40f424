//! From argv to a command's exit code: the arguments parsed, the edge set up (the hdc client,
//! its leases, the signals), each command run through its [`Run`] impl, errors printed once.

use super::args::{Cli, Command};
use super::error::Error;
use super::shared::DeviceClient;
use crate::device::CallTimeouts;
use crate::device::lease::{HostLeases, LeaseWait, Leasing, host_folder};
use crate::pack::Frozen;
use crate::target::HdcClient;
use clap::Parser;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Runs dwpipe with these arguments and returns the process exit code.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let (result, json) = match Cli::try_parse_from(args) {
        Ok(cli) => {
            let (json, drives_children) = {
                let command = cli.command.as_run();
                (command.json(), command.drives_children())
            };
            let edge = Edge { hdc: cli.hdc };
            let command = cli.command;
            let result = if drives_children {
                // Children hold pipes: as many open files as the host allows.
                crate::process::raise_open_files();
                command.execute(&edge)
            } else {
                super::runtime::interruptible(move || command.execute(&edge))
            };
            (result, json)
        }
        Err(e) => (Err(Error::Usage(e)), false),
    };
    let code = match result {
        Ok(code) => code,
        Err(error) => {
            super::print::error(&error, json);
            error.exit_code()
        }
    };
    // What could not be written to the terminal is lost to the user: never a success.
    if super::print::finish() {
        code
    } else {
        crate::exit_code::ENVIRONMENT
    }
}

/// What every command shares from the command line itself.
pub(super) struct Edge {
    /// `--hdc` given before the command (kept for scripts).
    hdc: Option<PathBuf>,
}

impl Edge {
    /// The hdc client of a command's flags: its `--hdc`, else one given before the command,
    /// else `$DWPIPE_HDC`, else `hdc` on PATH, else the SDK's in `$DEVECO_SDK_HOME`; every call limited by `--call-timeout` when
    /// given, else by its kind's own limit ([`CallTimeouts::default`]).
    pub(crate) fn client(&self, flags: &DeviceClient) -> HdcClient {
        HdcClient {
            binary: flags
                .hdc
                .clone()
                .or_else(|| self.hdc.clone())
                .or_else(|| std::env::var_os("DWPIPE_HDC").map(PathBuf::from))
                .unwrap_or_else(crate::device::default_hdc),
            timeouts: flags
                .call_timeout
                .map_or_else(CallTimeouts::default, CallTimeouts::all),
            leasing: Some(Leasing {
                store: Arc::new(HostLeases {
                    folder: host_folder(),
                }),
                wait: flags.lease_wait,
                holder: holder(),
                on_wait: Arc::new(|wait: &LeaseWait| {
                    super::print::note(&format!(
                        "device {}: waiting for its lease, held by {}; up to {}s (--lease-wait)",
                        wait.serial,
                        wait.holder.as_deref().unwrap_or("another job"),
                        wait.bound.as_secs(),
                    ));
                }),
            }),
        }
    }
}

/// This job as another job waiting for its device is told: `dwpipe audit (pid 42 on lab-2)`.
pub(super) fn holder() -> String {
    // The command is the first word after the program that is not an option or a path.
    let command = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-') && !a.contains('/'))
        .unwrap_or_default();
    format!(
        "dwpipe {command} (pid {} on {})",
        std::process::id(),
        crate::device::lease::this_host()
    )
}

/// A command as the edge runs it: what it prints, whether it drives children, and the run.
pub(super) trait Run {
    /// Whether it was asked for JSON (its errors then print as JSON too).
    fn json(&self) -> bool {
        false
    }

    /// Whether it drives children (devices, agents, commands) on its own runtime, where a
    /// signal stops them first; the others are simply interruptible.
    fn drives_children(&self) -> bool {
        false
    }

    /// Runs it; `Ok(exit code)`.
    fn execute(self, edge: &Edge) -> Result<i32, Error>
    where
        Self: Sized;
}

/// Each command's arguments are its [`Run`]: one list, so dispatch and properties cannot
/// drift apart.
macro_rules! commands {
    ($($variant:ident),* $(,)?) => {
        impl Command {
            fn as_run(&self) -> &dyn Run {
                match self {
                    $(Command::$variant(args) => args,)*
                }
            }

            fn execute(self, edge: &Edge) -> Result<i32, Error> {
                match self {
                    $(Command::$variant(args) => args.execute(edge),)*
                }
            }
        }
    };
}

commands!(
    Init,
    Doctor,
    Freeze,
    Gate,
    Brief,
    Fingerprint,
    Review,
    Devices,
    Identify,
    Capture,
    Audit,
    Deliver,
    VerifyEvidence,
    Attest,
    VerifyAttestation,
    Compare,
    History,
    Runs,
    Probes,
    Explain,
    Schema,
    Completions,
    Report,
    Inspect,
    Hook,
);

/// Loads a lock, showing on stderr what loading it noticed (a format-1 lock to freeze again).
pub(super) fn load_lock(path: &Path) -> Result<Frozen, Error> {
    let frozen = crate::pack::load_lock(path)?;
    super::print::diagnostics(&frozen.found);
    Ok(frozen)
}
