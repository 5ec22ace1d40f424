//! The device's state read, judged against preconditions and told apart run to run.

use super::*;
use crate::device::state_command as command;

#[test]
fn the_state_reads_back_from_its_reply_and_names_what_did_not_read() {
    let state = parse(&render(15, 1, 412, true, 120));
    assert_eq!(state.battery_percent, Some(15));
    assert_eq!(state.charging.as_deref(), Some("charging"));
    assert_eq!(state.plugged.as_deref(), Some("usb"));
    assert_eq!(state.battery_temperature_c, Some(41.2));
    assert_eq!(state.power_state.as_deref(), Some("AWAKE"));
    assert_eq!(state.thermal.len(), 2);
    assert_eq!(
        (state.brightness, state.auto_brightness),
        (Some(120), Some(false))
    );
    assert_eq!(state.screen_locked, Some(true));
    assert_eq!(state.refresh_hz, Some(120));
    assert!(state.unread.is_empty(), "{:?}", state.unread);
    // A phone at rest does not fold: one display, no fold state.
    assert_eq!((state.fold.as_deref(), state.displays.len()), (None, 1));
    assert_eq!(
        state.summary(),
        "battery 15% charging 41.2 °C · power AWAKE · hottest zone soc_thermal 36000 · brightness 120 · screen locked · 120 Hz"
    );
    // A service that is not there, or says nothing usable, is named with why.
    let reply = render(90, 0, 300, false, 60)
        .replace("Current State: AWAKE", "Current: ?")
        .replace("hidumper -s", "");
    let without_lock: String = {
        let at = reply.find(&format!("{MARKER}lock")).unwrap();
        let end = reply.find(&format!("{MARKER}screen")).unwrap();
        format!(
            "{}{MARKER}lock\nhidumper: No such ability\n{}",
            &reply[..at],
            &reply[end..]
        )
    };
    let state = parse(&without_lock);
    assert_eq!(state.power_state, None);
    assert_eq!(state.screen_locked, None);
    assert_eq!(state.unread.len(), 2, "{:?}", state.unread);
    assert!(
        state.unread[0].starts_with(
            "power (`hidumper -s PowerManagerService -a -s`): no `Current State:` line"
        )
    );
    assert!(state.unread[1].contains("hidumper: No such ability"));
    assert_eq!(parse("").unread.len(), 7);
    assert!(!command().as_str().contains('"'));
}

/// `fold:` holds on a foldable in that state; on a phone that does not fold, or whose
/// displays did not read, it is unknown and never met.
#[test]
fn a_fold_state_is_a_precondition() {
    let required = |condition: &str| Required {
        condition: condition.to_owned(),
        by: "the pack".to_owned(),
    };
    let folded = DeviceState {
        fold: Some("folded".to_owned()),
        displays: parse(&render(90, 0, 300, false, 60)).displays,
        ..DeviceState::default()
    };
    assert_eq!(folded.against(&required("fold: folded")), Ok(()));
    assert_eq!(
        folded.against(&required("fold: expanded")),
        Err("`fold: expanded` (the pack): the phone is folded".to_owned())
    );
    let flat = DeviceState {
        fold: None,
        ..folded.clone()
    };
    let said = flat.against(&required("fold: folded")).unwrap_err();
    assert!(said.contains("the phone does not fold"), "{said}");
    let said = DeviceState::default()
        .against(&required("fold: folded"))
        .unwrap_err();
    assert!(said.contains("not ready: unknown"), "{said}");
}

/// A state that says nothing (a charging code no enum names, a zone that does not read)
/// meets no precondition, asked either way, and says why.
#[test]
fn an_unknown_state_never_meets_a_precondition() {
    let required = |condition: &str| Required {
        condition: condition.to_owned(),
        by: "--require".to_owned(),
    };
    let unknown =
        parse(&render(90, 0, 300, false, 60).replace("chargingStatus: 0", "chargingStatus: 7"));
    for asked in ["charging: off", "charging: on"] {
        let why = unknown.against(&required(asked)).unwrap_err();
        assert!(why.contains("not ready: unknown"), "{asked}: {why}");
    }
    let hot =
        parse(&render(90, 0, 300, false, 60).replace("Temperature: 31000", "Temperature: 99000x"));
    for asked in ["hottest-zone < 45000", "hottest-zone > 0"] {
        let why = hot.against(&required(asked)).unwrap_err();
        assert!(why.contains("not ready: unknown"), "{asked}: {why}");
        assert!(why.contains("99000x"), "{asked}: {why}");
    }
    // A known state still meets what it meets.
    let fine = parse(&render(90, 0, 300, false, 60));
    assert!(fine.against(&required("charging: off")).is_ok());
    assert!(fine.against(&required("hottest-zone < 45000")).is_ok());
}

/// BatteryService's fallbacks with its driver down (5.0+: `temperature: 100`; 6.0:
/// `chargingStatus: 0`, `pluggedType: 0`) are no state: `charging: off` is not met on them.
#[test]
fn the_battery_drivers_fallbacks_are_unknown() {
    let down = parse(&render(80, 0, 100, false, 60));
    assert_eq!(
        (
            down.battery_percent,
            down.charging.as_deref(),
            down.plugged.as_deref(),
            down.battery_temperature_c
        ),
        (Some(80), None, None, None)
    );
    assert_eq!(down.unread.len(), 3, "{:?}", down.unread);
    assert!(
        down.unread
            .iter()
            .any(|u| u.contains("INVALID_BATT_TEMP_VALUE"))
    );
    assert!(
        down.unread
            .iter()
            .any(|u| u.contains("`chargingStatus: 0` beside `temperature: 100`"))
    );
    let why = down
        .against(&Required {
            condition: "charging: off".to_owned(),
            by: "--require".to_owned(),
        })
        .unwrap_err();
    assert!(why.contains("not ready: unknown"), "{why}");
    // 10.1 °C is a cold battery, not the placeholder; a discharging battery reads so.
    let cold = parse(&render(80, 0, 101, false, 60));
    assert_eq!(
        (cold.charging.as_deref(), cold.battery_temperature_c),
        (Some("discharging"), Some(10.1))
    );
}

/// 5.1+ prints one lock line a user: the foreground user's decides, never any user's.
#[test]
fn the_foreground_users_lock_decides() {
    let two_users = |foreground: &str| {
        render(90, 0, 300, false, 60)
            .replace(
                " * screenLocked  \t\tfalse\t\t100\n",
                " * screenLocked  \t\tfalse\t\t100\n * screenLocked  \t\ttrue\t\t101\n",
            )
            .replace(
                "    ID: 100\n",
                &format!(
                    "    ID: 101\n    \tisForeground: {}\n    ID: 100\n",
                    u8::from(foreground == "101")
                ),
            )
            .replace(
                "\tisForeground: 1\n    \tdispalyId",
                &format!(
                    "\tisForeground: {}\n    \tdispalyId",
                    u8::from(foreground == "100")
                ),
            )
    };
    // User 100 in front and unlocked; a private space (101) locked behind it.
    assert_eq!(parse(&two_users("100")).screen_locked, Some(false));
    assert_eq!(parse(&two_users("101")).screen_locked, Some(true));
    // Nobody said who is in front: unknown, with both users' states.
    let unknown = parse(&two_users("none"));
    assert_eq!(unknown.screen_locked, None);
    assert!(
        unknown
            .unread
            .iter()
            .any(|u| u.contains("user 100 unlocked, user 101 locked")
                && u.contains("foreground user was not read")),
        "{:?}",
        unknown.unread
    );
    // Before 5.1: one line, no user.
    let old = render(90, 0, 300, false, 60).replace(
        " * screenLocked  \t\tfalse\t\t100\n",
        " * screenLocked  \t\ttrue\t\twhether there is lock screen status\n",
    );
    assert_eq!(parse(&old).screen_locked, Some(true));
}
