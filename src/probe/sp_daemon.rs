//! SmartPerf's `SP_daemon -N <n> -PKG <bundle> -g|-p` (on devices since API 9): one sample a
//! second, each a block of `order:<i> <key>=<value>` lines (the layout its `-f` output has in
//! the real captures), samples apart by a blank line, `command exec finished!` at the end
//! (6.0+ prints the samples on stderr, which hdcd merges into the reply).
//!
//! What the printer writes, per release (research/device-tools-2.md §3c–3e):
//! - `-g`: `gpuFrequency` and `gpuLoad` from hiview's GPU collector, which reads them from two
//!   nodes (`cur_freq`, and the vendor's `gpu_scene_aware/utilisation`) and prints **zero**
//!   for either it cannot read (4.1 and later, every sample): zeros in every sample of either
//!   are no reading, never 0 % or 0 MHz. The load is the whole system's, not the app's.
//! - `-p`: the battery's raw `current_now` and `voltage_now`, unscaled. OpenHarmony's battery
//!   driver passes `current_now` through, and its API documents the current in **mA**
//!   (`@ohos.batteryInfo` `nowCurrent`; SmartPerf's own docs say mA and print `currentNow=278`)
//!   and the voltage in µV (research/device-tools-3.md D1); a discharging battery's current is
//!   negative. A phone whose battery is charging is not drawing from it: its draw is not
//!   measured. Values a phone cannot have in those units (a voltage outside a Li-ion cell's
//!   range, a draw no phone makes) are no reading, and BatteryService's `nowCurrent:` (mA by
//!   the same API) is held against the samples where the audit read it.
//! - 6.0+ with developer mode off: `Not a development mode state`, exit 0.
//!
//! Every sample or none: a sample line that cannot be read, or a value outside what the
//! device can report (a negative load, a comma decimal, a unit suffix), makes the reading
//! unread with the line quoted — a mean over the samples that did read would look better
//! than the device was.

use std::collections::BTreeMap;

use serde::Serialize;

/// Why an output holds no reading.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpError {
    /// No sample holds the key.
    #[error("no sample holds `{0}` (is SP_daemon on the device, and does it read it here?)")]
    Missing(&'static str),
    /// The device says it has none.
    #[error("the device has no `{0}` reading (`NA`)")]
    NotAvailable(&'static str),
    /// A sample line does not read, or holds what the device cannot report.
    #[error("SmartPerf's sample `{line}` {why}: the reading is every sample or none")]
    Unreadable {
        /// The line, quoted (bounded).
        line: String,
        /// Why it does not read.
        why: String,
    },
    /// Fewer samples than the step asked for (`-N`): SmartPerf stopped early (another
    /// SmartPerf started, the app left), and the mean is not of the window the playbook says.
    #[error(
        "SmartPerf printed {got} sample(s) where its step asked for {asked} (`-N {asked}`): it stopped early (another SmartPerf started on the phone, or the app left), so the reading is not the one asked for"
    )]
    Short {
        /// Asked for.
        asked: u32,
        /// Printed.
        got: usize,
    },
    /// SmartPerf refused to run: developer mode is off (6.0 and later).
    #[error(
        "SmartPerf printed `Not a development mode state`: developer mode is off on the device, so it measured nothing (turn it on in Settings › System › Developer options)"
    )]
    DeveloperMode,
    /// SmartPerf says the device cannot measure it (`failed=…`).
    #[error("SmartPerf says: {0}")]
    Unsupported(String),
    /// Zeros in every sample: the GPU's devfreq node is missing, or hiview was built without
    /// its GPU collector (SmartPerf 4.1+ prints 0 where it cannot read, never `NA`).
    #[error(
        "gpuFrequency=0 and gpuLoad=0 in all {0} samples: SmartPerf prints zeros where the device has no GPU devfreq node (/sys/class/devfreq/gpufreq) or hiview has no GPU collector, so the GPU was not read"
    )]
    NoGpuNode(usize),
    /// A clocked GPU with a load of exactly 0 in every sample: the load's own node did not
    /// read (hiview reads it apart from the frequency, and prints 0 for it).
    #[error(
        "gpuLoad=0.000000 in all {samples} samples while the GPU ran at {mhz} MHz: SmartPerf reads the load from its own node (gpu_scene_aware/utilisation, a vendor's) and prints 0 where it cannot, so the load was not read"
    )]
    NoGpuLoad {
        /// Samples read.
        samples: usize,
        /// The mean frequency, MHz.
        mhz: f64,
    },
    /// The battery was charging while its draw was sampled.
    #[error(
        "the battery was charging in {charging} of {samples} samples (currentNow > 0 mA): a charging battery's current is its charge, not the phone's draw"
    )]
    Charging {
        /// Samples with a charging current.
        charging: usize,
        /// All samples.
        samples: usize,
    },
    /// The values are not a phone's in the units OpenHarmony documents (mA, µV): why.
    #[error(
        "SmartPerf's battery values are not a phone's in OpenHarmony's units (current mA, voltage µV): {0}"
    )]
    Implausible(String),
}

/// One sample: each key's value and the line it was read from.
pub type Sample = BTreeMap<String, (String, String)>;

/// The line, bounded for quoting.
fn quoted(line: &str) -> String {
    crate::text::one_line(line, 120).into_owned()
}

/// Each sample's `key=value` pairs, in order; a sample line (`order:…`) that is not
/// `order:<i> <key>=<value>` is an error, quoted.
pub fn samples(output: &str) -> Result<Vec<Sample>, SpError> {
    let mut samples: Vec<Sample> = Vec::new();
    let mut current = Sample::new();
    for line in output.lines().map(str::trim) {
        if line.contains("Not a development mode state") {
            return Err(SpError::DeveloperMode);
        }
        let Some(rest) = line.strip_prefix("order:") else {
            if line.is_empty() && !current.is_empty() {
                samples.push(std::mem::take(&mut current));
            }
            continue;
        };
        let unreadable = |why: &str| SpError::Unreadable {
            line: quoted(line),
            why: why.to_owned(),
        };
        let (_, pair) = rest
            .split_once(' ')
            .ok_or_else(|| unreadable("is not `order:<i> <key>=<value>`"))?;
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| unreadable("is not `order:<i> <key>=<value>`"))?;
        let key = key.trim();
        if key == "failed" {
            return Err(SpError::Unsupported(quoted(value.trim())));
        }
        if current.contains_key(key) {
            samples.push(std::mem::take(&mut current));
        }
        current.insert(key.to_owned(), (value.trim().to_owned(), line.to_owned()));
    }
    if !current.is_empty() {
        samples.push(current);
    }
    Ok(samples)
}

/// `key` in every sample, each within `range` (`NA` in all of them: the device has none).
fn every(
    samples: &[Sample],
    key: &'static str,
    (range, unit): (std::ops::RangeInclusive<f64>, &str),
) -> Result<Vec<f64>, SpError> {
    let found: Vec<&(String, String)> = samples.iter().filter_map(|s| s.get(key)).collect();
    if found.is_empty() {
        return Err(SpError::Missing(key));
    }
    if found.iter().all(|(value, _)| value == "NA") {
        return Err(SpError::NotAvailable(key));
    }
    if found.len() < samples.len() {
        return Err(SpError::Unreadable {
            line: format!("{key} in {} of {} samples", found.len(), samples.len()),
            why: "is missing from the others".to_owned(),
        });
    }
    found
        .iter()
        .map(|(value, line)| {
            if value.is_empty() {
                return Err(SpError::Unreadable {
                    line: quoted(line),
                    why: "is empty: SmartPerf could not read its node (before OpenHarmony 4.1 it runs in the hdc shell's SELinux domain, which may not read /sys; `dwpipe probes --api-level N`)".to_owned(),
                });
            }
            let number = strict_number(value).ok_or_else(|| SpError::Unreadable {
                line: quoted(line),
                why: format!("does not hold a plain number (`{value}`)"),
            })?;
            if !range.contains(&number) {
                return Err(SpError::Unreadable {
                    line: quoted(line),
                    why: format!(
                        "is outside what the device can report ({} to {} {unit})",
                        range.start(),
                        range.end()
                    ),
                });
            }
            // A reading that is never below zero has no sign: `-0` is no zero load.
            if *range.start() >= 0.0 && value.starts_with('-') {
                return Err(SpError::Unreadable {
                    line: quoted(line),
                    why: format!("is signed where {key} never is"),
                });
            }
            Ok(number)
        })
        .collect()
}

/// A number as C's `to_string` and the kernel print it: digits, one `.`, a leading `-`;
/// never a comma, a unit or an exponent (`95,000000`, `4000mV` are not read).
fn strict_number(text: &str) -> Option<f64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().filter(|b| *b == b'.').count() <= 1
        && digits.bytes().any(|b| b.is_ascii_digit());
    plain.then(|| text.parse::<f64>().ok()).flatten()
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The GPU over the samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gpu {
    /// Mean `gpuLoad`, percent of the GPU (the whole system's use of it, not the app's).
    pub load_percent: f64,
    /// Mean `gpuFrequency`, MHz (SmartPerf prints the collector's value; one above 100,000 is
    /// in Hz, one above 100 in kHz… read as the largest unit that leaves it under 100,000).
    pub frequency_mhz: f64,
    /// Samples read.
    pub samples: usize,
}

/// The samples of `output`, as many as were `asked` (`-N`) when that is known.
fn asked_samples(output: &str, asked: Option<u32>) -> Result<Vec<Sample>, SpError> {
    let all = samples(output)?;
    match asked {
        Some(asked) if all.len() < asked as usize => Err(SpError::Short {
            asked,
            got: all.len(),
        }),
        _ => Ok(all),
    }
}

/// Reads `SP_daemon … -g`; `asked`: the samples its step asked for (`-N`), when known.
pub fn gpu(output: &str, asked: Option<u32>) -> Result<Gpu, SpError> {
    let all = asked_samples(output, asked)?;
    let load = every(&all, "gpuLoad", (0.0..=100.0, "%"))?;
    let frequency = every(&all, "gpuFrequency", (0.0..=1e10, "Hz"))?;
    // A GPU that is there runs at some frequency, idle or not: zeros are no node.
    if frequency.iter().all(|f| *f == 0.0) {
        return Err(SpError::NoGpuNode(all.len()));
    }
    // A clocked GPU shows some load over five seconds of an app's screen; exactly zero in
    // every sample is the load's node unread (its own node, its own zero).
    if load.iter().all(|l| *l == 0.0) {
        return Err(SpError::NoGpuLoad {
            samples: all.len(),
            mhz: round3(to_mhz(mean(&frequency))),
        });
    }
    if let Some(zero) = all
        .iter()
        .filter_map(|s| s.get("gpuFrequency"))
        .find(|(value, _)| strict_number(value) == Some(0.0))
    {
        return Err(SpError::Unreadable {
            line: quoted(&zero.1),
            why: "is 0 where other samples are not: a GPU that is there never runs at 0".to_owned(),
        });
    }
    Ok(Gpu {
        load_percent: round3(mean(&load)),
        frequency_mhz: round3(to_mhz(mean(&frequency))),
        samples: all.len(),
    })
}

/// A frequency SmartPerf printed (Hz, kHz or MHz by device), in MHz.
fn to_mhz(value: f64) -> f64 {
    if value >= 1e7 {
        value / 1e6
    } else if value >= 1e4 {
        value / 1e3
    } else {
        value
    }
}

/// The battery's draw over the samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Power {
    /// Mean power drawn from the battery, mW: −current × voltage of each sample (mA and V; a
    /// discharging battery's current is negative).
    pub milliwatts: f64,
    /// Mean current drawn, mA.
    pub current_ma: f64,
    /// Mean voltage, V.
    pub voltage_v: f64,
    /// Samples read.
    pub samples: usize,
}

/// A Li-ion cell's voltage, µV: flat below 2.5 V is a cell cut off, above 4.6 V one that no
/// charger makes; a two-cell pack (SmartPerf 6.1+ multiplies by the cells) doubles both.
const CELL_UV: [std::ops::RangeInclusive<f64>; 2] = [2.5e6..=4.6e6, 5.0e6..=9.2e6];

/// What a phone draws from its battery with its screen on, mW: below, the current is not the
/// phone's (a cable feeding it, a unit read wrong); above, no phone's battery delivers it.
const PHONE_MW: std::ops::RangeInclusive<f64> = 50.0..=30_000.0;

/// How far BatteryService's one `nowCurrent` may stand from the samples' mean and still be the
/// same unit: a draw moves several-fold in five seconds, a unit a thousandfold.
const SAME_UNIT: f64 = 30.0;

/// Reads `SP_daemon … -p`: every sample's `currentNow` (mA) and `voltageNow` (µV), as
/// OpenHarmony's battery driver passes the power-supply files through.
pub fn power(output: &str, asked: Option<u32>) -> Result<Power, SpError> {
    let all = asked_samples(output, asked)?;
    // No phone's battery gives 20 A; a voltage is positive and below 20 V.
    let current = every(&all, "currentNow", (-20_000.0..=20_000.0, "mA"))?;
    let voltage = every(&all, "voltageNow", (1.0..=2e7, "µV"))?;
    if let Some(volts) = voltage
        .iter()
        .find(|uv| !CELL_UV.iter().any(|cell| cell.contains(uv)))
    {
        return Err(SpError::Implausible(format!(
            "voltageNow={volts} is {} V, outside a Li-ion cell's range (2.5 to 4.6 V, or 5 to 9.2 V for two cells)",
            volts / 1e6
        )));
    }
    let charging = current.iter().filter(|c| **c > 0.0).count();
    if charging > 0 {
        return Err(SpError::Charging {
            charging,
            samples: all.len(),
        });
    }
    let milliwatts: Vec<f64> = current
        .iter()
        .zip(&voltage)
        .map(|(ma, uv)| -ma * uv / 1e6)
        .collect();
    let power = Power {
        milliwatts: round3(mean(&milliwatts)),
        current_ma: round3(-mean(&current)),
        voltage_v: round3(mean(&voltage) / 1e6),
        samples: all.len(),
    };
    if !PHONE_MW.contains(&power.milliwatts) {
        return Err(SpError::Implausible(format!(
            "{} mA at {} V is {} mW, not what a phone draws with its screen on ({} to {} mW)",
            power.current_ma,
            power.voltage_v,
            power.milliwatts,
            PHONE_MW.start(),
            PHONE_MW.end()
        )));
    }
    Ok(power)
}

impl Power {
    /// Holds the samples against BatteryService's `nowCurrent` (mA by OpenHarmony's API, read
    /// as the sampling began): what was checked, in words, or why the two are not one unit.
    pub fn against_battery(&self, now_current_ma: Option<i64>) -> Result<String, SpError> {
        let Some(battery) = now_current_ma.filter(|c| *c != 0) else {
            return Ok(match now_current_ma {
                Some(_) => "BatteryService printed `nowCurrent: 0`: not cross-checked".to_owned(),
                None => "BatteryService's nowCurrent was not read: not cross-checked".to_owned(),
            });
        };
        let ratio = self.current_ma.abs() / (battery as f64).abs();
        if !(1.0 / SAME_UNIT..=SAME_UNIT).contains(&ratio) {
            return Err(SpError::Implausible(format!(
                "SmartPerf's mean current is {} mA, BatteryService's nowCurrent {battery} mA as the sampling began ({ratio:.0}× apart): the two are not one unit on this device",
                self.current_ma
            )));
        }
        Ok(format!(
            "BatteryService's nowCurrent {battery} mA as the sampling began agrees in unit"
        ))
    }
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests;
