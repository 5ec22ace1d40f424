//! The device's state as its services print it: the battery (`hidumper -s BatteryService -a
//! -i`: `key: value` lines), the power state (`hidumper -s PowerManagerService -a -s`:
//! `Current State: AWAKE …`), the thermal zones (`hidumper -s ThermalService -a -t`:
//! `Type:`/`Temperature:` pairs, `thermal_mgr_dumper.cpp` `ShowThermalZoneInfo`), the
//! screen's brightness (`hidumper -s 3308 -a -a`, DisplayPowerManagerService:
//! `display_power_mgr_service.cpp` `Dump`) and the lock (`hidumper -s 3704 -a -all`,
//! ScreenlockService: `screenlock_system_ability.cpp`, ` * screenLocked \t\ttrue\t\t100`).
//! Numbers are read as the services print them; codes become words by the services' enums.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::{DumpError, re, require_block};

/// The battery, as BatteryService prints it (`battery_dump.cpp`: one `key: %d` a line, the
/// same on every release). What it prints when it could not read a value is no value: its
/// fields start at `capacity: 0` and `temperature: -1` (`INVALID_BATT_INT_VALUE`), and
/// `present: 0` is a board with no battery. Each is unknown, with why in `unknown`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Battery {
    /// `capacity`: the charge, in percent (never 0: a phone at 0 % is off).
    pub capacity_percent: Option<u32>,
    /// `chargingStatus`, by `BatteryChargeState`.
    pub charging: Option<&'static str>,
    /// `pluggedType`, by `BatteryPluggedType`.
    pub plugged: Option<&'static str>,
    /// `temperature`, printed in tenths of a degree Celsius, in °C.
    pub temperature_c: Option<f64>,
    /// Each value that is unknown, and why.
    pub unknown: Vec<String>,
}

/// The power state, as PowerManagerService prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PowerState {
    /// `Current State:` (`AWAKE`, `INACTIVE`, `SLEEP`, …).
    pub state: String,
    /// `ScreenOffTime: Timeout=<ms>ms`, when printed.
    pub screen_off_timeout_ms: Option<u64>,
}

/// One thermal zone, as ThermalService prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThermalZone {
    /// `Type:` (the sensor's name, `soc_thermal`, `shell_front`, …).
    pub zone: String,
    /// `Temperature:` as printed (the zone's own unit, usually m°C).
    pub temperature: i64,
}

/// The screen's brightness, as DisplayPowerManagerService prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Brightness {
    /// `Brightness=` of the first display (0–255).
    pub level: u32,
    /// `Auto Adjust Brightness: ON|OFF`, where the device has a light sensor.
    pub auto: Option<bool>,
}

static BRIGHTNESS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^Display Id=\d+ State=\d+ Discount=[0-9.]+ Brightness=(\d+)"));
static AUTO_BRIGHTNESS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^Auto Adjust Brightness: (ON|OFF)"));
/// ` * screenLocked \t\t<true|false>\t\t<user id>` (5.1 and later, one line a user), or
/// `… <true|false>\t\twhether there is lock screen status` (3.2 to 5.0.3: no user).
static SCREEN_LOCKED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^\s*\*\s*screenLocked\s+(true|false)(?:\s|$)"));

/// Reads `hidumper -s 3308 -a -a` (DisplayPowerManagerService).
pub fn brightness(dump: &str) -> Result<Brightness, DumpError> {
    if let Some(error) = super::HIDUMPER_ERROR.captures(dump) {
        return Err(DumpError::Hidumper(error[1].trim().to_owned()));
    }
    let level = BRIGHTNESS
        .captures(dump)
        .and_then(|c| c[1].parse().ok())
        .ok_or_else(|| DumpError::Empty("no `Display Id=… Brightness=` line".to_owned()))?;
    Ok(Brightness {
        level,
        auto: AUTO_BRIGHTNESS.captures(dump).map(|c| &c[1] == "ON"),
    })
}

/// Reads `hidumper -s 3704 -a -all` (ScreenlockService): whether any user's screen is locked
/// (`theme_screenlock_mgr`'s `RegisterDumpCommand`: one line on 3.2–5.0.3, one a user since
/// 5.1).
pub fn screen_locked(dump: &str) -> Result<bool, DumpError> {
    if let Some(error) = super::HIDUMPER_ERROR.captures(dump) {
        return Err(DumpError::Hidumper(error[1].trim().to_owned()));
    }
    let mut users = SCREEN_LOCKED.captures_iter(dump).peekable();
    if users.peek().is_none() {
        return Err(DumpError::Empty("no ` * screenLocked` line".to_owned()));
    }
    Ok(users.any(|c| &c[1] == "true"))
}

static FIELD: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^\s*([A-Za-z]+):\s*(-?\d+)\s*$"));
static CURRENT_STATE: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^\s*Current State:\s*([A-Z_]+)"));
static SCREEN_OFF: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^\s*ScreenOffTime:\s*Timeout=(\d+)ms"));
/// The widest a zone's reading can be and still be a phone's temperature: −40 °C to 150 °C,
/// in m°C (the unit zones print) or °C.
const ZONE_RANGE: std::ops::RangeInclusive<i64> = -40_000..=150_000;

/// Reads `hidumper -s BatteryService -a -i`.
pub fn battery(dump: &str) -> Result<Battery, DumpError> {
    require_block(dump, "BatteryService")?;
    let field = |name: &str| -> Option<i64> {
        FIELD
            .captures_iter(dump)
            .find(|c| &c[1] == name)
            .and_then(|c| c[2].parse().ok())
    };
    let mut unknown = Vec::new();
    if field("present") == Some(0) {
        return Ok(Battery {
            capacity_percent: None,
            charging: None,
            plugged: None,
            temperature_c: None,
            unknown: vec!["`present: 0`: the device has no battery".to_owned()],
        });
    }
    let capacity = match field("capacity") {
        Some(0) => {
            unknown.push("`capacity: 0`: what BatteryService prints when it cannot read the charge (a phone at 0 % is off)".to_owned());
            None
        }
        Some(c) if (1..=100).contains(&c) => u32::try_from(c).ok(),
        Some(c) => {
            unknown.push(format!("`capacity: {c}` is not a charge in percent"));
            None
        }
        None => {
            unknown.push("no `capacity:` line".to_owned());
            None
        }
    };
    // battery_info.h: BatteryChargeState and BatteryPluggedType.
    let charging = match field("chargingStatus") {
        Some(0) => Some("discharging"),
        Some(1) => Some("charging"),
        Some(2) => Some("not-charging"),
        Some(3) => Some("full"),
        other => {
            unknown.push(match other {
                Some(code) => format!("`chargingStatus: {code}` names no charging state"),
                None => "no `chargingStatus:` line".to_owned(),
            });
            None
        }
    };
    let plugged = match field("pluggedType") {
        Some(0) => Some("none"),
        Some(1) => Some("ac"),
        Some(2) => Some("usb"),
        Some(3) => Some("wireless"),
        other => {
            unknown.push(match other {
                Some(code) => format!("`pluggedType: {code}` names no plug"),
                None => "no `pluggedType:` line".to_owned(),
            });
            None
        }
    };
    let temperature_c = match field("temperature") {
        Some(-1) => {
            unknown.push(
                "`temperature: -1`: INVALID, what BatteryService prints when it cannot read it"
                    .to_owned(),
            );
            None
        }
        Some(t) if (-400..=1500).contains(&t) => Some(t as f64 / 10.0),
        Some(t) => {
            unknown.push(format!(
                "`temperature: {t}` is not a battery's, in tenths of °C"
            ));
            None
        }
        None => {
            unknown.push("no `temperature:` line".to_owned());
            None
        }
    };
    Ok(Battery {
        capacity_percent: capacity,
        charging,
        plugged,
        temperature_c,
        unknown,
    })
}

/// Reads `hidumper -s PowerManagerService -a -s` (or `-a -a`).
pub fn power_state(dump: &str) -> Result<PowerState, DumpError> {
    require_block(dump, "PowerManagerService")?;
    let state = CURRENT_STATE
        .captures(dump)
        .map(|c| c[1].to_owned())
        .ok_or_else(|| DumpError::Empty("no `Current State:` line".to_owned()))?;
    Ok(PowerState {
        state,
        screen_off_timeout_ms: SCREEN_OFF.captures(dump).and_then(|c| c[1].parse().ok()),
    })
}

/// Reads `hidumper -s ThermalService -a -t`: every `Type:` line and the `Temperature:` line
/// after it. Every zone or none: a temperature that is not a whole number, or not one a phone
/// can be at, makes the whole reading unread with its line quoted (the hottest of the zones
/// that did read would not be the phone's hottest).
pub fn thermal_zones(dump: &str) -> Result<Vec<ThermalZone>, DumpError> {
    require_block(dump, "ThermalService")?;
    let mut zones = Vec::new();
    let mut zone: Option<&str> = None;
    for line in dump.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix("Type:") {
            zone = Some(name.trim());
            continue;
        }
        let Some(value) = line.strip_prefix("Temperature:") else {
            continue;
        };
        let quoted = || crate::text::one_line(line, 120).into_owned();
        let name = zone
            .take()
            .ok_or_else(|| DumpError::Empty(format!("`{}` follows no `Type:` line", quoted())))?;
        let temperature: i64 = value.trim().parse().map_err(|_| {
            DumpError::Empty(format!("zone {name}: `{}` is not a whole number", quoted()))
        })?;
        if !ZONE_RANGE.contains(&temperature) {
            return Err(DumpError::Empty(format!(
                "zone {name}: `{}` is not a temperature a phone can be at",
                quoted()
            )));
        }
        zones.push(ThermalZone {
            zone: name.to_owned(),
            temperature,
        });
    }
    if zones.is_empty() {
        return Err(DumpError::Empty(
            "no `Type:`/`Temperature:` pair".to_owned(),
        ));
    }
    Ok(zones)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "\n-------------------------------[ability]-------------------------------\n\n\n";

    fn block(name: &str, body: &str) -> String {
        format!(
            "{HEADER}----------------------------------{name}---------------------------------\n{body}"
        )
    }

    #[test]
    fn the_battery_as_batteryservice_prints_it() {
        let dump = block(
            "BatteryService",
            "Current time: 2026-11-30 10:00:00.000\ncapacity: 15 \nbatteryLevel: 4 \nchargingStatus: 1 \nhealthState: 1 \npluggedType: 2 \nvoltage: 3800000 \npresent: 1 \ntechnology: Li-poly \ntemperature: 412 \n",
        );
        assert_eq!(
            battery(&dump).unwrap(),
            Battery {
                capacity_percent: Some(15),
                charging: Some("charging"),
                plugged: Some("usb"),
                temperature_c: Some(41.2),
                unknown: Vec::new(),
            }
        );
        let unplugged = dump
            .replace("chargingStatus: 1", "chargingStatus: 0")
            .replace("pluggedType: 2", "pluggedType: 0");
        let read = battery(&unplugged).unwrap();
        assert_eq!(
            (read.charging, read.plugged),
            (Some("discharging"), Some("none"))
        );
        // What battery_dump.cpp prints when the service could not read a value is no value:
        // `capacity: 0`, `temperature: -1` (INVALID), a state code no enum names; a board with
        // no battery says `present: 0`.
        for (from, to, said) in [
            ("capacity: 15", "capacity: 0", "`capacity: 0`"),
            ("capacity: 15", "capacity: 140", "`capacity: 140`"),
            (
                "temperature: 412",
                "temperature: -1",
                "`temperature: -1`: INVALID",
            ),
            (
                "chargingStatus: 1",
                "chargingStatus: 4",
                "`chargingStatus: 4`",
            ),
            ("pluggedType: 2", "pluggedType: 7", "`pluggedType: 7`"),
        ] {
            let read = battery(&dump.replace(from, to)).unwrap();
            assert!(
                read.unknown.iter().any(|why| why.contains(said)),
                "{to}: {:?}",
                read.unknown
            );
        }
        assert_eq!(
            battery(&dump.replace("capacity: 15", "capacity: 0"))
                .unwrap()
                .capacity_percent,
            None
        );
        assert_eq!(
            battery(&dump.replace("temperature: 412", "temperature: -1"))
                .unwrap()
                .temperature_c,
            None
        );
        let none = battery(&dump.replace("present: 1", "present: 0")).unwrap();
        assert_eq!(
            (none.capacity_percent, none.charging, none.temperature_c),
            (None, None, None)
        );
        assert!(none.unknown[0].contains("no battery"));
        assert!(matches!(
            battery("hidumper: No such ability\n"),
            Err(DumpError::Hidumper(_))
        ));
    }

    #[test]
    fn the_power_state_and_the_thermal_zones() {
        let power = block(
            "PowerManagerService",
            "POWER STATE DUMP:\nCurrent State: INACTIVE  Reason: 20  Time: 521085695\nScreenOffTime: Timeout=30000ms\n",
        );
        assert_eq!(
            power_state(&power).unwrap(),
            PowerState {
                state: "INACTIVE".to_owned(),
                screen_off_timeout_ms: Some(30000),
            }
        );
        // ShowThermalZoneInfo's format: `Type: ` name, `Temperature: ` value, each on a line.
        let thermal = block(
            "ThermalService",
            "Type: soc_thermal\nTemperature: 47000\nType: shell_front\nTemperature: 38500\n",
        );
        let zones = thermal_zones(&thermal).unwrap();
        assert_eq!(zones.len(), 2);
        assert_eq!(
            (zones[0].zone.as_str(), zones[0].temperature),
            ("soc_thermal", 47000)
        );
        assert!(thermal_zones(&block("ThermalService", "")).is_err());
        // One zone that does not read makes the reading unread, its line quoted: the hottest
        // of the rest is not the phone's hottest.
        for (body, said) in [
            (
                "Type: soc_thermal\nTemperature: 99000x\nType: shell_front\nTemperature: 36000\n",
                "`Temperature: 99000x` is not a whole number",
            ),
            (
                "Type: soc_thermal\nTemperature: 9990000\n",
                "not a temperature a phone can be at",
            ),
            ("Temperature: 36000\n", "follows no `Type:` line"),
        ] {
            let e = thermal_zones(&block("ThermalService", body)).unwrap_err();
            assert!(e.to_string().contains(said), "{body}: {e}");
        }
    }

    #[test]
    fn brightness_and_the_lock_as_their_services_print_them() {
        // DisplayPowerMgrService::Dump: the header, DumpDisplayInfo, then the sensor lines.
        let display = "DISPLAY POWER MANAGER DUMP:\nDisplay Id=0 State=2 Discount=1.000000 Brightness=102\nDeviceBrightness=102\nSupport Ambient Light: TRUE\nAuto Adjust Brightness: OFF\nBrightness Limits: Max=255 Min=5 Default=102\n";
        assert_eq!(
            brightness(display).unwrap(),
            Brightness {
                level: 102,
                auto: Some(false),
            }
        );
        assert!(brightness("DISPLAY POWER MANAGER DUMP:\n").is_err());
        // ScreenlockService's `-all` command: one line per user.
        let lock = |state: &str| {
            format!(
                " * deviceLocked  \t\tfalse\t\t100\n * authState  \t\t2\t\t100\n * screenLocked  \t\t{state}\t\t100\n * strongAuth  \t\t100\t\t0\t\t0\n"
            )
        };
        assert!(!screen_locked(&lock("false")).unwrap());
        assert!(screen_locked(&lock("true")).unwrap());
        assert!(screen_locked("").is_err());
        // 3.2 to 5.0.3 (`screenlock_system_ability.cpp` RegisterDumpCommand): no user id, a
        // description after the value.
        let before_5_1 = |state: &str| {
            format!(
                " * deviceLocked  \t\t{state}\t\twhether there is device locked\n * screenLocked  \t\t{state}\t\twhether there is lock screen status\n"
            )
        };
        assert!(!screen_locked(&before_5_1("false")).unwrap());
        assert!(screen_locked(&before_5_1("true")).unwrap());
    }
}
