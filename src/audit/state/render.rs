//! The state reply a fake or replayed device gives when its capture recorded none: every
//! service as its printer writes it, for a phone at rest.

use std::fmt::Write;

use super::{FIELDS, MARKER};

/// What a fake or replayed device answers to `command`: a phone at rest (charged, awake,
/// cool, unlocked), `state` changing what a scenario says otherwise.
pub fn render(
    battery: u32,
    charging: u8,
    temperature_tenths: i32,
    locked: bool,
    hz: u32,
) -> String {
    let header = |name: &str| {
        format!(
            "\n-------------------------------[ability]-------------------------------\n\n\n----------------------------------{name}---------------------------------\n"
        )
    };
    let mut reply = String::new();
    for (field, _) in FIELDS {
        let _ = writeln!(reply, "{MARKER}{field}");
        let body = match field {
            "battery" => format!(
                "{}capacity: {battery} \nchargingStatus: {charging} \nhealthState: 1 \npluggedType: {} \npresent: 1 \ntemperature: {temperature_tenths} \n",
                header("BatteryService"),
                if charging == 0 { 0 } else { 2 }
            ),
            "power" => format!(
                "{}POWER STATE DUMP:\nCurrent State: AWAKE  Reason: 20  Time: 100\nScreenOffTime: Timeout=600000ms\n",
                header("PowerManagerService")
            ),
            "thermal" => format!(
                "{}Type: soc_thermal\nTemperature: 36000\nType: shell_front\nTemperature: 31000\n",
                header("ThermalService")
            ),
            "display" => format!(
                "{}DISPLAY POWER MANAGER DUMP:\nDisplay Id=0 State=2 Discount=1.000000 Brightness=120\nDeviceBrightness=120\nSupport Ambient Light: TRUE\nAuto Adjust Brightness: OFF\nBrightness Limits: Max=255 Min=5 Default=102\n",
                header("DisplayPowerManagerService")
            ),
            "lock" => format!(
                "{} * deviceLocked  \t\t{locked}\t\t100\n * screenLocked  \t\t{locked}\t\t100\n",
                header("ScreenlockService")
            ),
            "users" => format!(
                "{}OsAccount info:\n    ID: 100\n    \tName: O**r\n    \tType: admin\n    \tStatus: active\n    \tisForeground: 1\n    \tdispalyId: 0\n",
                header("AccountMgr")
            ),
            "displays" => format!(
                "{}---------------- Screen ID: 0 ----------------\nPhysicalFoldStatus:           UNKNOWN\nFoldLockStatus:               UNLOCKED\nDisplayFoldStatus:            UNKNOWN\n[SCREEN SESSION]\nDisplayId:                    0\nactiveModes<id, W, H, RS>:    0, 1260, 2720, {hz}\n[SCREEN INFO]\nVirtualPixelRatio:            3.25\n",
                header("DisplayManagerService")
            ),
            _ => format!(
                "{}-- ScreenInfo\nscreen[0]: id=0, powerstatus=POWER_STATUS_ON, render size: 1260x2720, physical screen resolution: 1260x2720, isvirtual=false\n  activeMode: 1260x2720, refreshrate={hz}\n",
                header("RenderService")
            ),
        };
        reply.push_str(&body);
    }
    reply
}
