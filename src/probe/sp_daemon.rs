//! SmartPerf's `SP_daemon -N <n> -PKG <bundle> -g|-p` (on devices since API 9): one sample a
//! second, each a block of `order:<i> <key>=<value>` lines (the layout its `-f` output has in
//! the real captures), samples apart by a blank line, `command exec finished!` at the end.
//! `-g` prints `gpuFrequency` and `gpuLoad` (`GPU.cpp`), `-p` the battery's `currentNow` and
//! `voltageNow` as its power-supply files hold them (`Power.cpp`); `NA` where the device has
//! none.

use std::collections::BTreeMap;

use serde::Serialize;

/// Why an output holds no reading.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpError {
    /// No sample holds the key.
    #[error("no sample holds `{0}` (is SP_daemon on the device, and does it read it here?)")]
    Missing(&'static str),
    /// The device says it has none.
    #[error("the device has no `{0}` reading (`NA`)")]
    NotAvailable(&'static str),
}

/// Each sample's `key=value` pairs, in order.
pub fn samples(output: &str) -> Vec<BTreeMap<String, String>> {
    let mut samples: Vec<BTreeMap<String, String>> = Vec::new();
    let mut current = BTreeMap::new();
    for line in output.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix("order:") else {
            if line.is_empty() && !current.is_empty() {
                samples.push(std::mem::take(&mut current));
            }
            continue;
        };
        let Some((_, pair)) = rest.split_once(' ') else {
            continue;
        };
        if let Some((key, value)) = pair.split_once('=') {
            if current.contains_key(key.trim()) {
                samples.push(std::mem::take(&mut current));
            }
            current.insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    if !current.is_empty() {
        samples.push(current);
    }
    samples
}

/// The mean of `key` over the samples.
fn mean(samples: &[BTreeMap<String, String>], key: &'static str) -> Result<(f64, usize), SpError> {
    let values: Vec<&str> = samples
        .iter()
        .filter_map(|s| s.get(key))
        .map(String::as_str)
        .collect();
    if values.is_empty() {
        return Err(SpError::Missing(key));
    }
    let numbers: Vec<f64> = values
        .iter()
        .filter_map(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .collect();
    if numbers.is_empty() {
        return Err(SpError::NotAvailable(key));
    }
    Ok((
        numbers.iter().sum::<f64>() / numbers.len() as f64,
        numbers.len(),
    ))
}

/// The GPU over the samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gpu {
    /// Mean `gpuLoad`, percent.
    pub load_percent: f64,
    /// Mean `gpuFrequency`, MHz (SmartPerf prints the collector's value; one above 100,000 is
    /// in Hz, one above 100 in kHz… read as the largest unit that leaves it under 100,000).
    pub frequency_mhz: f64,
    /// Samples read.
    pub samples: usize,
}

/// Reads `SP_daemon … -g`.
pub fn gpu(output: &str) -> Result<Gpu, SpError> {
    let all = samples(output);
    let (load, n) = mean(&all, "gpuLoad")?;
    let (frequency, _) = mean(&all, "gpuFrequency")?;
    Ok(Gpu {
        load_percent: round3(load),
        frequency_mhz: round3(to_mhz(frequency)),
        samples: n,
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
    /// Mean power, mW: |current| × voltage, current in mA (one above 20,000 in magnitude is
    /// in µA), voltage in µV (one under 100 is in V, under 100,000 in mV).
    pub milliwatts: f64,
    /// Mean current, mA (its magnitude).
    pub current_ma: f64,
    /// Mean voltage, V.
    pub voltage_v: f64,
    /// Samples read.
    pub samples: usize,
}

/// Reads `SP_daemon … -p`.
pub fn power(output: &str) -> Result<Power, SpError> {
    let all = samples(output);
    let (current, n) = mean(&all, "currentNow")?;
    let (voltage, _) = mean(&all, "voltageNow")?;
    let current_ma = if current.abs() > 20_000.0 {
        current.abs() / 1000.0
    } else {
        current.abs()
    };
    let voltage_v = if voltage < 100.0 {
        voltage
    } else if voltage < 100_000.0 {
        voltage / 1000.0
    } else {
        voltage / 1e6
    };
    Ok(Power {
        milliwatts: round3(current_ma * voltage_v),
        current_ma: round3(current_ma),
        voltage_v: round3(voltage_v),
        samples: n,
    })
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two samples in SmartPerf's layout, as the real `-f` captures show it.
    fn output(pairs: &[(&str, &str)], again: &[(&str, &str)]) -> String {
        let block = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .enumerate()
                .map(|(i, (k, v))| format!("order:{i} {k}={v}\n"))
                .collect::<String>()
        };
        format!(
            "\n{}\n{}\ncommand exec finished!\n",
            block(pairs),
            block(again)
        )
    }

    #[test]
    fn gpu_and_power_samples_as_smartperf_prints_them() {
        let gpu_out = output(
            &[("gpuFrequency", "279000000"), ("gpuLoad", "40.000000")],
            &[("gpuFrequency", "279000000"), ("gpuLoad", "50.000000")],
        );
        assert_eq!(
            gpu(&gpu_out).unwrap(),
            Gpu {
                load_percent: 45.0,
                frequency_mhz: 279.0,
                samples: 2
            }
        );
        let power_out = output(
            &[("currentNow", "-350"), ("voltageNow", "4000000")],
            &[("currentNow", "-450"), ("voltageNow", "4000000")],
        );
        let p = power(&power_out).unwrap();
        assert_eq!(
            (p.current_ma, p.voltage_v, p.milliwatts),
            (400.0, 4.0, 1600.0)
        );
        assert_eq!(
            power(&output(
                &[("failed", "RK does not support power acquisition")],
                &[]
            )),
            Err(SpError::Missing("currentNow"))
        );
        assert_eq!(
            gpu(&output(&[("gpuFrequency", "NA"), ("gpuLoad", "NA")], &[])),
            Err(SpError::NotAvailable("gpuLoad"))
        );
        // Samples with no blank line between them still part at a repeated key.
        assert_eq!(samples("order:0 gpuLoad=1\norder:0 gpuLoad=3\n").len(), 2);
    }
}
