//! The command line as clap reads it: every command's arguments, with the help that teaches
//! them. Parsed here, turned into plans by the commands; nothing here runs.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::device::Server;
use crate::history::{Store, Window};
use crate::input::parse_duration;
use crate::target::{Pick, Target};

/// dwpipe delivers HarmonyOS app changes through hard gates: an acceptance pack is frozen and
/// hashed, and every verdict is recomputed from recorded evidence instead of trusting an
/// agent's or an auditor's prose.
#[derive(Debug, Parser)]
#[command(name = "dwpipe", version, about, max_term_width = 100)]
#[command(
    after_help = "Exit codes: 0 pass, 1 verdict fail, 2 invalid input, 3 environment, 130 interrupted."
)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,
    /// The hdc client, before the subcommand (kept for scripts; the commands that talk to hdc
    /// show their own `--hdc`).
    #[arg(long, value_name = "PATH", hide = true)]
    pub(super) hdc: Option<PathBuf>,
}

/// How a command that talks to hdc reaches it.
/// (Each argument carries its heading: a `next_help_heading` here would put every argument
/// declared after the flattened client under "hdc" too.)
#[derive(Clone, Debug, Default, clap::Args)]
pub(super) struct DeviceClient {
    /// The hdc client to run (default: $DWPIPE_HDC, else `hdc` on PATH).
    #[arg(long = "hdc", value_name = "PATH", help_heading = "hdc")]
    pub(super) hdc: Option<PathBuf>,
    /// Host-side limit for every hdc call. Without it each kind of call has its own: 25s to
    /// list servers and read a device's identity (hdc itself tries its server for 12 to 17s),
    /// 120s for a playbook's shell command, 180s for a file transfer, 300s for an install. A
    /// call that runs out of time where nothing accepts a connection is an unreachable server.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "hdc")]
    pub(super) call_timeout: Option<Duration>,
    /// How long to wait for a device another job holds (its lease: taken before the first
    /// call to a device, the identity query included, and held until the job lets it go).
    /// Who holds it is said while waiting; past this the job ends with E_DEVICE_LEASED.
    /// Leases are lock files on this host, or advisory locks in PostgreSQL when the history
    /// is there (seen by every host).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "10m", help_heading = "hdc")]
    pub(super) lease_wait: Duration,
}

/// `--json`, on the commands that print a document.
#[derive(Clone, Copy, Debug, Default, clap::Args)]
pub(super) struct Json {
    /// Print the command's document as JSON on stdout (errors too, as JSON diagnostics).
    #[arg(long)]
    pub(super) json: bool,
}

/// `--summary-md`, on the commands whose outcome a CI job or a pull request shows.
#[derive(Clone, Debug, Default, clap::Args)]
pub(super) struct SummaryMd {
    /// Add the outcome as Markdown to FILE (created when missing, else appended to, as CI
    /// step summaries are): the verdict in one line, what failed against its threshold, the
    /// errors and warnings. Sized for a pull-request comment. In GitHub Actions: `--summary-md
    /// "$GITHUB_STEP_SUMMARY"`.
    #[arg(long, value_name = "FILE")]
    pub(super) summary_md: Option<PathBuf>,
}

/// How the probes are measured, on the commands that audit.
#[derive(Clone, Debug, Default, clap::Args)]
pub(super) struct Measuring {
    /// A folder of playbooks overriding the embedded ones by file name (a lab host may set
    /// $DWPIPE_PLAYBOOKS for every run).
    #[arg(long, value_name = "DIR", env = "DWPIPE_PLAYBOOKS")]
    pub(super) playbooks: Option<PathBuf>,
    /// A replay that leaves recorded exchanges unserved fails the audit (else a warning).
    #[arg(long)]
    pub(super) strict: bool,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Write a commented example acceptance pack and dwpipe.yaml to start from.
    Init(InitArgs),
    /// Check that everything a delivery needs is installed and reachable (run this first).
    Doctor(DoctorArgs),
    /// Validate an acceptance pack, then write pack.lock.json (canonical, SHA-256) and spec.md.
    Freeze(FreezeArgs),
    /// Recompute the verdicts of an outside auditor's report against a frozen pack.
    Gate(GateArgs),
    /// Render the Goal brief for the agent, or a repair brief from a failed audit or verification.
    Brief(BriefArgs),
    /// Print a workspace's fingerprint (git: HEAD + status + changed files' content; else the tree).
    Fingerprint(FingerprintArgs),
    /// Attack a frozen pack before dispatch: built-in rules, then the optional outside reviewer.
    Review(ReviewArgs),
    /// List the devices on every hdc server, with model, software, API level and density.
    Devices(DevicesArgs),
    /// Record a device's identity (device.yaml, no exchanges) into a new capture folder; a replayable recording is `audit --record DIR`.
    Identify(IdentifyArgs),
    /// Renamed: what it recorded was a device's identity (`dwpipe identify`); a replayable capture is `dwpipe audit --record DIR`.
    #[command(hide = true)]
    Capture(RenamedCapture),
    /// Measure every criterion that has a probe on a device (or a capture), keep the evidence, gate it.
    Audit(AuditArgs),
    /// Deliver a change: freeze, review, brief the agent, verify, audit, and repair until verified.
    Deliver(DeliverArgs),
    /// Re-hash an audit's evidence and recompute every reading and verdict from it, offline.
    VerifyEvidence(VerifyEvidenceArgs),
    /// Hold a candidate audit against a baseline audit of the same device: regressed, improved, same or inconclusive, per criterion.
    #[command(after_long_help = COMPARE_HELP)]
    Compare(CompareArgs),
    /// The measurements recorded in the history (every deliver run; audit/compare with --history), and where they shifted.
    #[command(after_long_help = HISTORY_HELP)]
    History(HistoryArgs),
    /// The run folders of `deliver` under .dwpipe/runs, newest first: id (what --resume takes), start, pack, ending, report.
    Runs(RunsArgs),
    /// Every probe a pack can name: its arguments and their allowed values, its units, how it measures.
    Probes(ProbesArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    #[command(
        after_help = "bash: dwpipe completions bash > ~/.local/share/bash-completion/completions/dwpipe\nzsh:  dwpipe completions zsh > \"${fpath[1]}/_dwpipe\"\nfish: dwpipe completions fish > ~/.config/fish/completions/dwpipe.fish"
    )]
    Completions(CompletionsArgs),
    /// Work with reports: merge the lab matrices of shards run on different hosts.
    #[command(subcommand)]
    Report(ReportCommand),
    /// Show what an extractor sees in one file (trace, layout dump, hidumper output, …).
    #[command(subcommand)]
    Inspect(InspectCommand),
    /// The gate inside an agent's own loop: answers Claude Code's, Codex's and Cursor's stop hooks (and dwpipe's OpenCode plugin).
    #[command(subcommand)]
    Hook(HookCommand),
}

/// `dwpipe hook …`.
#[derive(Debug, Subcommand)]
pub(super) enum HookCommand {
    /// Run the gate when the agent wants to stop, and let it stop or send it back with the repair brief.
    #[command(after_long_help = HOOK_STOP_HELP)]
    Stop(Box<HookStopArgs>),
    /// Print dwpipe's plugin for OpenCode and DevEco Code (their sessions have no stop hook): save it in .opencode/plugins/ (DevEco Code: .deveco/plugins/).
    Plugin,
}

/// `dwpipe hook stop`.
#[derive(Debug, clap::Args)]
pub(super) struct HookStopArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    /// The harness whose stop hook this is: its JSON on stdin, its answer on stdout.
    #[arg(long = "target", value_name = "HARNESS", value_parser = clap::builder::PossibleValuesParser::new(crate::hook::Harness::WORDS))]
    pub(super) harness: String,
    /// The acceptance pack (pack.yaml, frozen now) or a pack.lock.json (default: pack.yaml in
    /// the current folder).
    #[arg(long, value_name = "PACK")]
    pub(super) pack: Option<PathBuf>,
    /// The project config.
    #[arg(long, value_name = "FILE", default_value = "dwpipe.yaml")]
    pub(super) config: PathBuf,
    /// Where to audit (default: `device:` in dwpipe.yaml).
    #[command(flatten)]
    pub(super) target: DeviceArgs,
    /// The folder that holds .dwpipe/ (default: dwpipe.yaml's folder).
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    #[command(flatten)]
    pub(super) measuring: Measuring,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Runs the checks `deliver` and `audit` make before anything is dispatched: the agent's program, \
every verification command's program, the outside reviewer's, the hdc client, the device named \
in dwpipe.yaml (reachable, identified, density known) or its replay capture, and with --pack a \
playbook for every probe; --device SERIAL [--server HOST:PORT] checks the device the release \
gate will use, --replay CAPTURE a capture. Versions are asked of the tools dwpipe knows (`hdc -v`, `deveco \
--version`, `hvigorw -v`); a verification command is never run to ask. Exit 0 when everything \
is there, 3 when something is missing (each with how to install or configure it).")]
pub(super) struct DoctorArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    /// The project config (default: ./dwpipe.yaml when there is one).
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    /// A pack (pack.yaml or pack.lock.json) whose probes need playbooks.
    #[arg(long, value_name = "PACK")]
    pub(super) pack: Option<PathBuf>,
    /// The device to check (default: `device:` in dwpipe.yaml), as `deliver` and `audit` name it.
    #[command(flatten)]
    pub(super) target: DeviceArgs,
    #[command(flatten)]
    pub(super) output: Json,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes audit-<n>.json, audit-<n>.md, junit.xml and report.html into --out (default: a new \
.dwpipe/audit-<time>/), and every pulled file and saved reply under \
--out/evidence/<device>/<run>/<session>/ with its SHA-256. A replay is refused before its first \
call when the capture was recorded with other sessions or another run plan (--runs, the pack). Criteria without a probe are \
unverified unless --auditor-report covers them. Exit 0 pass, 1 fail, 2 invalid input, 3 device.

A lab: --device repeated, or --devices all, on one or more --server HOST:PORT. Devices are \
audited in parallel (--jobs at once), each into --out/<serial>/ (--out/<server>_<serial>/ when the \
same connect key is on several servers, as emulators at 127.0.0.1:5555 are); a device that fails \
or vanishes does not stop the others. lab.json, lab.md, lab.html and lab-junit.xml (one suite per \
device) hold the criterion × device matrix. Exit 0 all pass, 1 a device failed, 3 none failed but one could not \
be audited.

Same-device A/B: --baseline-hap (the last release) and --candidate-hap switch the device between \
the two builds (uninstall, then install: the app's data is reset), discard the first run after \
each install as a warm-up, and measure the arms alternately in blocks (A B A B …) for --runs per \
arm (default 10); criteria whose comparison is still unknown get more runs, doubling up to \
--max-runs (default 40), then end inconclusive. Writes baseline/ and candidate/ (an audit each), \
warm-up/, compare.json, compare.md, compare-junit.xml, compare.html, ab.html (both builds with \
their versions, the blocks, both verdicts) and ab.json into --out; the device is left with the \
candidate installed (after an error or a signal too). With --devices, each device is compared \
with itself and ab-lab.json, ab-lab.md, ab-lab.html and ab-lab-junit.xml hold the matrix.

--summary-md FILE adds the outcome as Markdown to FILE (a CI step summary, a PR comment). Exit 0 when the \
candidate passes the pack and is the same or better, 1 when it fails the pack, regressed or the \
comparison is inconclusive.")]
#[command(group(clap::ArgGroup::new("source").required(true).args(["serials", "devices", "replay"])))]
pub(super) struct AuditArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    /// The frozen pack (pack.lock.json).
    #[arg(long = "pack", value_name = "LOCK")]
    pub(super) lock: PathBuf,
    #[command(flatten)]
    pub(super) target: DeviceArgs,
    /// Record the live device into this capture folder as the audit runs (one device).
    #[arg(
        long,
        value_name = "CAPTURE",
        requires = "serials",
        conflicts_with_all = ["devices", "replay"]
    )]
    pub(super) record: Option<PathBuf>,
    /// Runs per probe (overrides the pack and the playbooks); per arm in an A/B session.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub(super) runs: Option<u32>,
    /// Folder for the reports and the evidence (default: a new .dwpipe/audit-<time>/).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// The last release's HAP: measure it against --candidate-hap on the same device.
    #[arg(
        long,
        value_name = "HAP",
        requires = "candidate_hap",
        conflicts_with = "auditor_report"
    )]
    pub(super) baseline_hap: Option<PathBuf>,
    /// The candidate's HAP (left installed when the session ends).
    #[arg(long, value_name = "HAP", requires = "baseline_hap")]
    pub(super) candidate_hap: Option<PathBuf>,
    /// Record the audit (each device's, each arm's and the comparison) in this history (an
    /// SQLite file, or a postgres:// URL); its page then draws every criterion's trend.
    #[arg(long, value_name = "PATH|URL", value_parser = StoreParser)]
    pub(super) history: Option<Store>,
    /// Runs per arm at most, when criteria stay unknown after --runs (A/B).
    #[arg(
        long,
        value_name = "M",
        requires = "baseline_hap",
        value_parser = clap::value_parser!(u32).range(2..=200)
    )]
    pub(super) max_runs: Option<u32>,
    /// An outside auditor's report for criteria dwpipe cannot measure (held against its measurements).
    #[arg(long, value_name = "FILE")]
    pub(super) auditor_report: Option<PathBuf>,
    /// A precondition on each device's state before its runs, besides the pack's and
    /// dwpipe.yaml's `device.require` (repeatable): `battery >= 80%`, `battery-temperature <= 40`,
    /// `hottest-zone <= 45000`, `charging: off`, `screen-lock: off`, `refresh-rate = 120`. A
    /// device that does not meet one is not audited: its criteria are unverified, exit 3.
    #[arg(long, value_name = "COND", value_parser = parse_condition)]
    pub(super) require: Vec<String>,
    /// The project config whose `device.require` applies (default: ./dwpipe.yaml when there
    /// is one).
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    #[command(flatten)]
    pub(super) measuring: Measuring,
    #[command(flatten)]
    pub(super) summary: SummaryMd,
    #[command(flatten)]
    pub(super) output: Json,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Stages: freeze the pack, pre-review it (a lock is reviewed once; receipts in .dwpipe/reviews), \
write the Goal brief, run the agent, run the verification commands, audit on the device; on a \
failure, a repair brief goes back to the agent (repair.max-rounds, the same failure at most \
repair.max-same-failure times). Every artifact and ledger.jsonl land in \
.dwpipe/runs/<time>-<pack8>/ beside dwpipe.yaml (or under --out); deliver.json ends it.

After the agent and after the verification commands, the run's records (the lock, spec.md, \
run.json, the ledger) must be as dwpipe left them, else the run ends records_tampered; whatever \
they left running in their process group is stopped. One delivery per workspace at a time.

Exit 0 verified, 1 not verified (no_changes, verification_failed, audit_failed, \
repeated_failure, budget_exhausted, review_blocked, records_tampered), 2 invalid input (a run \
that cannot be resumed as it began among them), 3 environment (a tool, the agent or the device \
failed; the workspace is being delivered), 130 interrupted (Ctrl-C or SIGTERM; a second signal \
kills what still runs and exits at once).")]
#[command(group(clap::ArgGroup::new("source").args(["serials", "devices", "replay"])))]
pub(super) struct DeliverArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    /// The acceptance pack (pack.yaml, frozen now) or an existing pack.lock.json (default:
    /// pack.yaml in the current folder).
    #[arg(long, value_name = "PACK")]
    pub(super) pack: Option<PathBuf>,
    /// Continue an interrupted run from its last completed stage — its folder, or its id as
    /// `dwpipe runs` lists it — reusing a passed verification only while the workspace is
    /// unchanged.
    #[arg(long, value_name = "RUN", conflicts_with = "pack")]
    pub(super) resume: Option<PathBuf>,
    /// The project config.
    #[arg(long, value_name = "FILE", default_value = "dwpipe.yaml")]
    pub(super) config: PathBuf,
    /// Where to audit (default: `device:` in dwpipe.yaml).
    #[command(flatten)]
    pub(super) target: DeviceArgs,
    /// The folder that holds .dwpipe/ (default: dwpipe.yaml's folder).
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// Waive the outside reviewer for this run (recorded; refused under fail-mode closed).
    #[arg(long)]
    pub(super) no_review: bool,
    #[command(flatten)]
    pub(super) measuring: Measuring,
    /// Unfold the agent's log and the verification commands' output under their stage lines.
    #[arg(long, short)]
    pub(super) verbose: bool,
    #[command(flatten)]
    pub(super) summary: SummaryMd,
    #[command(flatten)]
    pub(super) output: Json,
}

/// Where an audit measures: one device, a lab of devices, or a recorded capture.
#[derive(Clone, Debug, clap::Args)]
pub(super) struct DeviceArgs {
    /// A live device's connect key; repeat it for a lab of devices, audited in parallel.
    #[arg(long = "device", value_name = "SERIAL", value_parser = parse_serial)]
    pub(super) serials: Vec<String>,
    /// `all`: every connected device on the hdc servers, audited in parallel.
    #[arg(long, value_name = "all", value_parser = ["all"], conflicts_with = "serials")]
    pub(super) devices: Option<String>,
    /// An hdc server, HOST:PORT (repeatable; default: the local one).
    #[arg(long = "server", value_name = "HOST:PORT", value_parser = parse_server)]
    pub(super) servers: Vec<Server>,
    /// Replay a recorded capture instead of driving a device.
    #[arg(long, value_name = "CAPTURE", conflicts_with_all = ["serials", "devices", "servers"])]
    pub(super) replay: Option<PathBuf>,
    /// Replay at the recorded pace: every exchange waits its recorded delay and every pause
    /// its length, so the replay takes the device time the recording did.
    // `requires` alone would not hold: clap drops the need for `--replay` once an argument
    // it conflicts with is given, so the live targets are refused by name.
    #[arg(long, requires = "replay", conflicts_with_all = ["serials", "devices", "servers"])]
    pub(super) realtime: bool,
    /// In a lab: devices audited at once (up to 256; a device's audit is mostly waiting on hdc).
    /// Fewer when the host's open-file limit allows fewer (dwpipe raises it to the hard limit
    /// first, and says when it runs fewer).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub(super) jobs: u16,
    /// A lab even of one --device: its folder holds lab.json and lab-junit.xml, so audits run
    /// apart (by a scheduler's workers, a CI matrix) join with `dwpipe report merge`.
    #[arg(long, requires = "serials", conflicts_with_all = ["devices", "replay"])]
    pub(super) lab: bool,
}

impl DeviceArgs {
    /// The target these flags name: a capture, a lab (more than one device or server, every
    /// device, or `--lab`), one device, or none.
    pub(super) fn target(self) -> Option<Target> {
        if let Some(capture) = self.replay {
            return Some(Target::Replay {
                capture,
                realtime: self.realtime,
            });
        }
        let many = self.devices.is_some() || self.serials.len() > 1 || self.servers.len() > 1;
        if many || self.lab {
            return Some(Target::Lab {
                pick: match self.devices {
                    Some(_) => Pick::All,
                    None => Pick::Serials(self.serials),
                },
                servers: self.servers,
                jobs: usize::from(self.jobs),
            });
        }
        let serial = self.serials.into_iter().next()?;
        Some(Target::Device {
            serial,
            server: self.servers.into_iter().next(),
            record: None,
        })
    }
}

#[derive(Debug, Subcommand)]
pub(super) enum ReportCommand {
    /// Merge lab shards (the --out folders of `dwpipe audit --devices …` on several hosts) into
    /// one criterion × device matrix: lab.json, lab.md, lab-junit.xml.
    #[command(
        after_help = "Shards must have audited the same lock; a device may be in one \
shard only. Exit 0 all pass, 1 a device failed, 2 shards that do not merge, 3 none failed but \
one could not be audited."
    )]
    Merge(MergeArgs),
}

/// `dwpipe runs`.
#[derive(Debug, clap::Args)]
pub(super) struct RunsArgs {
    /// The project config whose folder holds .dwpipe/.
    #[arg(long, value_name = "FILE", default_value = "dwpipe.yaml")]
    pub(super) config: PathBuf,
    #[command(flatten)]
    pub(super) output: Json,
}

/// `dwpipe probes`.
#[derive(Debug, clap::Args)]
pub(super) struct ProbesArgs {
    #[command(flatten)]
    pub(super) output: Json,
}

/// `dwpipe completions`.
#[derive(Debug, clap::Args)]
pub(super) struct CompletionsArgs {
    /// The shell.
    pub(super) shell: clap_complete::Shell,
}

/// `dwpipe report merge`.
#[derive(Debug, clap::Args)]
pub(super) struct MergeArgs {
    /// The shards' folders (each holds lab.json and lab-junit.xml).
    #[arg(required = true, num_args = 1..)]
    pub(super) runs: Vec<PathBuf>,
    /// Folder for the merged matrix (default: a new .dwpipe/merge-<time>/).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    #[command(flatten)]
    pub(super) summary: SummaryMd,
    #[command(flatten)]
    pub(super) output: Json,
}

#[derive(Debug, Subcommand)]
pub(super) enum InspectCommand {
    /// A hitrace text trace: events, markers, slices, frames and the cold start.
    #[command(after_help = "Streams the file: memory stays flat whatever its size.")]
    Trace {
        /// The trace (hitrace text output), or `-` to read it from standard input (the one
        /// way to pass a pipe: `hdc shell cat /data/local/tmp/x.ftrace | dwpipe inspect trace -`).
        file: PathBuf,
        /// The app whose cold start to measure (default: the first one launched in the trace).
        #[arg(long)]
        bundle: Option<String>,
        #[command(flatten)]
        output: Json,
    },
    /// A `uitest dumpLayout` JSON: windows, touch targets (in vp), unlabeled clickables.
    Layout {
        /// The dump.
        file: PathBuf,
        /// The device's VirtualPixelRatio (px per vp, `dwpipe devices` shows it); without it
        /// sizes are reported in px.
        #[arg(long)]
        vpr: Option<f64>,
        /// The app whose window to measure (default: the first app window).
        #[arg(long)]
        bundle: Option<String>,
        #[command(flatten)]
        output: Json,
    },
    /// A hidumper output: fps, fps-count, screen, density, mem, windows, cpu, battery, power or thermal.
    Hidumper {
        /// The output, as printed by hidumper.
        file: PathBuf,
        /// Which command produced it.
        #[arg(long, value_enum)]
        kind: DumpKind,
        #[command(flatten)]
        output: Json,
    },
    /// SmartPerf's `SP_daemon … -g` or `-p` output: the GPU's load and frequency, or the
    /// battery's draw.
    Smartperf {
        /// The output, as printed by SP_daemon.
        file: PathBuf,
        /// Which reading: `gpu` (`-g`) or `power` (`-p`).
        #[arg(long, value_enum)]
        kind: SmartperfKind,
        #[command(flatten)]
        output: Json,
    },
    /// Two reads of /proc around a window, as an audit's `cpu.txt` keeps them: the app's CPU
    /// load, as a share of every core and of one core, and the window on the device's clock.
    Cpu {
        /// The reads (`cat /proc/uptime /proc/<pid>/stat /proc/stat; sleep S; echo
        /// __DWPIPE_CPU_AGAIN; cat …`).
        file: PathBuf,
        #[command(flatten)]
        output: Json,
    },
    /// The device's state as an audit keeps it (`state-before.txt`, `state-after.txt`): every
    /// reading, and why one was not read.
    State {
        /// The state file.
        file: PathBuf,
        #[command(flatten)]
        output: Json,
    },
    /// A screenshot (PNG, or JPEG with a warning): the WCAG contrast inside a box.
    Screenshot {
        /// The screenshot.
        file: PathBuf,
        /// The box to measure, in px: l,t,r,b (a node's bounds).
        #[arg(long = "box", value_name = "L,T,R,B")]
        bounds: String,
        #[command(flatten)]
        output: Json,
    },
    /// The output of `aa test … OpenHarmonyTestRunner`: per-case results and the summary.
    Hypium {
        /// The output.
        file: PathBuf,
        #[command(flatten)]
        output: Json,
    },
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Without --server, the local hdc server is asked. For a lab, run `hdc -s HOST:PORT -m` on each \
host that has USB devices and pass --server HOST:PORT once per host; unreachable servers and \
offline devices are reported, not fatal (exit 3 only when no server answers).")]
pub(super) struct DevicesArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    /// A remote hdc server, HOST:PORT (repeatable).
    #[arg(long = "server", value_name = "HOST:PORT", value_parser = parse_server)]
    pub(super) servers: Vec<Server>,
    #[command(flatten)]
    pub(super) output: Json,
}

#[derive(Debug, clap::Args)]
pub(super) struct IdentifyArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    /// The device's connect key (see `dwpipe devices`).
    #[arg(long = "device", value_name = "SERIAL", value_parser = parse_serial)]
    pub(super) serial: String,
    /// The folder to write the capture into (must not hold one already).
    #[arg(long, value_name = "DIR")]
    pub(super) out: PathBuf,
    /// The hdc server the device is on, HOST:PORT (default: the local one).
    #[arg(long, value_name = "HOST:PORT", value_parser = parse_server)]
    pub(super) server: Option<Server>,
}

/// `dwpipe capture`, as earlier releases spelled `identify`: whatever it is given, it says
/// where each of its jobs went.
#[derive(Debug, clap::Args)]
pub(super) struct RenamedCapture {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub(super) rest: Vec<String>,
}

/// A precondition, written as it shows itself.
fn parse_condition(text: &str) -> Result<String, String> {
    crate::pack::Condition::parse(text).map(|c| c.to_string())
}

pub(super) fn parse_server(text: &str) -> Result<Server, String> {
    Server::parse(text).map_err(|e| e.to_string())
}

/// A connect key, refused before anything runs when it could not safely name a device (in a
/// shell string, as a folder).
pub(super) fn parse_serial(text: &str) -> Result<String, String> {
    crate::shell::ShellValue::serial(text)
        .map(|_| text.to_owned())
        .map_err(|e| e.to_string())
}

#[derive(Debug, clap::Args)]
pub(super) struct InitArgs {
    /// Folder to write pack.yaml and dwpipe.yaml into.
    #[arg(default_value = ".")]
    pub(super) dir: PathBuf,
    /// Overwrite existing files.
    #[arg(long)]
    pub(super) force: bool,
    /// Which pack to start from.
    #[arg(long, value_enum, default_value_t = Preset::Example)]
    pub(super) preset: Preset,
}

/// What an `SP_daemon` output was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum SmartperfKind {
    /// `-g`: GPU load and frequency.
    Gpu,
    /// `-p`: the battery's current and voltage.
    Power,
}

/// The packs `init` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Preset {
    /// The example notes app's pack: one criterion of each kind, commented.
    Example,
    /// Huawei's own bands: AppAnalyzer's health-check rules and DevEco Testing's performance
    /// tasks as should (pass band) and must (fail band) criteria, with DevEco Testing's device
    /// preconditions.
    Appanalyzer,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Errors exit 2 and write nothing; warnings are printed and recorded in the lock."
)]
pub(super) struct FreezeArgs {
    /// The acceptance pack (YAML or JSON).
    pub(super) pack: PathBuf,
    /// Folder for pack.lock.json and spec.md.
    #[arg(long, default_value = ".")]
    pub(super) out: PathBuf,
    /// Replace a lock of another pack even though audits under --out were made against it
    /// (they stop verifying).
    #[arg(long)]
    pub(super) force: bool,
    #[command(flatten)]
    pub(super) output: Json,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
The audit is JSON: {\"checks\": [{\"criterionId\": \"P-01\", \"result\": \"pass\", \
\"evidence\": \"3 runs\", \"actual\": \"720ms\"}]}, optionally with \"pack-sha256\" and \"density\" \
(the virtual pixel ratio, for px actuals against vp thresholds).

Writes audit-<n>.json and audit-<n>.md, n the next free number in --out. \
Exit 0 pass, 1 fail, 2 invalid input (a tampered lock is E_LOCK_TAMPERED).")]
pub(super) struct GateArgs {
    /// The frozen pack (pack.lock.json).
    #[arg(long = "pack", value_name = "LOCK")]
    pub(super) lock: PathBuf,
    /// The auditor's report (JSON).
    #[arg(long, value_name = "AUDIT.json")]
    pub(super) audit: PathBuf,
    /// Folder for audit-<n>.json and audit-<n>.md (default: a new .dwpipe/gate-<time>/).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    #[command(flatten)]
    pub(super) output: Json,
}

/// Where `compare --against` takes the baseline from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Against {
    /// The latest passing audit of the same app, device model and software version.
    LastPass,
}

const HOOK_STOP_HELP: &str = "Reads the harness's stop-hook JSON on stdin (Claude Code and Codex: session_id, stop_hook_active; Cursor: conversation_id, status, loop_count), runs what `deliver` runs after its agent (the verification commands, then the audit on the configured device or capture, against the frozen pack) on the workspace as it stands, in a run folder of its own under .dwpipe/runs, and prints one JSON object on stdout: {} lets the agent stop; {\"decision\":\"block\",\"reason\":…} (Cursor: {\"followup_message\":…}) sends it back with the repair brief. Rounds are counted per agent session in .dwpipe/hooks/ (stop_hook_active is recorded, never trusted to end the loop) and bounded by repair.max-rounds and repair.max-same-failure; when they run out, or the gate cannot decide, review.fail-mode says what happens: open lets the agent stop (recorded, said unverified), warn sends it back once to say the change is unverified and then lets it stop, closed keeps refusing and says so. Progress goes to stderr. Exit 0 whenever an answer was printed; an input that names no session lets the agent stop (its rounds could not be counted) and says why on stderr.";

const HISTORY_HELP: &str = "The history is an SQLite file or a PostgreSQL database (a lab's, shared by its hosts: its leases live there too): every `deliver` run records its audits in .dwpipe/history.sqlite beside its runs (or where `history:` in dwpipe.yaml says); `audit`, `compare` and lab runs record when given --history PATH|URL. Listed per audit and criterion, oldest first: time, criterion, value, result, device model and software, serial, and the report. --changes runs E-Divisive with means (p <= 0.05, 100 permutations, seed 1234) over each criterion's series per device model and names the audit from which it shifted. `dwpipe history import RUN...` records run folders or reports made elsewhere (lab shards audited on other hosts); a report already recorded is skipped. Replayed audits are marked and never taken as a baseline by `compare --against last-pass`.";

const COMPARE_HELP: &str = "For every criterion measured in both audits by the same probe: n and the median of each arm, the median delta with a 95% percentile-bootstrap interval (10,000 resamples, ChaCha8 seeded by the lock and the criterion: a re-run gives the same numbers), p = min(Mann-Whitney U, Kolmogorov-Smirnov), and an outcome: `different` (p <= 0.01 and the median moved at least the floor), `same` (the whole interval inside +-floor), `unknown` otherwise. The assertion's direction makes that regressed, improved, same or inconclusive; criteria without one (equals, pass/fail) are compared by their verdicts. The floor is the criterion's `regression: { floor: 20ms | 5% }`, else the pack's, else a default per unit (20 ms, 1 ms/s, 10 MB, 1 fps, 0.5 vp, 0.1 ratio). Audits of a different device model, software version or refresh rate are refused. Writes compare.json, compare.md, compare-junit.xml and compare.html into --out. Exit 0 for same or improved, 1 for regressed or inconclusive, 2 when the audits cannot be compared.";

#[derive(Debug, clap::Args)]
pub(super) struct CompareArgs {
    /// The baseline audit (audit-<n>.json of the last release) and the candidate audit
    /// (audit-<n>.json of this build); only the candidate with --against.
    #[arg(value_name = "AUDIT", num_args = 1..=2, required = true)]
    pub(super) audits: Vec<PathBuf>,
    /// Take the baseline from the history: `last-pass` is the latest passing audit (on a
    /// device, never a replay) of the same app on the same device model and software version.
    #[arg(long, value_enum, value_name = "WHICH")]
    pub(super) against: Option<Against>,
    /// The history --against reads and the comparison is recorded in (an SQLite file, or a
    /// postgres:// URL).
    #[arg(long, value_name = "PATH|URL", value_parser = StoreParser)]
    pub(super) history: Option<Store>,
    /// The lock whose criteria decide directions and floors (default: the one the candidate names).
    #[arg(long = "pack", value_name = "LOCK")]
    pub(super) lock: Option<PathBuf>,
    /// Folder for compare.json, compare.md, compare-junit.xml and compare.html (default: a new
    /// .dwpipe/compare-<time>/).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    #[command(flatten)]
    pub(super) summary: SummaryMd,
    #[command(flatten)]
    pub(super) output: Json,
}

#[derive(Debug, clap::Args)]
pub(super) struct HistoryArgs {
    /// The history (where `deliver` records, beside dwpipe.yaml): an SQLite file, or a
    /// postgres:// URL (the password from PGPASSWORD or ~/.pgpass, never in the URL).
    #[arg(
        long,
        value_name = "PATH|URL",
        value_parser = StoreParser,
        default_value = ".dwpipe/history.sqlite",
        global = true
    )]
    pub(super) history: Store,
    /// Only this criterion.
    #[arg(long, value_name = "ID")]
    pub(super) criterion: Option<String>,
    /// Only devices of this model (as `dwpipe devices` shows it, e.g. ALN-AL00).
    #[arg(long, value_name = "MODEL")]
    pub(super) device_model: Option<String>,
    /// Only audits recorded on or after this day (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE", value_parser = parse_day)]
    pub(super) since: Option<String>,
    /// Where each criterion's series shifted, instead of the series.
    #[arg(long)]
    pub(super) changes: bool,
    /// With --changes: the latest N audits of each series are searched (default 5000), or
    /// `all` of them; the output says what was searched.
    #[arg(long, value_name = "N|all", requires = "changes", value_parser = parse_window)]
    pub(super) window: Option<Window>,
    /// Print JSON on stdout.
    #[arg(long, global = true)]
    pub(super) json: bool,
    #[command(subcommand)]
    pub(super) command: Option<HistoryCommand>,
}

#[derive(Debug, clap::Subcommand)]
pub(super) enum HistoryCommand {
    /// Record runs made elsewhere: run folders (searched for audit-<n>.json and compare.json), report files, or a whole SQLite history (into PostgreSQL, say).
    Import {
        /// The runs.
        #[arg(value_name = "RUN", required = true)]
        runs: Vec<PathBuf>,
    },
    /// Delete old audits (their measurements and runs' values with them) and old comparisons.
    /// An audit goes when it is older than --older-than (if given) and not among the latest
    /// --keep-last of its series, its app on its device model (if given); the latest passing
    /// audit on a device of each app, model and software stays, the baseline `compare
    /// --against last-pass` takes. Comparisons go by --older-than alone.
    #[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["older_than", "keep_last"])))]
    Prune {
        /// Audits and comparisons recorded longer ago than this (e.g. 90d, 12h).
        #[arg(long, value_name = "AGE", value_parser = parse_age)]
        older_than: Option<Duration>,
        /// Keep the latest N audits of each app on each device model.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        keep_last: Option<u32>,
    },
}

/// `--older-than`: days (`90d`), or a duration (`12h`, `30m`).
fn parse_age(text: &str) -> Result<Duration, String> {
    match text.strip_suffix('d').map(str::parse::<u64>) {
        Some(Ok(days)) => Ok(Duration::from_secs(days.saturating_mul(86_400))),
        _ => parse_duration(text).map_err(|e| format!("{e}, or days like 90d")),
    }
}

/// `--window`: a count of audits (at least 4, the fewest a split needs) or `all`.
fn parse_window(text: &str) -> Result<Window, String> {
    if text == "all" {
        return Ok(Window::All);
    }
    match text.parse::<usize>() {
        Ok(n) if n >= 4 => Ok(Window::Last(n)),
        _ => Err(format!(
            "`{text}` is not a window: a number of audits (at least 4) or `all`"
        )),
    }
}

/// `YYYY-MM-DD`, a real day.
fn parse_day(text: &str) -> Result<String, String> {
    let valid = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        })
        && matches!(text[5..7].parse::<u32>(), Ok(1..=12))
        && matches!(text[8..10].parse::<u32>(), Ok(1..=31));
    if valid {
        Ok(text.to_owned())
    } else {
        Err(format!("`{text}` is not a day like 2026-12-01"))
    }
}

#[derive(Debug, clap::Args)]
pub(super) struct BriefArgs {
    /// The frozen pack (pack.lock.json).
    pub(super) lock: PathBuf,
    /// The project config (workspace and verification commands).
    #[arg(long)]
    pub(super) config: Option<PathBuf>,
    /// The repair round this brief is for.
    #[arg(long, default_value_t = 1)]
    pub(super) round: u32,
    /// Write a repair brief from this audit-<n>.json or verify-<n>.json.
    #[arg(long, value_name = "REPORT")]
    pub(super) repair_from: Option<PathBuf>,
    /// Write the brief here instead of stdout.
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub(super) struct FingerprintArgs {
    /// The workspace.
    pub(super) workspace: PathBuf,
    /// A stat cache file to read and update (size + mtime → content hash).
    #[arg(long)]
    pub(super) cache: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes review-<n>.json and review-<n>.md and appends to ledger.jsonl in --out. A lock is reviewed \
once: its receipt stands until the pack changes. Exit 0 when delivery may go on (pass, waived, \
incomplete under fail-mode open/warn), 1 when the pack must change or the review blocks.")]
pub(super) struct ReviewArgs {
    /// The frozen pack (pack.lock.json).
    pub(super) lock: PathBuf,
    /// The project config (review settings and the outside reviewer).
    #[arg(long)]
    pub(super) config: Option<PathBuf>,
    /// Folder for the review reports, the receipts and the ledger (default: the lock's folder).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// Waive the outside reviewer for this run (recorded; refused under fail-mode closed).
    #[arg(long)]
    pub(super) no_review: bool,
    #[command(flatten)]
    pub(super) output: Json,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Rebuilds the whole report from the lock and the audit's folder alone, then compares it field by \
field with what the report says; any difference is named by its path and exits 1.

Recomputed from the lock and the evidence: pack-sha256; device (from the kept device.yaml); \
inputs (device.yaml, the playbooks, an outside auditor's report, the copy of the lock and \
source.json, re-hashed); the source (from the kept source.json: the device, or the capture \
replayed); every criterion's check (statement, result, actual, assertion verdict, reason, \
evidence text); every measurement (probe, extractor, aggregate, unit, resolution, each run's \
reading from its session's files, which are re-hashed, and the aggregate); the diagnostics; the \
summary; the verdict.

Recorded facts, taken as the report says: format-version, dwpipe-version, lock (the path of the \
copy the audit keeps), started and ended, device-time (each visit's time on the device), the \
workspace (a delivery's fingerprint and commit), inputs.runs (--runs), inputs.strict (--strict), \
and each measurement's extracted-by (the dwpipe version that read it); before format 4, the \
source too. A report of an older format is rebuilt as that format worded it. A reading made by \
an older revision of its extractor is taken as recorded, so everything built on it is still \
checked, and the difference from this dwpipe's reading is reported as EXTRACTOR CHANGED, apart \
from tampering.

Evidence is read only from inside the report's folder: a symlink or a path that leaves it is \
refused. Without --pack the check is unanchored: the report is held to the lock it names itself, \
whose hash is printed; pass --pack with the lock you trust.

A comparison (compare.json) is verified through both audits it names and recomputed from them. \
It is bound to what it compared (since its format 2): the SHA-256 of the lock it was judged by \
(with --pack, that lock must be the one given) and of each audit report's bytes; each audit is \
held to the lock it recorded, so a baseline measured under last release's pack still verifies. \
A format-1 comparison has neither binding, and says so (UNBOUND).

Exit 0 when the report is exactly its rebuild, 1 on any difference, 2 when the report or the lock \
cannot be read.")]
pub(super) struct VerifyEvidenceArgs {
    /// The audit report (audit-<n>.json written by `dwpipe audit`), or a comparison (compare.json).
    pub(super) report: PathBuf,
    /// The lock to hold the report to (default: the lock the report names, unanchored).
    #[arg(long = "pack", value_name = "LOCK")]
    pub(super) lock: Option<PathBuf>,
}

/// What `inspect hidumper --kind` reads.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(super) enum DumpKind {
    /// `-s RenderService -a "<name> fps"`: present times → fps.
    Fps,
    /// `-s RenderService -a fpsCount`: frames per refresh rate.
    FpsCount,
    /// `-s RenderService -a screen`: resolution, refresh rate, power.
    Screen,
    /// `-s DisplayManagerService -a -a` (SceneBoard) or `-a '-d 0'` (the legacy dumper): the density.
    Density,
    /// `--mem <pid>`: the Total PSS row.
    Mem,
    /// `-s WindowManagerService -a '-a'`: the window table.
    Windows,
    /// `-s BatteryService -a -i`: charge, charging, plug, temperature.
    Battery,
    /// `-s PowerManagerService -a -s`: the power state (AWAKE, INACTIVE, …).
    Power,
    /// `-s ThermalService -a -t`: each thermal zone's temperature.
    Thermal,
    /// `--cpuusage <pid>`: the process's CPU load, as hiview's last 10-second sample has it
    /// (since 4.1; an audit reads /proc twice instead: `dwpipe inspect cpu`).
    Cpu,
}

/// `--history`: a file, or a server's URL. Its own parser, because clap's error for a value
/// it refuses repeats the value, and a URL with a password in it must not be repeated.
#[derive(Clone)]
struct StoreParser;

impl clap::builder::TypedValueParser for StoreParser {
    type Value = Store;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Store, clap::Error> {
        use clap::error::ErrorKind;
        let text = value.to_str().ok_or_else(|| {
            clap::Error::raw(ErrorKind::InvalidUtf8, "--history is not UTF-8\n").with_cmd(cmd)
        })?;
        Store::parse(text).map_err(|e| {
            clap::Error::raw(
                ErrorKind::ValueValidation,
                format!("--history: {}: {e} ({})\n", e.code(), e.fix()),
            )
            .with_cmd(cmd)
        })
    }
}
