//! What makes a resource reading the visit's, beyond its parser: a battery draw measured
//! while the phone drew from its battery, and a temperature no older than the visit.

use super::ExtractError;
use crate::probe::hidumper::{self, Battery};
use crate::probe::sysfs;

/// Whether the battery's current, at the visit, is the phone's draw: not while it charges (its
/// current is then the charge), and not while it is plugged in unless the audit required
/// `charging: off` (the lab's word that its phones draw from the battery when so plugged).
pub(super) fn drawing_from_battery(
    battery: &Battery,
    charging_off: bool,
) -> Result<(), ExtractError> {
    let unmeasured = |why: String| ExtractError::Unmeasured(why);
    match (battery.charging, battery.plugged) {
        (Some("charging"), plugged) => Err(unmeasured(format!(
            "the battery was charging as the visit began (plugged: {}): its current is the charge, not the phone's draw; measure it with the phone not charging (require `charging: off`, which is checked before the audit and read again at the visit)",
            plugged.unwrap_or("unknown")
        ))),
        (Some(_), Some("none")) => Ok(()),
        (Some(_), Some(_)) if charging_off => Ok(()),
        (Some(state), Some(plugged)) => Err(unmeasured(format!(
            "the phone was plugged in ({plugged}, the battery {state}) and the audit did not say how to measure it: a plugged phone may draw from its cable; require `charging: off` if your lab's phones draw from their battery so"
        ))),
        _ => Err(unmeasured(format!(
            "the battery's state was not read as the visit began ({}): a draw from a battery not known to be discharging is no reading",
            battery.unknown.join("; ")
        ))),
    }
}

/// The hottest zone at the visit's end, in °C, and how it was read: from sysfs (read live)
/// when every zone there read; else from ThermalService's report, only when it changed during
/// the visit (a report that did not is its driver's last poll, possibly older than the visit:
/// 30 s in the reference config, frozen on a non-user build).
pub(super) fn hottest_zone(start: &str, end: &str) -> Result<(f64, String), ExtractError> {
    let celsius = |value: i64| {
        // Zones print m°C (a phone is never at 1000 °C); a small value is in °C already.
        if value.abs() >= 1000 {
            value as f64 / 1000.0
        } else {
            value as f64
        }
    };
    match sysfs::zones(end) {
        Ok(zones) => {
            let hottest = zones
                .iter()
                .max_by_key(|z| z.temperature)
                .expect("zones returns at least one zone");
            Ok((
                celsius(hottest.temperature),
                format!(
                    "hottest of {} zone(s), read live from sysfs at the visit's end: {} ({}) at {}",
                    zones.len(),
                    hottest.zone,
                    hottest.node,
                    hottest.temperature
                ),
            ))
        }
        // A zone that read as what no sensor reports: every zone or none.
        Err(garbage @ sysfs::SysfsError::Unreadable(_)) => {
            Err(ExtractError::Unmeasured(format!("sysfs: {garbage}")))
        }
        Err(sysfs::SysfsError::NotReadable(no_sysfs)) => {
            let zones = hidumper::thermal_zones(end)?;
            let before = hidumper::thermal_zones(start)?;
            if before == zones {
                return Err(ExtractError::Unmeasured(format!(
                    "sysfs's zones were not readable ({no_sysfs}), and ThermalService reported the same values as the visit began and 30 s later: its report is its driver's last poll (every 30 s in the reference config; a non-user build can freeze it), so it may be older than the visit"
                )));
            }
            let hottest = zones
                .iter()
                .max_by_key(|z| z.temperature)
                .expect("thermal_zones returns at least one zone");
            Ok((
                celsius(hottest.temperature),
                format!(
                    "hottest of {} zone(s) in ThermalService's report, refreshed during the visit (sysfs: {no_sysfs}): {} at {}",
                    zones.len(),
                    hottest.zone,
                    hottest.temperature
                ),
            ))
        }
    }
}
