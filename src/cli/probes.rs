//! `dwpipe probes`: the probe catalog, for people (a block per probe) and scripts (`--json`).

use serde::Serialize;

use crate::pack::{ProbeRef, probes};

use super::error::Error;
use super::print;

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Printed {
    format_version: u32,
    probes: Vec<ProbeRef>,
}

/// Exit 0.
pub(super) fn run(json: bool) -> Result<i32, Error> {
    let probes = probes();
    if json {
        print::json(&Printed {
            format_version: crate::format::PROBES,
            probes,
        });
        return Ok(0);
    }
    for probe in &probes {
        let units: Vec<String> = probe
            .units
            .iter()
            .map(|u| match u.metric {
                Some(metric) => format!("{metric}: {}", u.unit.unwrap_or("—")),
                None => u.unit.unwrap_or("pass/fail").to_owned(),
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
    }
    Ok(0)
}
