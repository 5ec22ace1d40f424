//! The command line: parse the arguments into a plan, run it through the library, print what
//! it returns; and the one place errors become exit codes ([`error::Error`]).

mod ab;
mod args;
mod audit;
mod brief;
mod capture;
mod compare;
mod deliver;
mod devices;
mod doctor;
mod error;
mod fingerprint;
mod freeze;
mod gate;
mod history;
mod init;
mod inspect;
mod lab;
mod print;
mod probes;
mod progress;
mod review;
mod runtime;
mod verify_evidence;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::Parser;

use crate::device::CallTimeouts;
use crate::pack::Frozen;
use crate::target::HdcClient;

use args::{Cli, Command, InspectCommand, ReportCommand};
use error::Error;

/// Runs dwpipe with these arguments and returns the process exit code.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let (result, json) = match Cli::try_parse_from(args) {
        Ok(cli) => {
            let json = cli.command.json();
            let hdc = cli.command.hdc(cli.hdc);
            let result = if cli.command.drives_children() {
                cli.command.execute(&hdc)
            } else {
                let command = cli.command;
                runtime::interruptible(move || command.execute(&hdc))
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

/// Loads a lock, showing on stderr what loading it noticed (a format-1 lock to freeze again).
fn load_lock(path: &Path) -> Result<Frozen, Error> {
    let frozen = crate::pack::load_lock(path)?;
    print::diagnostics(&frozen.found);
    Ok(frozen)
}

impl Command {
    /// Whether the command drives children (devices, agents, commands) on its own runtime,
    /// where a signal stops them first; the others are simply interruptible.
    fn drives_children(&self) -> bool {
        matches!(
            self,
            Command::Audit(_)
                | Command::Deliver(_)
                | Command::Doctor(_)
                | Command::Devices(_)
                | Command::Capture(_)
                | Command::Fingerprint(_)
                | Command::Review(_)
        )
    }

    /// Whether the command was asked for JSON (errors then print as JSON too).
    fn json(&self) -> bool {
        match self {
            Command::Freeze(a) => a.json,
            Command::Gate(a) => a.json,
            Command::Compare(a) => a.json,
            Command::History(a) => a.json,
            Command::Probes { json } | Command::Runs { json, .. } => *json,
            Command::Review(a) => a.json,
            Command::Devices(a) => a.json,
            Command::Doctor(a) => a.json,
            Command::Audit(a) => a.json,
            Command::Deliver(a) => a.json,
            Command::Report(ReportCommand::Merge { json, .. }) => *json,
            Command::Inspect(
                InspectCommand::Trace { json, .. }
                | InspectCommand::Layout { json, .. }
                | InspectCommand::Hidumper { json, .. }
                | InspectCommand::Screenshot { json, .. }
                | InspectCommand::Hypium { json, .. },
            ) => *json,
            Command::Init(_)
            | Command::Completions { .. }
            | Command::Brief(_)
            | Command::Fingerprint(_)
            | Command::Capture(_)
            | Command::VerifyEvidence(_) => false,
        }
    }

    /// The hdc client: the command's `--hdc`, else one given before the command, else
    /// `$DWPIPE_HDC`, else `hdc` on PATH.
    fn hdc(&self, before: Option<PathBuf>) -> PathBuf {
        let own = match self {
            Command::Doctor(a) => &a.hdc,
            Command::Audit(a) => &a.hdc,
            Command::Deliver(a) => &a.hdc,
            Command::Devices(a) => &a.hdc,
            Command::Capture(a) => &a.hdc,
            _ => &args::HdcArg { hdc: None },
        };
        own.hdc
            .clone()
            .or(before)
            .or_else(|| std::env::var_os("DWPIPE_HDC").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("hdc"))
    }

    fn execute(self, hdc: &Path) -> Result<i32, Error> {
        let client = |limit| HdcClient {
            binary: hdc.to_owned(),
            timeouts: CallTimeouts::all(limit),
        };
        match self {
            Command::Init(a) => init::run(&a.dir, a.force),
            Command::Doctor(a) => doctor::run(&client(a.call_timeout), &a),
            Command::Freeze(a) => freeze::run(&a.pack, &a.out, a.force, a.json),
            Command::Gate(a) => gate::run(&a.lock, &a.audit, &a.out, a.json),
            Command::Brief(a) => brief::run(&a),
            Command::Fingerprint(a) => fingerprint::run(&a.workspace, a.cache.as_deref()),
            Command::Review(a) => review::run(&a),
            Command::Devices(a) => devices::run(&client(a.call_timeout), &a.servers, a.json),
            Command::Capture(a) => {
                capture::run(&client(a.call_timeout), &a.serial, a.server, &a.out)
            }
            Command::Audit(a) => {
                let target = a
                    .target
                    .clone()
                    .target(a.record.clone())
                    .expect("clap requires --device, --devices or --replay");
                if a.baseline_hap.is_some() {
                    ab::run(&client(a.call_timeout), &target, &a)
                } else if target.is_lab() {
                    lab::run(&client(a.call_timeout), &target, &a)
                } else {
                    audit::run(&client(a.call_timeout), &target, &a)
                }
            }
            Command::Deliver(a) => deliver::run(&client(a.call_timeout), &a),
            Command::VerifyEvidence(a) => verify_evidence::run(&a.report, a.lock.as_deref()),
            Command::Compare(a) => compare::run(&a),
            Command::History(a) => history::run(&a),
            Command::Probes { json } => probes::run(json),
            Command::Runs { config, json } => probes::runs(&config, json),
            Command::Completions { shell } => {
                let mut command = <Cli as clap::CommandFactory>::command();
                clap_complete::generate(shell, &mut command, "dwpipe", &mut std::io::stdout());
                Ok(crate::exit_code::OK)
            }
            Command::Report(ReportCommand::Merge { runs, out, json }) => {
                lab::merge(&runs, &out, json)
            }
            Command::Inspect(inspect) => inspect::run(inspect),
        }
    }
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
            vec!["dwpipe", "capture", "--out", "cap"],
        ];
        for line in rejected {
            assert!(Cli::try_parse_from(&line).is_err(), "{line:?}");
        }
    }
}
