//! What several commands take alike: how a command reaches hdc (the client, its limits, the
//! lease wait), `--json`, `--summary-md`, how probes are measured, which device or capture an
//! audit measures, and the value parsers they share.

use std::path::PathBuf;
use std::time::Duration;

use crate::device::Server;
use crate::history::Store;
use crate::input::parse_duration;
use crate::pipeline::{DeliverRequest, Mode};
use crate::target::{Pick, Target};

#[derive(Clone, Debug, Default, clap::Args)]
pub(super) struct DeviceClient {
    /// The hdc client to run (default: $DWPIPE_HDC, else `hdc` on PATH, else the SDK's in
    /// $DEVECO_SDK_HOME/default/openharmony/toolchains).
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

#[derive(Clone, Copy, Debug, Default, clap::Args)]
pub(super) struct Json {
    /// Print the command's document as JSON on stdout (errors too, as JSON diagnostics).
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Clone, Debug, Default, clap::Args)]
pub(super) struct SummaryMd {
    /// Add the outcome as Markdown to FILE (created when missing, else appended to, as CI
    /// step summaries are): the verdict in one line, what failed against its threshold, the
    /// errors and warnings. Sized for a pull-request comment. In GitHub Actions: `--summary-md
    /// "$GITHUB_STEP_SUMMARY"`.
    #[arg(long, value_name = "FILE")]
    pub(super) summary_md: Option<PathBuf>,
}

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

/// What `deliver` and `hook stop` both take: the pack, the project and where its records go,
/// where to audit and how to measure.
#[derive(Clone, Debug, clap::Args)]
pub(super) struct Project {
    /// The acceptance pack (pack.yaml, frozen now) or an existing pack.lock.json (default:
    /// pack.yaml in the current folder).
    #[arg(long, value_name = "PACK")]
    pub(super) pack: Option<PathBuf>,
    /// The project config.
    #[arg(long, value_name = "FILE", default_value = crate::config::CONFIG_FILE)]
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

impl Project {
    /// The delivery these arguments ask for, its records under `out`, run as `mode` says.
    pub(super) fn request(&self, out: Option<PathBuf>, mode: Mode) -> DeliverRequest {
        DeliverRequest {
            config: self.config.clone(),
            pack: self.pack.clone(),
            out,
            target: self.target.clone().target(),
            playbooks: self.measuring.playbooks.clone(),
            strict: self.measuring.strict,
            mode,
            sign_key: None,
        }
    }
}

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
    /// In a lab: how many devices must pass for the lab to pass. Without it every device the
    /// servers list (or `--device` names) must be audited and pass: one offline,
    /// unauthorized or failing mid-audit leaves the lab incomplete.
    #[arg(long, value_name = "N", conflicts_with = "replay", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) need: Option<u32>,
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
                need: self.need,
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

pub(super) fn parse_condition(text: &str) -> Result<String, String> {
    crate::pack::Condition::parse(text).map(|c| c.to_string())
}

pub(super) fn parse_server(text: &str) -> Result<Server, String> {
    Server::parse(text).map_err(|e| e.to_string())
}

pub(super) fn parse_serial(text: &str) -> Result<String, String> {
    crate::shell::ShellValue::serial(text)
        .map(|_| text.to_owned())
        .map_err(|e| e.to_string())
}

#[derive(Clone)]
pub(super) struct StoreParser;

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
