//! The state call's reply read into a [`DeviceState`]: each service's section behind its
//! marker, judged by its own printer's text; a section that is missing or says nothing usable
//! is named unread with why.

use super::{DeviceState, FIELDS, MARKER, Zone};
use crate::probe::hidumper;

/// Reads the reply of `command`.
pub(crate) fn parse(reply: &str) -> DeviceState {
    let mut state = DeviceState::default();
    // Not a reading: who the foreground user is, for the lock (absent from states recorded
    // before dwpipe asked, and from releases that print one lock line).
    let foreground = section(reply, "users").and_then(hidumper::foreground_user);
    for (field, command) in FIELDS.into_iter().filter(|(field, _)| *field != "users") {
        let body = section(reply, field);
        let mut unread = |why: String| state.unread.push(format!("{field} (`{command}`): {why}"));
        let Some(body) = body else {
            unread("not in the reply".to_owned());
            continue;
        };
        match field {
            "battery" => match hidumper::battery(body) {
                Ok(b) => {
                    state.battery_percent = b.capacity_percent;
                    state.charging = b.charging.map(str::to_owned);
                    state.plugged = b.plugged.map(str::to_owned);
                    state.battery_temperature_c = b.temperature_c;
                    for why in b.unknown {
                        unread(why);
                    }
                }
                Err(e) => unread(e.to_string()),
            },
            "power" => match hidumper::power_state(body) {
                Ok(p) => state.power_state = Some(p.state),
                Err(e) => unread(e.to_string()),
            },
            "thermal" => match hidumper::thermal_zones(body) {
                Ok(zones) => {
                    state.thermal = zones
                        .into_iter()
                        .map(|z| Zone {
                            zone: z.zone,
                            temperature: z.temperature,
                        })
                        .collect();
                }
                Err(e) => unread(e.to_string()),
            },
            "display" => match hidumper::brightness(body) {
                Ok(b) => {
                    state.brightness = Some(b.level);
                    state.auto_brightness = b.auto;
                }
                Err(e) => unread(e.to_string()),
            },
            "lock" => match hidumper::screen_locked(body, foreground) {
                Ok(locked) => state.screen_locked = Some(locked),
                Err(e) => unread(e.to_string()),
            },
            "displays" => match hidumper::displays(body) {
                Ok(read) => {
                    state.fold = read.fold.map(str::to_owned);
                    state.displays = read.displays;
                }
                Err(e) => unread(e.to_string()),
            },
            _ => match hidumper::screens(body)
                .ok()
                .and_then(|s| s.into_iter().find_map(|s| s.refresh_hz))
            {
                Some(hz) => state.refresh_hz = Some(hz),
                None => unread("no active mode's refresh rate".to_owned()),
            },
        }
    }
    state
}

/// The text of `field` in the reply, when its marker is there.
fn section<'a>(reply: &'a str, field: &str) -> Option<&'a str> {
    reply.split(MARKER).skip(1).find_map(|section| {
        let (name, body) = section.split_once('\n').unwrap_or((section, ""));
        (name.trim() == field).then_some(body)
    })
}
