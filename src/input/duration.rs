//! Durations as people write them in configs, playbooks, captures and flags: `40ms`, `1.5s`,
//! `10m`, `250us`, `1h`.

use std::time::Duration;

/// Parses `40ms`, `1.5s`, `2m`, `250us`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 40ms, 1.5s or 10m"))?;
    let seconds = match unit.trim() {
        "us" => value / 1e6,
        "ms" => value / 1e3,
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("`{text}` is not a duration like 40ms, 1.5s or 10m")),
    };
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("`{text}` is out of range"))
}

#[cfg(test)]
mod tests;
