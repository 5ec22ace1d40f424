//! `hidumper --cpuusage <pid>`: the `[cpuusage]` block's process table, one row per process
//! (`PID  Total Usage  User Space  Kernel Space  Page Fault Minor  Page Fault Major  Name`);
//! with a pid, the row of that process.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::{DumpError, HIDUMPER_ERROR, re};

/// A process's CPU load over hidumper's sampling interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CpuUsage {
    /// The process.
    pub pid: u32,
    /// Its name, as hidumper prints it.
    pub name: String,
    /// `Total Usage`, percent of one core (above 100 on several).
    pub total_percent: f64,
    /// What it was read from, as evidence.
    pub evidence: String,
}

static ROW: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?m)^\s*(\d+)\s+([0-9.]+)%\s+([0-9.]+)%\s+([0-9.]+)%\s+\d+\s+\d+\s+(\S.*?)\s*$")
});
static INTERVAL: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^CPU usage from (.+?) to (.+?)\s*$"));

/// Reads the first process row of `hidumper --cpuusage <pid>`.
pub fn cpu_usage(dump: &str) -> Result<CpuUsage, DumpError> {
    if let Some(error) = HIDUMPER_ERROR.captures(dump) {
        return Err(DumpError::Hidumper(error[1].trim().to_owned()));
    }
    if !dump.contains("[cpuusage]") {
        return Err(DumpError::MissingBlock("cpuusage".to_owned()));
    }
    let row = ROW
        .captures(dump)
        .ok_or_else(|| DumpError::Empty("no process row in the `[cpuusage]` table".to_owned()))?;
    let total_percent: f64 = row[2]
        .parse()
        .ok()
        .filter(|p: &f64| p.is_finite())
        .ok_or_else(|| DumpError::Empty(format!("`{}` is not a percentage", &row[2])))?;
    let interval = INTERVAL
        .captures(dump)
        .map_or_else(String::new, |c| format!(" from {} to {}", &c[1], &c[2]));
    Ok(CpuUsage {
        pid: row[1].parse().unwrap_or_default(),
        name: row[5].to_owned(),
        total_percent,
        evidence: format!(
            "{} (pid {}): {}% total{interval}",
            &row[5], &row[1], &row[2]
        ),
    })
}

#[cfg(test)]
mod tests;
