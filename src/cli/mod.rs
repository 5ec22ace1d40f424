//! The command line: clap definitions, dispatch, and the one place errors become exit codes.

mod audit;
mod brief;
mod capture;
mod deliver;
mod devices;
mod freeze;
mod gate;
mod init;
mod inspect;
mod lab;
mod print;
mod progress;
mod review;
mod runtime;
mod verify_evidence;

use std::ffi::OsString;
use std::path::PathBuf;

use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::device::{CallTimeouts, Server};
use crate::input::parse_duration;

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
    /// The hdc client to run (default: `hdc` on PATH).
    #[arg(
        long,
        global = true,
        env = "DWPIPE_HDC",
        value_name = "PATH",
        default_value = "hdc"
    )]
    hdc: PathBuf,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write a commented example acceptance pack and dwpipe.yaml to start from.
    Init(InitArgs),
    /// Validate an acceptance pack, then write pack.lock.json (canonical, SHA-256) and spec.md.
    Freeze(FreezeArgs),
    /// Recompute the verdicts of an outside auditor's report against a frozen pack.
    Gate(GateArgs),
    /// Render the Goal brief for the agent, or a repair brief from a failed audit or verification.
    Brief {
        /// The frozen pack (pack.lock.json).
        lock: PathBuf,
        /// The project config (workspace and verification commands).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The repair round this brief is for.
        #[arg(long, default_value_t = 1)]
        round: u32,
        /// Write a repair brief from this audit-<n>.json or verify-<n>.json.
        #[arg(long, value_name = "REPORT")]
        repair_from: Option<PathBuf>,
        /// Write the brief here instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Print a workspace's fingerprint (git: HEAD + status + changed files' content; else the tree).
    Fingerprint {
        /// The workspace.
        workspace: PathBuf,
        /// A stat cache file to read and update (size + mtime → content hash).
        #[arg(long)]
        cache: Option<PathBuf>,
    },
    /// Attack a frozen pack before dispatch: built-in rules, then the optional outside reviewer.
    #[command(after_help = "\
Writes review-<n>.json and review-<n>.md and appends to ledger.jsonl in --out. A lock is reviewed \
once: its receipt stands until the pack changes. Exit 0 when delivery may go on (pass, waived, \
incomplete under fail-mode open/warn), 1 when the pack must change or the review blocks.")]
    Review {
        /// The frozen pack (pack.lock.json).
        lock: PathBuf,
        /// The project config (review settings and the outside reviewer).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Folder for the review reports, the receipts and the ledger.
        #[arg(long, default_value = ".")]
        out: PathBuf,
        /// Waive the outside reviewer for this run (recorded; refused under fail-mode closed).
        #[arg(long)]
        no_review: bool,
        /// Print the review as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// List the devices on every hdc server, with model, software, API level and density.
    Devices(DevicesArgs),
    /// Record a device's identity into a capture folder (device.yaml + transcript.yaml).
    Capture(CaptureArgs),
    /// Measure every criterion that has a probe on a device (or a capture), keep the evidence, gate it.
    Audit(AuditArgs),
    /// Deliver a change: freeze, review, brief the agent, verify, audit, and repair until verified.
    Deliver(DeliverArgs),
    /// Re-hash an audit's evidence and recompute every reading and verdict from it, offline.
    VerifyEvidence {
        /// The audit report (audit-<n>.json written by `dwpipe audit`).
        report: PathBuf,
    },
    /// Work with reports: merge the lab matrices of shards run on different hosts.
    #[command(subcommand)]
    Report(ReportCommand),
    /// Show what an extractor sees in one file (trace, layout dump, hidumper output, …).
    #[command(subcommand)]
    Inspect(InspectCommand),
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes audit-<n>.json, audit-<n>.md and junit.xml into --out, and every pulled file and saved reply \
under --out/evidence/<device>/<run>/<session>/ with its SHA-256. Criteria without a probe are \
unverified unless --auditor-report covers them. Exit 0 pass, 1 fail, 2 invalid input, 3 device.

A lab: --device repeated, or --devices all, on one or more --server HOST:PORT. Devices are \
audited in parallel (--jobs at once), each into --out/<serial>/; a device that fails or vanishes \
does not stop the others. lab.json, lab.md and lab-junit.xml (one suite per device) hold the \
criterion × device matrix. Exit 0 all pass, 1 a device failed, 3 none failed but one could not \
be audited.")]
#[command(group(clap::ArgGroup::new("source").required(true).args(["serials", "devices", "replay"])))]
struct AuditArgs {
    /// The frozen pack (pack.lock.json).
    #[arg(long = "pack", value_name = "LOCK")]
    lock: PathBuf,
    #[command(flatten)]
    target: DeviceArgs,
    /// Record the live device into this capture folder as the audit runs (one device).
    #[arg(
        long,
        value_name = "CAPTURE",
        requires = "serials",
        conflicts_with = "devices"
    )]
    record: Option<PathBuf>,
    /// Runs per probe (overrides the pack and the playbooks).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: Option<u32>,
    /// Folder for the reports and the evidence.
    #[arg(long, default_value = ".")]
    out: PathBuf,
    /// An outside auditor's report for criteria dwpipe cannot measure (held against its measurements).
    #[arg(long, value_name = "FILE")]
    auditor_report: Option<PathBuf>,
    /// A folder of playbooks overriding the embedded ones by file name.
    #[arg(long, value_name = "DIR")]
    playbooks: Option<PathBuf>,
    /// Host-side limit for each hdc call.
    #[arg(long, value_name = "DURATION", default_value = "120s", value_parser = parse_duration)]
    call_timeout: Duration,
    /// Print the audit JSON on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Stages: freeze the pack, pre-review it (a lock is reviewed once; receipts in .dwpipe/reviews), \
write the Goal brief, run the agent, run the verification commands, audit on the device; on a \
failure, a repair brief goes back to the agent (repair.max-rounds, the same failure at most \
repair.max-same-failure times). Every artifact and ledger.jsonl land in \
.dwpipe/runs/<time>-<pack8>/ beside dwpipe.yaml (or under --out); deliver.json ends it.

Exit 0 verified, 1 not verified (no_changes, verification_failed, audit_failed, \
repeated_failure, budget_exhausted, review_blocked), 2 invalid input, 3 environment \
(a tool, the agent or the device failed), 130 interrupted (a second Ctrl-C exits at once).")]
#[command(group(clap::ArgGroup::new("source").args(["serials", "devices", "replay"])))]
struct DeliverArgs {
    /// The acceptance pack (pack.yaml, frozen now) or an existing pack.lock.json.
    #[arg(long, value_name = "PACK", required_unless_present = "resume")]
    pack: Option<PathBuf>,
    /// Continue an interrupted run (.dwpipe/runs/<run>) from its last completed stage, reusing
    /// a passed verification only while the workspace is unchanged.
    #[arg(long, value_name = "RUN", conflicts_with = "pack")]
    resume: Option<PathBuf>,
    /// The project config.
    #[arg(long, value_name = "FILE", default_value = "dwpipe.yaml")]
    config: PathBuf,
    /// Where to audit (default: `device:` in dwpipe.yaml).
    #[command(flatten)]
    target: DeviceArgs,
    /// The folder that holds .dwpipe/ (default: dwpipe.yaml's folder).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Waive the outside reviewer for this run (recorded; refused under fail-mode closed).
    #[arg(long)]
    no_review: bool,
    /// A folder of playbooks overriding the embedded ones by file name.
    #[arg(long, value_name = "DIR")]
    playbooks: Option<PathBuf>,
    /// Host-side limit for each hdc call.
    #[arg(long, value_name = "DURATION", default_value = "120s", value_parser = parse_duration)]
    call_timeout: Duration,
    /// Unfold the agent's log and the verification commands' output under their stage lines.
    #[arg(long, short)]
    verbose: bool,
    /// Print deliver.json on stdout instead of the stage lines.
    #[arg(long)]
    json: bool,
}

/// Where an audit measures: one device, a lab of devices, or a recorded capture.
#[derive(Debug, clap::Args)]
struct DeviceArgs {
    /// A live device's connect key; repeat it for a lab of devices, audited in parallel.
    #[arg(long = "device", value_name = "SERIAL")]
    serials: Vec<String>,
    /// `all`: every connected device on the hdc servers, audited in parallel.
    #[arg(long, value_name = "all", value_parser = ["all"], conflicts_with = "serials")]
    devices: Option<String>,
    /// An hdc server, HOST:PORT (repeatable; default: the local one).
    #[arg(long = "server", value_name = "HOST:PORT", value_parser = parse_server)]
    servers: Vec<Server>,
    /// Replay a recorded capture instead of driving a device.
    #[arg(long, value_name = "CAPTURE", conflicts_with_all = ["serials", "devices", "servers"])]
    replay: Option<PathBuf>,
    /// In a lab: devices audited at once.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=64))]
    jobs: u16,
}

impl DeviceArgs {
    /// The lab, when more than one device (or every device) was asked for.
    fn lab(&self) -> Option<(lab::Pick, Vec<Server>, usize)> {
        let many = self.devices.is_some() || self.serials.len() > 1 || self.servers.len() > 1;
        many.then(|| {
            let pick = match self.devices {
                Some(_) => lab::Pick::All,
                None => lab::Pick::Serials(self.serials.clone()),
            };
            (pick, self.servers.clone(), usize::from(self.jobs))
        })
    }

    /// The one device (or capture) asked for, recorded into `record` when given.
    fn single(self, record: Option<PathBuf>) -> Option<audit::Source> {
        match (self.replay, self.serials.into_iter().next()) {
            (Some(capture), _) => Some(audit::Source::Replay(capture)),
            (None, Some(serial)) => Some(audit::Source::Device {
                serial,
                server: self.servers.into_iter().next(),
                record,
            }),
            (None, None) => None,
        }
    }
}

#[derive(Debug, Subcommand)]
enum ReportCommand {
    /// Merge lab shards (the --out folders of `dwpipe audit --devices …` on several hosts) into
    /// one criterion × device matrix: lab.json, lab.md, lab-junit.xml.
    #[command(
        after_help = "Shards must have audited the same lock; a device may be in one \
shard only. Exit 0 all pass, 1 a device failed, 2 shards that do not merge, 3 none failed but \
one could not be audited."
    )]
    Merge {
        /// The shards' folders (each holds lab.json and lab-junit.xml).
        #[arg(required = true, num_args = 1..)]
        runs: Vec<PathBuf>,
        /// Folder for the merged matrix.
        #[arg(long, default_value = ".")]
        out: PathBuf,
        /// Print the merged lab.json on stdout.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum InspectCommand {
    /// A hitrace text trace: events, markers, slices, frames and the cold start.
    #[command(after_help = "Streams the file: memory stays flat whatever its size.")]
    Trace {
        /// The trace (hitrace text output).
        file: PathBuf,
        /// The app whose cold start to measure (default: the first one launched in the trace).
        #[arg(long)]
        bundle: Option<String>,
        /// Print the result as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// A `uitest dumpLayout` JSON: windows, touch targets (in vp), unlabeled clickables.
    Layout {
        /// The dump.
        file: PathBuf,
        /// The device's VirtualPixelRatio (px per vp); 1 reports px.
        #[arg(long, default_value_t = 1.0)]
        vpr: f64,
        /// The app whose window to measure (default: the first app window).
        #[arg(long)]
        bundle: Option<String>,
        /// Print the result as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// A hidumper output: fps, fps-count, screen, density, mem or windows.
    Hidumper {
        /// The output, as printed by hidumper.
        file: PathBuf,
        /// Which command produced it.
        #[arg(long, value_enum)]
        kind: inspect::DumpKind,
        /// Print the result as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// A screenshot (PNG, or JPEG with a warning): the WCAG contrast inside a box.
    Screenshot {
        /// The screenshot.
        file: PathBuf,
        /// The box to measure, in px: l,t,r,b (a node's bounds).
        #[arg(long = "box", value_name = "L,T,R,B")]
        bounds: String,
        /// Print the result as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// The output of `aa test … OpenHarmonyTestRunner`: per-case results and the summary.
    Hypium {
        /// The output.
        file: PathBuf,
        /// Print the result as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
}

impl InspectCommand {
    fn json(&self) -> bool {
        match self {
            InspectCommand::Trace { json, .. }
            | InspectCommand::Layout { json, .. }
            | InspectCommand::Hidumper { json, .. }
            | InspectCommand::Screenshot { json, .. }
            | InspectCommand::Hypium { json, .. } => *json,
        }
    }

    fn execute(self) -> Result<i32, Error> {
        match self {
            InspectCommand::Trace { file, bundle, json } => inspect::trace(&file, bundle, json),
            InspectCommand::Layout {
                file,
                vpr,
                bundle,
                json,
            } => inspect::layout(&file, vpr, bundle.as_deref(), json),
            InspectCommand::Hidumper { file, kind, json } => {
                inspect::hidumper_dump(&file, kind, json)
            }
            InspectCommand::Screenshot { file, bounds, json } => {
                inspect::screenshot(&file, &bounds, json)
            }
            InspectCommand::Hypium { file, json } => inspect::hypium_output(&file, json),
        }
    }
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Without --server, the local hdc server is asked. For a lab, run `hdc -s HOST:PORT -m` on each \
host that has USB devices and pass --server HOST:PORT once per host; unreachable servers and \
offline devices are reported, not fatal (exit 3 only when no server answers).")]
struct DevicesArgs {
    /// A remote hdc server, HOST:PORT (repeatable).
    #[arg(long = "server", value_name = "HOST:PORT", value_parser = parse_server)]
    servers: Vec<Server>,
    /// Host-side limit for each hdc call.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_duration)]
    call_timeout: Duration,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct CaptureArgs {
    /// The device's connect key (see `dwpipe devices`).
    #[arg(long = "device", value_name = "SERIAL")]
    serial: String,
    /// The folder to write the capture into (must not hold one already).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The hdc server the device is on, HOST:PORT (default: the local one).
    #[arg(long, value_name = "HOST:PORT", value_parser = parse_server)]
    server: Option<Server>,
    /// Host-side limit for each hdc call.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    call_timeout: Duration,
}

/// `dwpipe fingerprint WORKSPACE [--cache FILE]`.
fn fingerprint_command(
    workspace: &std::path::Path,
    cache_path: Option<&std::path::Path>,
) -> Result<i32, Error> {
    let mut cache = cache_path
        .map(crate::verify::StatCache::load)
        .unwrap_or_default();
    let cancel = crate::process::Cancel::new();
    let print = runtime::block_on(
        &cancel,
        crate::verify::fingerprint(workspace, &mut cache, &cancel),
    )
    .map_err(|e| {
        Error::from(crate::diagnostic::Diagnostic::error(
            "E_VERIFY_FINGERPRINT",
            e.to_string(),
        ))
    })?;
    if let Some(path) = cache_path {
        cache.save(path).map_err(|e| {
            Error::from(crate::diagnostic::Diagnostic::error(
                "E_VERIFY_FINGERPRINT",
                format!("cannot save the cache: {e}"),
            ))
        })?;
    }
    print::out(&print);
    Ok(crate::exit_code::OK)
}

fn parse_server(text: &str) -> Result<Server, String> {
    Server::parse(text).map_err(|e| e.to_string())
}

#[derive(Debug, clap::Args)]
struct InitArgs {
    /// Folder to write pack.yaml and dwpipe.yaml into.
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Overwrite existing files.
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
            (cli.command.execute(&cli.hdc), json)
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
            Command::Devices(a) => a.json,
            Command::Capture(_) => false,
            Command::Inspect(inspect) => inspect.json(),
            Command::Report(ReportCommand::Merge { json, .. }) => *json,
            Command::Audit(a) => a.json,
            Command::Deliver(a) => a.json,
            Command::VerifyEvidence { .. } => false,
            Command::Review { json, .. } => *json,
            Command::Brief { .. } | Command::Fingerprint { .. } => false,
        }
    }

    fn execute(self, hdc: &std::path::Path) -> Result<i32, Error> {
        match self {
            Command::Init(a) => init::run(&a.dir, a.force),
            Command::Freeze(a) => freeze::run(&a.pack, &a.out, a.json),
            Command::Gate(a) => gate::run(&a.lock, &a.audit, &a.out, a.json),
            Command::Devices(a) => {
                devices::run(hdc, &a.servers, CallTimeouts::all(a.call_timeout), a.json)
            }
            Command::Capture(a) => capture::run(
                hdc,
                &a.serial,
                a.server,
                &a.out,
                CallTimeouts::all(a.call_timeout),
            ),
            Command::Inspect(inspect) => inspect.execute(),
            Command::Report(ReportCommand::Merge { runs, out, json }) => {
                lab::merge(&runs, &out, json)
            }
            Command::VerifyEvidence { report } => verify_evidence::run(&report),
            Command::Review {
                lock,
                config,
                out,
                no_review,
                json,
            } => review::run(&lock, config.as_deref(), &out, no_review, json),
            Command::Fingerprint { workspace, cache } => {
                fingerprint_command(&workspace, cache.as_deref())
            }
            Command::Brief {
                lock,
                config,
                round,
                repair_from,
                out,
            } => brief::run(
                &lock,
                config.as_deref(),
                round,
                repair_from.as_deref(),
                out.as_deref(),
            ),
            Command::Deliver(a) => deliver::run(
                hdc,
                deliver::DeliverPlan {
                    config: a.config,
                    pack: a.pack,
                    resume: a.resume,
                    lab: a.target.lab(),
                    source: a.target.single(None),
                    out: a.out,
                    waive_review: a.no_review,
                    playbooks: a.playbooks,
                    call_timeout: a.call_timeout,
                    json: a.json,
                    verbose: a.verbose,
                },
            ),
            Command::Audit(a) if a.target.lab().is_some() => {
                if a.record.is_some() || a.auditor_report.is_some() {
                    return Err(crate::diagnostic::Diagnostic::error(
                        "E_LAB_OPTION",
                        "--record and --auditor-report take one device",
                    )
                    .fix("audit that device on its own")
                    .into());
                }
                let (pick, servers, jobs) = a.target.lab().expect("checked by the guard");
                lab::run(
                    hdc,
                    lab::LabArgs {
                        lock: a.lock,
                        pick,
                        servers,
                        runs: a.runs,
                        out: a.out,
                        jobs,
                        playbooks: a.playbooks,
                        timeouts: CallTimeouts::all(a.call_timeout),
                        json: a.json,
                    },
                )
            }
            Command::Audit(a) => audit::run(
                hdc,
                audit::AuditPlan {
                    lock: a.lock,
                    // The source group requires a device or a capture.
                    source: a
                        .target
                        .single(a.record)
                        .expect("clap requires --device, --devices or --replay"),
                    runs: a.runs,
                    out: a.out,
                    json: a.json,
                    auditor_report: a.auditor_report,
                    playbooks: a.playbooks,
                    timeouts: CallTimeouts::all(a.call_timeout),
                },
            ),
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
