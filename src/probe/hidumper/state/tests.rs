//! The state services' dumps (battery, power, thermal, display, lock, screen) per release.

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
            now_current_ma: None,
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
    // A zone printing a whole °C is that many thousand m°C: 45 °C is hotter than 38.5 °C.
    let mixed = block(
        "ThermalService",
        "Type: shell_front\nTemperature: 38500\nType: pa_thermal\nTemperature: 45\n",
    );
    let zones = thermal_zones(&mixed).unwrap();
    assert_eq!(
        zones.iter().map(|z| z.temperature).collect::<Vec<_>>(),
        [38500, 45000]
    );
    // One zone that does not read makes the reading unread, its line quoted: the hottest
    // of the rest is not the phone's hottest.
    for (body, said) in [
        (
            "Type: soc_thermal\nTemperature: 99000x\nType: shell_front\nTemperature: 36000\n",
            "`Temperature: 99000x` is not a whole number",
        ),
        (
            "Type: soc_thermal\nTemperature: 9990000\n",
            "neither °C nor m°C that a phone can be at",
        ),
        // A sensor that is not there is no cold zone: the rest are not the phone's all.
        (
            "Type: soc_thermal\nTemperature: 47000\nType: battery\nTemperature: -1\n",
            "at or below 0",
        ),
        ("Type: soc_thermal\nTemperature: 0\n", "at or below 0"),
        (
            "Type: soc_thermal\nTemperature: 420\n",
            "neither °C nor m°C",
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
    assert!(!screen_locked(&lock("false"), None).unwrap());
    assert!(screen_locked(&lock("true"), None).unwrap());
    assert!(screen_locked("", None).is_err());
    // 3.2 to 5.0.3 (`screenlock_system_ability.cpp` RegisterDumpCommand): no user id, a
    // description after the value.
    let before_5_1 = |state: &str| {
        format!(
            " * deviceLocked  \t\t{state}\t\twhether there is device locked\n * screenLocked  \t\t{state}\t\twhether there is lock screen status\n"
        )
    };
    assert!(!screen_locked(&before_5_1("false"), None).unwrap());
    assert!(screen_locked(&before_5_1("true"), None).unwrap());
}
