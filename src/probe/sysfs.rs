//! The kernel's own thermal zones, read live from sysfs in one shell call after a marker:
//! `echo __DWPIPE_SYSFS; for z in /sys/class/thermal/thermal_zone*; do echo $z $(cat
//! $z/type) $(cat $z/temp); done 2>&1`. A zone's `temp` is read from its sensor when it is
//! read (m°C), unlike ThermalService's report, which is its driver's last poll (up to its
//! polling interval old: research/device-tools-2.md §2c). A device that does not let the
//! shell read them says so (`Permission denied`), and none is taken.

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
    /// Its `temp`, m°C.
    pub temperature: i64,
}

/// Why sysfs gave no zones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SysfsError {
    /// The shell could not read them (no read, no zone, `Permission denied`): another source
    /// may be read instead.
    #[error("{0}")]
    NotReadable(String),
    /// A zone read as what no sensor reports: the reading is unread, the line quoted.
    #[error("{0}")]
    Unreadable(String),
}

/// Every zone after [`MARKER`], when every one of them read; why not otherwise (no zone
/// listed, or one whose type or temperature the shell could not read, quoted).
pub fn zones(reply: &str) -> Result<Vec<SysfsZone>, SysfsError> {
    let Some((_, listed)) = reply.split_once(MARKER) else {
        return Err(SysfsError::NotReadable(
            "the reply holds no sysfs read".to_owned(),
        ));
    };
    let mut zones = Vec::new();
    for line in listed.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let quoted = || crate::text::one_line(line, 120).into_owned();
        // The shell could not read a file: refused reads, not readings.
        if [
            "Permission denied",
            "No such file",
            "Invalid argument",
            "not permitted",
        ]
        .iter()
        .any(|said| line.contains(said))
        {
            return Err(SysfsError::NotReadable(format!("`{}`", quoted())));
        }
        let mut words = line.split_whitespace();
        let (Some(path), Some(zone), Some(temp), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(SysfsError::Unreadable(format!(
                "`{}` is not `<zone> <type> <temp>`",
                quoted()
            )));
        };
        let node = path
            .strip_prefix("/sys/class/thermal/")
            .filter(|n| n.starts_with("thermal_zone"))
            .ok_or_else(|| {
                SysfsError::Unreadable(format!("`{}` is not a thermal zone", quoted()))
            })?;
        let temperature: i64 = temp
            .parse()
            .ok()
            .filter(|t| (-40_000..=150_000).contains(t))
            .ok_or_else(|| {
                SysfsError::Unreadable(format!("`{}`: not a temperature in m°C", quoted()))
            })?;
        zones.push(SysfsZone {
            node: node.to_owned(),
            zone: zone.to_owned(),
            temperature,
        });
    }
    if zones.is_empty() {
        return Err(SysfsError::NotReadable(
            "no thermal zone was listed".to_owned(),
        ));
    }
    Ok(zones)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_zone_read_live_or_none() {
        let reply = format!(
            "…ThermalService…\n{MARKER}\n/sys/class/thermal/thermal_zone0 soc_thermal 41500\n/sys/class/thermal/thermal_zone1 shell_front 36000\n"
        );
        let read = zones(&reply).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!(
            (read[0].zone.as_str(), read[0].temperature),
            ("soc_thermal", 41500)
        );
        for (tail, said, readable) in [
            (
                "/sys/class/thermal/thermal_zone0 cat: /sys/class/thermal/thermal_zone0/type: Permission denied\n",
                "Permission denied",
                false,
            ),
            (
                "/sys/class/thermal/thermal_zone0 soc 99000x\n",
                "not a temperature",
                true,
            ),
            (
                "/sys/class/thermal/thermal_zone0 soc\n",
                "is not `<zone>",
                true,
            ),
            ("", "no thermal zone", false),
        ] {
            let e = zones(&format!("{MARKER}\n{tail}")).unwrap_err();
            assert!(e.to_string().contains(said), "{tail}: {e}");
            assert_eq!(matches!(e, SysfsError::Unreadable(_)), readable, "{tail}");
        }
        assert!(zones("no marker").is_err());
    }
}
