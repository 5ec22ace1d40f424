//! `dwpipe doctor`: the preflight of `deliver` and `audit` on its own, as a table — what a new
//! user runs first.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::device::{Device, access_table};
use crate::exit_code;
use crate::pack::{CATALOG, Frozen};
use crate::playbook::{Playbooks, ProbeOnRelease, Readable, probe_on};
use crate::preflight::{self, Check};
use crate::process::Cancel;
use crate::target::{HdcClient, Opened};

use super::error::Error;
use super::print;
use super::runtime::block_on;
use super::shared::{DeviceArgs, DeviceClient, Json};
use super::{Edge, Run};

impl Run for DoctorArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, edge: &Edge) -> Result<i32, Error> {
        run(&edge.client(&self.client).unleased(), &self)
    }
}

/// Runs every check; `Ok(0)` when everything is there, `Ok(3)` when something is missing.
fn run(hdc: &HdcClient, args: &DoctorArgs) -> Result<i32, Error> {
    let config_path: Option<PathBuf> = args
        .config
        .clone()
        .or_else(crate::config::in_current_folder);
    let config = config_path.as_deref().map(Config::load).transpose()?;
    let mut checks = config.as_ref().map(preflight::programs).unwrap_or_default();
    let playbooks = Playbooks::load(None)?;
    let mut pack_probes: Option<Vec<String>> = None;
    if let Some(pack) = &args.pack {
        let frozen = Frozen::open(pack)?;
        checks.extend(preflight::playbooks(&frozen.pack, &playbooks));
        let mut ids: Vec<String> = frozen
            .pack
            .criteria
            .iter()
            .filter_map(|c| c.assertion.as_ref()?.probe.as_ref())
            .map(|p| p.kind.id.to_owned())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        pack_probes = Some(ids);
    }
    let target = args
        .target
        .clone()
        .target()
        .or_else(|| config.as_ref().and_then(|c| c.device.target()));
    let cancel = Cancel::new();
    let (checks, api_level) = block_on(&cancel, async {
        let (mut checks, api_level) = match &target {
            Some(target) => {
                let (checks, opened) = preflight::open(checks, target, hdc, &cancel).await;
                let api_level = match opened {
                    Ok(Opened::One(device)) => {
                        device.identity().await.ok().and_then(|info| info.api_level)
                    }
                    _ => None,
                };
                (checks, api_level)
            }
            None => {
                checks.push(preflight::hdc(&hdc.binary));
                (checks, None)
            }
        };
        preflight::versions(&mut checks, &cancel).await;
        (checks, api_level)
    });
    let reads = api_level.map(|api| release_reads(&playbooks, api, pack_probes.as_deref()));
    let ok = checks.iter().all(|c| c.problem.is_none());
    if args.output.json {
        print::json(&serde_json::json!({
            "format-version": 1,
            "config": config_path,
            "ok": ok,
            "checks": checks,
            "release": reads,
        }));
    } else {
        print_table(&checks, config_path.as_deref(), target.is_some());
        if let Some(reads) = &reads {
            print_reads(reads);
        }
    }
    Ok(if ok {
        exit_code::OK
    } else {
        exit_code::ENVIRONMENT
    })
}

/// What the device's release lets the hdc shell read of each probe (the pack's, else every
/// probe the access table has a read of).
#[derive(serde::Serialize)]
#[serde(rename_all = "kebab-case")]
struct ReleaseReads {
    /// `OpenHarmony 4.1 (API 11)`, or why no release is known.
    release: String,
    /// Each probe and how it fares.
    probes: Vec<ProbeReads>,
}

/// One probe, and how it fares on the release.
#[derive(serde::Serialize)]
struct ProbeReads {
    id: String,
    #[serde(flatten)]
    on: ProbeOnRelease,
}

fn release_reads(playbooks: &Playbooks, api: u32, pack: Option<&[String]>) -> ReleaseReads {
    let Some(family) = access_table().family(api) else {
        return ReleaseReads {
            release: format!(
                "API {api}: no OpenHarmony release whose policy dwpipe knows (3.2, API 9, on)"
            ),
            probes: Vec::new(),
        };
    };
    let ids: Vec<String> = match pack {
        Some(ids) => ids.to_vec(),
        None => CATALOG.iter().map(|p| p.id.to_owned()).collect(),
    };
    let probes = ids
        .into_iter()
        .filter_map(|id| {
            let on = probe_on(playbooks, &id, family)?;
            Some(ProbeReads { id, on })
        })
        .filter(|p| pack.is_some() || p.on.readable != Readable::Unchecked)
        .collect();
    ReleaseReads {
        release: family.describe(api),
        probes,
    }
}

fn print_reads(reads: &ReleaseReads) {
    if reads.probes.is_empty() {
        print::note(&reads.release);
        return;
    }
    print::out(&format!(
        "\nOn {}, by OpenHarmony's own SELinux policy (a vendor's may allow more; `dwpipe probes --api-level N` for every probe):",
        reads.release
    ));
    for ProbeReads { id, on } in &reads.probes {
        print::on_release(id, on);
    }
}

fn print_table(checks: &[Check], config: Option<&Path>, has_target: bool) {
    let width =
        |f: &dyn Fn(&Check) -> usize, min: usize| checks.iter().map(f).max().unwrap_or(0).max(min);
    let what = width(&|c| c.what.chars().count(), 4);
    let found = width(&|c| c.found.as_deref().unwrap_or("-").chars().count(), 8);
    print::out(&format!(
        "{:<what$}  {:<found$}  {:<30}  STATUS",
        "TOOL", "FOUND AT", "VERSION"
    ));
    for check in checks {
        print::out(&format!(
            "{:<what$}  {:<found$}  {:<30}  {}",
            check.what,
            check.found.as_deref().unwrap_or("-"),
            check.version.as_deref().unwrap_or("-"),
            check.status()
        ));
    }
    for check in checks {
        if let Some(diagnostic) = check.diagnostic() {
            print::diagnostics(&[diagnostic]);
        }
    }
    match (config, has_target) {
        (_, true) => {}
        (None, false) => print::note(
            "no dwpipe.yaml here (--config FILE) and no --device: only hdc was checked; `dwpipe init` writes one",
        ),
        (Some(config), false) => print::note(&format!(
            "{} names no device (`device:`) and no --device was given: the device was not checked",
            config.display()
        )),
    }
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Runs the checks `deliver` and `audit` make before anything is dispatched: the agent's program, \
every verification command's program, the outside reviewer's, the hdc client, the device named \
in dwpipe.yaml (reachable, identified, density known) or its replay capture, and with --pack a \
playbook for every probe; --device SERIAL [--server HOST:PORT] checks the device the release \
gate will use, --replay CAPTURE a capture. Versions are asked of the tools dwpipe knows (`hdc -v`, `deveco \
--version`, `hvigorw -v`); a verification command is never run to ask. Exit 0 when everything \
is there, 3 when something is missing or cannot be used (each with how to fix it). STATUS calls each by what it is: `missing`, `unauthorized`, `offline`, `not listed`, `not answering`, `no tools`, `no density`, `leased`, `unreachable`.")]
// How an audit runs a lab or a replay is not doctor's business: its help shows only its own.
#[command(
    mut_arg("jobs", |a| a.hide(true)),
    mut_arg("lab", |a| a.hide(true)),
    mut_arg("realtime", |a| a.hide(true))
)]
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
