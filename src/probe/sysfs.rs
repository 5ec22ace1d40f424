//! The kernel's own thermal zones, read live from sysfs in one shell call after a marker:
//! `echo __DWPIPE_SYSFS; for z in /sys/class/thermal/thermal_zone*; do echo $z $(cat
//! $z/type) $(cat $z/temp); done 2>&1`. A zone's `temp` is read from its sensor when it is
//! read (m°C), unlike ThermalService's report, which is its driver's last poll (up to its
//! polling interval old: research/device-tools-2.md §2c).
//!
//! OpenHarmony's policy lets the hdc shell read none of them (device-fixtures/access.yaml): on
//! 4.0 and later the folder does not list, so the glob stays itself and each `cat` says `No
//! such file or directory`; on 3.2 each says `Permission denied`. A vendor's policy may allow
//! them. Where the zones list, a zone whose `cat` fails (`Permission denied`, `I/O error`, `No
//! data available`, `Resource temporarily unavailable`, `No such device`, …) is that zone not
//! read, quoted, never the whole reading lost; a zone that prints what no sensor reports is.

use serde::Serialize;

/// The line before the zones.
pub const MARKER: &str = "__DWPIPE_SYSFS";

/// One zone, as read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SysfsZone {
    /// `thermal_zone3`.
    pub node: String,
    /// Its `type` (`soc_thermal`, …).
    pub zone: String,
    /// Its `temp`, m°C (one printed in whole °C converted).
    pub temperature: i64,
}

/// The zones that read, and each refusal the shell printed for the others.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SysfsZones {
    /// Every zone that read.
    pub zones: Vec<SysfsZone>,
    /// Each `cat:` line of a zone that did not, quoted.
    pub unread: Vec<String>,
}

/// A zone's reading in m°C, or why it is no temperature of a working phone: zones print m°C
/// (sysfs, and ThermalService's report of them), some a whole °C; 1 to 150 is read as °C,
/// 1000 to 150000 as m°C. At or below 0 is a sensor that is not there or has failed (a
/// phone under test is never that cold), never a cold zone; between the ranges, or past
/// them, it is neither unit.
pub(crate) fn millicelsius(printed: i64) -> Result<i64, &'static str> {
    match printed {
        1_000..=150_000 => Ok(printed),
        1..=150 => Ok(printed * 1000),
        i64::MIN..=0 => Err("at or below 0: a sensor that is not there or failed, not a cold zone"),
        _ => Err("neither °C nor m°C that a phone can be at"),
    }
}

/// Why sysfs gave no zones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SysfsError {
    /// The shell could not read them (no read, no zone listed, none readable): another source
    /// may be read instead.
    #[error("{0}")]
    NotReadable(String),
    /// A zone read as what no sensor reports: the reading is unread, the line quoted.
    #[error("{0}")]
    Unreadable(String),
}

/// Every zone after [`MARKER`] that read, with the refusals of those that did not; why none
/// read otherwise (no zone listed, the folder not listed, every zone refused).
pub fn zones(reply: &str) -> Result<SysfsZones, SysfsError> {
    let Some((_, listed)) = reply.split_once(MARKER) else {
        return Err(SysfsError::NotReadable(
            "the reply holds no sysfs read".to_owned(),
        ));
    };
    let mut read = SysfsZones {
        zones: Vec::new(),
        unread: Vec::new(),
    };
    let mut unexpanded = false;
    for line in listed.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let quoted = || format!("`{}`", crate::text::one_line(line, 120));
        // The shell's refusal of one file: that zone is not read (its line follows, short).
        if line.starts_with("cat:") || line.contains(": cat:") {
            read.unread.push(quoted());
            continue;
        }
        let mut words = line.split_whitespace();
        let path = words.next().unwrap_or_default();
        let node = path
            .strip_prefix("/sys/class/thermal/")
            .filter(|n| n.starts_with("thermal_zone"))
            .ok_or_else(|| SysfsError::Unreadable(format!("{} is not a thermal zone", quoted())))?;
        // The folder did not list: the loop ran once on the pattern itself.
        if node.contains('*') {
            unexpanded = true;
            continue;
        }
        let (zone, temp) = match (words.next(), words.next(), words.next()) {
            (Some(zone), Some(temp), None) => (zone, temp),
            // A `cat` of it failed (said above): the zone is not read.
            (_, None, None) => continue,
            _ => {
                return Err(SysfsError::Unreadable(format!(
                    "{} is not `<zone> <type> <temp>`",
                    quoted()
                )));
            }
        };
        let temperature: i64 = temp
            .parse()
            .map_err(|_| "not a whole number")
            .and_then(millicelsius)
            .map_err(|why| SysfsError::Unreadable(format!("{}: {why}", quoted())))?;
        read.zones.push(SysfsZone {
            node: node.to_owned(),
            zone: zone.to_owned(),
            temperature,
        });
    }
    if read.zones.is_empty() {
        let why = match (unexpanded, read.unread.first()) {
            (true, said) => format!(
                "the shell could not list /sys/class/thermal{}",
                said.map(|s| format!(" ({s})")).unwrap_or_default()
            ),
            (false, Some(said)) => format!("no zone read ({said})"),
            (false, None) => "no thermal zone was listed".to_owned(),
        };
        return Err(SysfsError::NotReadable(why));
    }
    Ok(read)
}

#[cfg(test)]
mod tests;
