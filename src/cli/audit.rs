//! `dwpipe audit`, in every shape: one device (or a recorded capture), a lab of devices, a
//! same-device A/B of two builds, an A/B over a lab. The arguments become one plan, preflight
//! opens the target, the session engine runs the plan, and the outcome is shown.

use std::path::PathBuf;

use crate::audit::Required;
use crate::history::{Recorder, Store};
use crate::process::Cancel;
use crate::session::{self, AuditPlan, BuildUnderTest, PackSource, Request};

use super::error::Error;
use super::print;
use super::progress::SessionProgress;
use super::runtime::block_on;
use super::shared::{
    DeviceArgs, DeviceClient, Json, Measuring, StoreParser, SummaryMd, parse_condition,
};
use super::{Edge, Run, show, summary_md};

impl Run for AuditArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, edge: &Edge) -> Result<i32, Error> {
        let hdc = crate::history::leases_beside(edge.client(&self.client), self.history.as_ref());
        let json = self.output.json;
        let target = self
            .target
            .target()
            .expect("clap requires --device, --devices or --replay");
        let plan = AuditPlan::new(Request {
            pack: PackSource::Named {
                lock: self.lock,
                playbooks: self.measuring.playbooks,
                config: self.config,
            },
            target,
            record: self.record,
            out: self.out,
            runs: self.runs,
            ab: self
                .baseline_hap
                .zip(self.candidate_hap)
                .map(|(baseline, candidate)| (baseline, candidate, self.max_runs)),
            history: self.history.as_ref().map(Recorder::at),
            strict: self.measuring.strict,
            auditor: self.auditor_report,
            build: BuildUnderTest::default(),
            require: self
                .require
                .into_iter()
                .map(|condition| Required {
                    condition,
                    by: "--require".to_owned(),
                })
                .collect(),
            sign_key: self.sign_key,
            subjects: self.subjects,
        })?;
        print::diagnostics(&plan.frozen.found);
        let cancel = Cancel::new();
        let progress = SessionProgress::new(json);
        let outcome = block_on(
            &cancel,
            session::open_and_run(&plan, &hdc, &cancel, &progress),
        );
        progress.finish();
        let outcome = outcome?;
        show::outcome(&outcome, json);
        if let Some(path) = &self.summary.summary_md {
            summary_md::add(path, &summary_md::of_outcome(&outcome))?;
        }
        Ok(outcome.exit_code())
    }
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
    /// Attest each device's audit (each arm's, in A/B) with this private key (PKCS#8 PEM,
    /// Ed25519 or ECDSA P-256): `audit-<n>.intoto.jsonl` beside it. A replay is never
    /// attested here (`dwpipe attest --allow-replay` says replay by name).
    #[arg(
        long,
        value_name = "PRIVATE.pem",
        env = "DWPIPE_SIGN_KEY",
        help_heading = "Attestation"
    )]
    pub(super) sign_key: Option<PathBuf>,
    /// The HAP on the devices, named in the attestations (repeatable; an A/B arm names its
    /// own build, which it installed).
    #[arg(
        long = "subject",
        value_name = "HAP",
        requires = "sign_key",
        help_heading = "Attestation"
    )]
    pub(super) subjects: Vec<PathBuf>,
    #[command(flatten)]
    pub(super) measuring: Measuring,
    #[command(flatten)]
    pub(super) summary: SummaryMd,
    #[command(flatten)]
    pub(super) output: Json,
}
