//! The references people look for: `dwpipe probes` (the probe catalog) and `dwpipe runs`
//! (the run folders of `deliver`), for people and scripts (`--json`).

use std::path::Path;

use crate::device::access_table;
use crate::diagnostic::Diagnostic;
use crate::output::dir_or_dot;
use crate::pack::probes;
use crate::pipeline::{RUNS_FOLDER, list_runs};
use crate::playbook::{Playbooks, probe_on};
use crate::schema::{ProbeOnReleaseDoc, ProbesOutput, RunsOutput};

use super::error::Error;
use super::print;
use super::shared::Json;
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for ProbesArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        run(self.api_level, self.output.json)
    }
}

impl Run for RunsArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        runs(&self.config, self.output.json)
    }
}

/// Exit 0; 2 for an API level dwpipe knows no release of.
fn run(api_level: Option<u32>, json: bool) -> Result<i32, Error> {
    let family = api_level
        .map(|api| {
            access_table().family(api).ok_or_else(|| {
                Diagnostic::error(
                    "E_PROBES_RELEASE",
                    format!("API level {api} is of no OpenHarmony release whose policy dwpipe knows"),
                )
                .fix("dwpipe knows OpenHarmony's policy from 3.2 (API 9) on; the device's level is `hdc shell param get const.ohos.apiversion`")
            })
        })
        .transpose()?;
    let release = family.zip(api_level).map(|(f, api)| f.describe(api));
    let playbooks = Playbooks::load(None)?;
    let probes: Vec<ProbeOnReleaseDoc> = probes()
        .into_iter()
        .map(|probe| ProbeOnReleaseDoc {
            release: family.and_then(|f| probe_on(&playbooks, probe.id, f)),
            probe,
        })
        .collect();
    if json {
        print::json(&ProbesOutput {
            format_version: crate::format::PROBES,
            release,
            probes,
        });
        return Ok(0);
    }
    if let Some(release) = &release {
        print::out(&format!(
            "On {release}, by OpenHarmony's own SELinux policy (a vendor's, on a HarmonyOS phone, may allow more; device-fixtures/access.yaml names each rule's lines):"
        ));
    }
    for ProbeOnReleaseDoc { probe, release } in &probes {
        let units: Vec<String> = probe
            .units
            .iter()
            .map(|u| match u.metric {
                Some(metric) => format!("{metric}: {}", u.unit.unwrap_or("—")),
                None => u.unit.unwrap_or_else(|| unitless(probe.id)).to_owned(),
            })
            .collect();
        print::out(&format!("{}  ({})", probe.id, units.join(", ")));
        print::out(&format!("  {}", probe.method));
        for arg in &probe.args {
            print::out(&format!(
                "    {:<10} {:<8} {}",
                arg.name,
                if arg.required { "required" } else { "optional" },
                arg.takes
            ));
        }
        if let Some(on) = release {
            print::on_release("on this release", on);
        }
    }
    Ok(0)
}

/// `dwpipe runs`: exit 0, also when there is none yet.
fn runs(config: &Path, json: bool) -> Result<i32, Error> {
    let base = dir_or_dot(config.parent());
    let runs = list_runs(base).map_err(|source| Error::Folder {
        path: base.join(RUNS_FOLDER),
        source,
    })?;
    if json {
        print::json(&RunsOutput {
            format_version: crate::format::RUNS,
            runs,
        });
        return Ok(0);
    }
    if runs.is_empty() {
        print::out(&format!(
            "no delivery has run here: {} holds no run (`dwpipe deliver` starts one)",
            base.join(RUNS_FOLDER).display()
        ));
        return Ok(0);
    }
    for run in &runs {
        print::out(&format!(
            "  {:<32} {:<20} {:<12} {:<20} {}",
            run.id,
            run.started.as_deref().unwrap_or("—"),
            run.pack_sha256
                .as_deref()
                .map_or("—", |s| &s[..s.len().min(12)]),
            run.terminal_reason.as_deref().unwrap_or("(unfinished)"),
            run.report.as_ref().map_or_else(String::new, |r| base
                .join(RUNS_FOLDER)
                .join(&run.id)
                .join(r)
                .display()
                .to_string())
        ));
    }
    print::out(&format!(
        "{} run(s) in {}; continue one with `dwpipe deliver --resume ID`",
        runs.len(),
        base.join(RUNS_FOLDER).display()
    ));
    Ok(0)
}

#[derive(Debug, clap::Args)]
pub(super) struct RunsArgs {
    /// The project config whose folder holds .dwpipe/.
    #[arg(long, value_name = "FILE", default_value = crate::config::CONFIG_FILE)]
    pub(super) config: PathBuf,
    #[command(flatten)]
    pub(super) output: Json,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
With --api-level N (the device's `hdc shell param get const.ohos.apiversion`), each probe also \
says whether that release lets the hdc shell read what it reads, by OpenHarmony's own SELinux \
policy: readable, readable in part (and what is still read), or not readable (every run \
unverified), with the policy lines. `dwpipe doctor --device SERIAL` says the same of a \
connected device.")]
pub(super) struct ProbesArgs {
    /// Hold each probe against the release of this API level (9 = OpenHarmony 3.2, 11 = 4.1,
    /// 12 = 5.0, 18 = 5.1, 20 = 6.0).
    #[arg(long, value_name = "N")]
    pub(super) api_level: Option<u32>,
    #[command(flatten)]
    pub(super) output: Json,
}

/// What a probe without a unit produces: a test's pass or fail, a node's text, or a count.
fn unitless(id: &str) -> &'static str {
    match id {
        "test.hypium" => "pass/fail",
        "layout.text" => "text",
        _ => "a count",
    }
}
