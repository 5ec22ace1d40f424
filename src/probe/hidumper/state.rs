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
/// `present: 0` is a board with no battery. Since 5.0, with its driver (the battery HDI) down,
/// it prints `temperature: 100` (`INVALID_BATT_TEMP_VALUE`, never a reading) and, since 6.0,
/// `chargingStatus: 0` and `pluggedType: 0` for states it never read: with the temperature's
/// placeholder there, those are unknown too (research/device-tools-3.md D6). Each is unknown,
/// with why in `unknown`.
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
    /// `nowCurrent`, mA (OpenHarmony's API unit), as the service read it.
    pub now_current_ma: Option<i64>,
    /// Each value that is unknown, and why.
    pub unknown: Vec<String>,
}

/// What BatteryService prints for the temperature when its driver does not answer (5.0+).
const DRIVER_DOWN_TEMPERATURE: i64 = 100;

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
    /// `Temperature:` in m°C (a zone printing a whole °C converted).
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
static SCREEN_LOCKED: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?m)^\s*\*\s*screenLocked\s+(true|false)(?:[ \t]+(\d+))?[ \t]*(?:\S.*)?$")
});
/// AccountMgr's `-os_account_infos`: `ID: <id>` and, a few lines on, `\tisForeground: 1|0`
/// (`os_account_manager_service.cpp` `DumpStateByAccounts`, 5.1 and later).
static ACCOUNT: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^\s*ID:\s*(\d+)\s*$"));
static FOREGROUND: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^\s*isForeground:\s*([01])\s*$"));

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

/// Reads `hidumper -s 200 -a -os_account_infos` (AccountMgr): the foreground user, when
/// exactly one account says it is.
pub fn foreground_user(dump: &str) -> Option<u32> {
    let ids: Vec<(usize, u32)> = ACCOUNT
        .captures_iter(dump)
        .filter_map(|c| Some((c.get(0)?.start(), c[1].parse().ok()?)))
        .collect();
    let mut foreground = FOREGROUND
        .captures_iter(dump)
        .filter(|c| &c[1] == "1")
        .map(|c| {
            let at = c.get(0).map_or(0, |m| m.start());
            // The account whose `ID:` line comes last before it.
            ids.iter()
                .rev()
                .find(|(start, _)| *start < at)
                .map(|(_, id)| *id)
        });
    match (foreground.next(), foreground.next()) {
        (Some(one), None) => one,
        _ => None,
    }
}

/// Reads `hidumper -s 3704 -a -all` (ScreenlockService): whether the screen is locked
/// (`theme_screenlock_mgr`'s `RegisterDumpCommand`: one line on 3.2–5.0.3, one a user since
/// 5.1). Where users' lines disagree, the foreground user's line decides (`foreground`, from
/// AccountMgr); not knowing it, the lock is unknown — a second user's locked screen (a private
/// space) is not the screen the app is audited on.
pub fn screen_locked(dump: &str, foreground: Option<u32>) -> Result<bool, DumpError> {
    if let Some(error) = super::HIDUMPER_ERROR.captures(dump) {
        return Err(DumpError::Hidumper(error[1].trim().to_owned()));
    }
    let lines: Vec<(bool, Option<u32>)> = SCREEN_LOCKED
        .captures_iter(dump)
        .map(|c| {
            (
                &c[1] == "true",
                c.get(2).and_then(|u| u.as_str().parse().ok()),
            )
        })
        .collect();
    let Some(&(first, _)) = lines.first() else {
        return Err(DumpError::Empty("no ` * screenLocked` line".to_owned()));
    };
    if lines.iter().all(|(locked, _)| *locked == first) {
        return Ok(first);
    }
    let users = || {
        lines
            .iter()
            .map(|(locked, user)| {
                let state = if *locked { "locked" } else { "unlocked" };
                user.map_or_else(|| state.to_owned(), |u| format!("user {u} {state}"))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match foreground {
        Some(user) => lines
            .iter()
            .find(|(_, u)| *u == Some(user))
            .map(|(locked, _)| *locked)
            .ok_or_else(|| {
                DumpError::Empty(format!(
                    "the users' screens differ ({}) and the foreground user {user} has no line",
                    users()
                ))
            }),
        None => Err(DumpError::Empty(format!(
            "the users' screens differ ({}) and the foreground user was not read (AccountMgr's `isForeground`)",
            users()
        ))),
    }
}

static FIELD: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^\s*([A-Za-z]+):\s*(-?\d+)\s*$"));
static CURRENT_STATE: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^\s*Current State:\s*([A-Z_]+)"));
static SCREEN_OFF: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^\s*ScreenOffTime:\s*Timeout=(\d+)ms"));

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
            now_current_ma: None,
            unknown: vec!["`present: 0`: the device has no battery".to_owned()],
        });
    }
    // The driver's placeholder temperature: what else reads 0 was never read either.
    let driver_down = field("temperature") == Some(DRIVER_DOWN_TEMPERATURE);
    let placeholder = |key: &str| {
        format!(
            "`{key}: 0` beside `temperature: {DRIVER_DOWN_TEMPERATURE}`: BatteryService's fallbacks when its battery driver does not answer, not a state it read"
        )
    };
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
        Some(0) if driver_down => {
            unknown.push(placeholder("chargingStatus"));
            None
        }
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
        Some(0) if driver_down => {
            unknown.push(placeholder("pluggedType"));
            None
        }
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
        Some(DRIVER_DOWN_TEMPERATURE) => {
            unknown.push(format!(
                "`temperature: {DRIVER_DOWN_TEMPERATURE}`: INVALID_BATT_TEMP_VALUE, what BatteryService prints when its battery driver does not answer"
            ));
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
        now_current_ma: field("nowCurrent"),
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
        let temperature = crate::probe::sysfs::millicelsius(temperature)
            .map_err(|why| DumpError::Empty(format!("zone {name}: `{}`: {why}", quoted())))?;
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
mod tests;
