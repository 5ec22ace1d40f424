//! The command line: parse the arguments into a plan, run it through the library, print what
//! it returns; and the one place errors become exit codes ([`error::Error`]).

mod args;
mod audit;
mod brief;
mod compare;
mod deliver;
mod devices;
mod doctor;
mod error;
mod fingerprint;
mod freeze;
mod gate;
mod history;
mod hook;
mod identify;
mod init;
mod inspect;
mod print;
mod probes;
mod progress;
mod review;
mod runtime;
mod show;
mod summary_md;
mod verify_evidence;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::Parser;

use std::sync::Arc;

use crate::device::CallTimeouts;
use crate::device::lease::{HostLeases, LeaseWait, Leasing, host_folder};
use crate::pack::Frozen;
use crate::target::HdcClient;

use args::{Cli, Command, DeviceClient, ReportCommand};
use error::Error;

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
                runtime::interruptible(move || command.execute(&edge))
            };
            (result, json)
        }
        Err(e) => (Err(Error::Usage(e)), false),
    };
    let code = match result {
        Ok(code) => code,
        Err(error) => {
            print::error(&error, json);
            error.exit_code()
        }
    };
    // What could not be written to the terminal is lost to the user: never a success.
    if print::finish() {
        code
    } else {
        crate::exit_code::ENVIRONMENT
    }
}

/// What every command shares from the command line itself.
struct Edge {
    /// `--hdc` given before the command (kept for scripts).
    hdc: Option<PathBuf>,
}

impl Edge {
    /// The hdc client of a command's flags: its `--hdc`, else one given before the command,
    /// else `$DWPIPE_HDC`, else `hdc` on PATH; every call limited by `--call-timeout` when
    /// given, else by its kind's own limit ([`CallTimeouts::default`]).
    fn client(&self, flags: &DeviceClient) -> HdcClient {
        HdcClient {
            binary: flags
                .hdc
                .clone()
                .or_else(|| self.hdc.clone())
                .or_else(|| std::env::var_os("DWPIPE_HDC").map(PathBuf::from))
                .unwrap_or_else(|| PathBuf::from("hdc")),
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
                    print::note(&format!(
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
fn holder() -> String {
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
trait Run {
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
    Compare,
    History,
    Runs,
    Probes,
    Completions,
    Report,
    Inspect,
    Hook,
);

impl Run for args::HookCommand {
    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, edge: &Edge) -> Result<i32, Error> {
        match self {
            args::HookCommand::Stop(args) => hook::stop(&edge.client(&args.client), &args),
            args::HookCommand::Plugin => {
                print::raw(hook::OPENCODE_PLUGIN.as_bytes());
                Ok(crate::exit_code::OK)
            }
        }
    }
}

impl Run for ReportCommand {
    fn json(&self) -> bool {
        let ReportCommand::Merge(args) = self;
        args.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let ReportCommand::Merge(args) = self;
        show::merge(&args)
    }
}

impl Run for args::CompletionsArgs {
    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let mut command = <Cli as clap::CommandFactory>::command();
        let mut script = Vec::new();
        clap_complete::generate(self.shell, &mut command, "dwpipe", &mut script);
        print::raw(&script);
        Ok(crate::exit_code::OK)
    }
}

/// Loads a lock, showing on stderr what loading it noticed (a format-1 lock to freeze again).
fn load_lock(path: &Path) -> Result<Frozen, Error> {
    let frozen = crate::pack::load_lock(path)?;
    print::diagnostics(&frozen.found);
    Ok(frozen)
}

/// Where a command's reports go without `--out`: a new folder named for the command and the
/// time under `.dwpipe/` (numbered when that second already has one), never the folder the
/// user is in (a checkout's sources).
fn out_or_default(out: Option<&Path>, command: &str) -> PathBuf {
    if let Some(out) = out {
        return out.to_owned();
    }
    let base = format!("{command}-{}", crate::time::now().replace([':', '-'], ""));
    let dwpipe = Path::new(".dwpipe");
    (1..)
        .map(|n| match n {
            1 => dwpipe.join(&base),
            n => dwpipe.join(format!("{base}-{n}")),
        })
        .find(|path| !path.exists())
        .expect("a free name")
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::args::Cli;
    use clap::Parser;

    #[test]
    fn the_clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn accepts_and_rejects_command_lines() {
        let ok = [
            vec!["dwpipe", "freeze", "pack.yaml"],
            vec!["dwpipe", "freeze", "pack.json", "--out", "o", "--json"],
            vec!["dwpipe", "gate", "--pack", "l.json", "--audit", "a.json"],
            vec!["dwpipe", "init"],
            vec!["dwpipe", "init", "dir", "--force"],
            vec![
                "dwpipe",
                "devices",
                "--server",
                "10.0.0.5:8710",
                "--server",
                "[::1]:8710",
                "--json",
            ],
            vec![
                "dwpipe",
                "--hdc",
                "/opt/hdc",
                "capture",
                "--device",
                "FMR0223C13000649",
                "--out",
                "cap",
            ],
        ];
        for line in ok {
            assert!(Cli::try_parse_from(&line).is_ok(), "{line:?}");
        }
        let rejected = [
            vec!["dwpipe"],
            vec!["dwpipe", "freeze"],
            vec!["dwpipe", "gate", "--pack", "l.json"],
            vec!["dwpipe", "gate", "--audit", "a.json"],
            vec!["dwpipe", "freeze", "p.yaml", "--bogus"],
            vec!["dwpipe", "devices", "--server", "10.0.0.5"],
            vec!["dwpipe", "devices", "--server", "-t:1"],
            vec!["dwpipe", "devices", "--call-timeout", "soon"],
            vec!["dwpipe", "identify", "--out", "cap"],
        ];
        for line in rejected {
            assert!(Cli::try_parse_from(&line).is_err(), "{line:?}");
        }
    }
}
