//! The command line: clap definitions, dispatch, and the one place errors become exit codes.

mod freeze;
mod gate;
mod init;
mod print;

#[cfg(test)]
pub(crate) use init::EXAMPLE_PACK;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::Error;

/// dwpipe delivers HarmonyOS app changes through hard gates: an acceptance pack is frozen and
/// hashed, and every verdict is recomputed from recorded evidence instead of trusting an
/// agent's or an auditor's prose.
#[derive(Debug, Parser)]
#[command(name = "dwpipe", version, about, max_term_width = 100)]
#[command(
    after_help = "Exit codes: 0 pass, 1 verdict fail, 2 invalid input, 3 environment, 130 interrupted."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write a commented example acceptance pack to start from.
    Init(InitArgs),
    /// Validate an acceptance pack, then write pack.lock.json (canonical, SHA-256) and spec.md.
    Freeze(FreezeArgs),
    /// Recompute the verdicts of an outside auditor's report against a frozen pack.
    Gate(GateArgs),
}

#[derive(Debug, clap::Args)]
struct InitArgs {
    /// Folder to write pack.yaml into.
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Overwrite an existing pack.yaml.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Errors exit 2 and write nothing; warnings are printed and recorded in the lock."
)]
struct FreezeArgs {
    /// The acceptance pack (YAML or JSON).
    pack: PathBuf,
    /// Folder for pack.lock.json and spec.md.
    #[arg(long, default_value = ".")]
    out: PathBuf,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
The audit is JSON: {\"checks\": [{\"criterionId\": \"P-01\", \"result\": \"pass\", \
\"evidence\": \"3 runs\", \"actual\": \"720ms\"}]}, optionally with \"pack-sha256\" and \"density\" \
(the virtual pixel ratio, for px actuals against vp thresholds).

Writes audit-<n>.json and audit-<n>.md, n the next free number in --out. \
Exit 0 pass, 1 fail, 2 invalid input (a tampered lock is E_LOCK_TAMPERED).")]
struct GateArgs {
    /// The frozen pack (pack.lock.json).
    #[arg(long = "pack", value_name = "LOCK")]
    lock: PathBuf,
    /// The auditor's report (JSON).
    #[arg(long, value_name = "AUDIT.json")]
    audit: PathBuf,
    /// Folder for audit-<n>.json and audit-<n>.md.
    #[arg(long, default_value = ".")]
    out: PathBuf,
    /// Print the audit JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs dwpipe with these arguments and returns the process exit code.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let (result, json) = match Cli::try_parse_from(args) {
        Ok(cli) => {
            let json = cli.command.wants_json();
            (cli.command.execute(), json)
        }
        Err(e) => (Err(Error::Usage(e)), false),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            print::error(&error, json);
            error.exit_code()
        }
    }
}

impl Command {
    fn wants_json(&self) -> bool {
        match self {
            Command::Init(_) => false,
            Command::Freeze(a) => a.json,
            Command::Gate(a) => a.json,
        }
    }

    fn execute(self) -> Result<i32, Error> {
        match self {
            Command::Init(a) => init::run(&a.dir, a.force),
            Command::Freeze(a) => freeze::run(&a.pack, &a.out, a.json),
            Command::Gate(a) => gate::run(&a.lock, &a.audit, &a.out, a.json),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

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
        ];
        for line in rejected {
            assert!(Cli::try_parse_from(&line).is_err(), "{line:?}");
        }
    }
}
