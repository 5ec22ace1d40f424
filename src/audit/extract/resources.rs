//! What makes a resource reading the visit's, beyond its parser: a battery draw measured
//! while the phone drew from its battery, and a temperature whose source and age are said.

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

/// How old ThermalService's report can be: its driver's polling interval, 30 s in
/// OpenHarmony's reference config (`thermal_hdi_config.xml`, `<group name="actual"
/// interval="30000">`); the temperature session reads it 30 s after the visit began.
const THERMAL_POLL_S: u32 = 30;

/// The hottest zone at the visit's end, in °C, and how it was read, naming the source that
/// stood: sysfs read live where the shell may read it (a vendor's policy; OpenHarmony's lets
/// it read none), the zones that read; else ThermalService's report, its driver's last poll:
/// refreshed during the visit when it changed, and otherwise at most one polling interval
/// old, that bound recorded.
pub(super) fn hottest_zone(start: &str, end: &str) -> Result<(f64, String), ExtractError> {
    // Every zone's reading is m°C by now (one printed in °C converted as it was read).
    let celsius = |value: i64| value as f64 / 1000.0;
    match sysfs::zones(end) {
        Ok(read) => {
            let hottest = read
                .zones
                .iter()
                .max_by_key(|z| z.temperature)
                .expect("zones returns at least one zone");
            let unread = if read.unread.is_empty() {
                String::new()
            } else {
                format!("; not read: {}", read.unread.join(", "))
            };
            Ok((
                celsius(hottest.temperature),
                format!(
                    "source: sysfs, read live at the visit's end: hottest of {} zone(s), {} ({}) at {}{unread}",
                    read.zones.len(),
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
            let age = if before == zones {
                format!(
                    "its driver's last poll, unchanged since the visit began: at most {THERMAL_POLL_S} s old (the polling interval of OpenHarmony's reference thermal_hdi_config.xml; a vendor's driver may poll otherwise)"
                )
            } else {
                format!(
                    "its driver's last poll, refreshed during the visit: at most {THERMAL_POLL_S} s old"
                )
            };
            let hottest = zones
                .iter()
                .max_by_key(|z| z.temperature)
                .expect("thermal_zones returns at least one zone");
            Ok((
                celsius(hottest.temperature),
                format!(
                    "source: ThermalService's report at the visit's end, {age} (sysfs: {no_sysfs}): hottest of {} zone(s), {} at {}",
                    zones.len(),
                    hottest.zone,
                    hottest.temperature
                ),
            ))
        }
    }
}
