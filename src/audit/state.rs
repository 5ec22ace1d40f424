//! The device's state before and after its runs: battery, power state, thermal zones, screen
//! brightness and lock, the refresh rate. Two audits of one build on one phone differ when the
//! phone differs (a battery at 15 %, a hot phone, a panel switching rates), so each audit keeps
//! what its device said, in one shell call before its first visit and one after its last
//! (`state-before.txt`, `state-after.txt`, among the hashed inputs), and reads it from there:
//! `verify-evidence` reads the same files the same way. Each reading is judged by its service's
//! own text; one that does not read is named, never guessed.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::pack::{Condition, Reading};
use crate::probe::hidumper;

/// The evidence file of the state before the runs.
pub(crate) const BEFORE: &str = "state-before.txt";
/// The evidence file of the state after them.
pub(crate) const AFTER: &str = "state-after.txt";

use crate::device::{STATE_FIELDS as FIELDS, STATE_MARKER as MARKER};

/// What a device said of its state at one moment.
#[derive(schemars::JsonSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct DeviceState {
    /// The battery's charge, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_percent: Option<u32>,
    /// `charging`, `discharging`, `not-charging` or `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charging: Option<String>,
    /// `none`, `ac`, `usb` or `wireless`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugged: Option<String>,
    /// The battery's temperature, °C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_temperature_c: Option<f64>,
    /// The power state (`AWAKE`, `INACTIVE`, `SLEEP`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_state: Option<String>,
    /// Each thermal zone and its temperature, in m°C.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thermal: Vec<Zone>,
    /// The screen's brightness level (0–255).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brightness: Option<u32>,
    /// Whether the brightness follows the light sensor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_brightness: Option<bool>,
    /// Whether the screen is locked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_locked: Option<bool>,
    /// The active refresh rate, Hz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_hz: Option<u32>,
    /// How a foldable is folded (`expanded`, `folded`, `half-folded`); absent on a phone that
    /// does not fold, and in states recorded before dwpipe read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fold: Option<String>,
    /// The displays, each with its size and density (absent in states recorded before dwpipe
    /// read them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub displays: Vec<hidumper::Display>,
    /// Each reading that did not read, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
}

/// One thermal zone's temperature.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Zone {
    /// The zone (`soc_thermal`, `shell_front`, …).
    pub zone: String,
    /// Its temperature in m°C (a zone printing a whole °C converted as it was read).
    pub temperature: i64,
}

/// The state before a device's runs and after them, held to what the audit required.
#[derive(schemars::JsonSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct DeviceStates {
    /// Before its first visit.
    pub before: DeviceState,
    /// After its last (absent when the audit stopped before its end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<DeviceState>,
    /// Each precondition the device did not meet before its runs, with its reading: nothing
    /// was measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmet: Vec<String>,
    /// Each precondition that held before the runs and no longer did after them: every
    /// measurement may have been taken after it stopped holding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
}

/// A precondition and who asked for it (`the pack`, `dwpipe.yaml`, `--require`).
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Required {
    /// The condition, as [`Condition`] shows it.
    pub condition: String,
    /// Who asked for it.
    pub by: String,
}

impl Required {
    /// `condition`, asked for by `by`.
    pub(crate) fn new(condition: &Condition, by: &str) -> Required {
        Required {
            condition: condition.to_string(),
            by: by.to_owned(),
        }
    }
}

impl DeviceStates {
    /// Holds the states to `required`: what did not hold before the runs, and what held
    /// before and not after.
    pub(crate) fn judge(&mut self, required: &[Required]) {
        self.unmet = required
            .iter()
            .filter_map(|r| self.before.against(r).err())
            .collect();
        self.changed = match &self.after {
            Some(after) => required
                .iter()
                .filter(|r| self.before.against(r).is_ok())
                .filter_map(|r| after.against(r).err())
                .collect(),
            None => Vec::new(),
        };
    }

    /// What the gate says of them: an error for each precondition not met (nothing was
    /// measured), a warning for each that stopped holding during the runs.
    pub(crate) fn diagnostics(&self) -> impl Iterator<Item = Diagnostic> + '_ {
        let unmet = self.unmet.iter().map(|why| {
            Diagnostic::error(
                "E_DEVICE_NOT_READY",
                format!("the device was not audited: {why}"),
            )
            .fix("bring the device to the state required (charge it, let it cool, unlock it), then audit it again")
        });
        let changed = self.changed.iter().map(|why| {
            Diagnostic::warning(
                "W_DEVICE_STATE_CHANGED",
                format!("after the runs, {why}: every measurement may have been taken after it stopped holding"),
            )
            .fix("audit again once the device holds the state for the whole run")
        });
        unmet.chain(changed)
    }
}

impl DeviceState {
    /// The value of `reading` (a switch is 1 on, 0 off), or why it is unknown: a reading
    /// that was not read, or read as a word that says nothing (`unknown`), is never a value.
    fn value(&self, reading: Reading) -> Result<f64, String> {
        let known = match reading {
            Reading::Battery => self.battery_percent.map(f64::from),
            Reading::BatteryTemperature => self.battery_temperature_c,
            Reading::HottestZone => self
                .thermal
                .iter()
                .map(|z| z.temperature as f64)
                .reduce(f64::max),
            Reading::Charging => match self.charging.as_deref() {
                Some("charging") => Some(1.0),
                Some("discharging" | "not-charging" | "full") => Some(0.0),
                Some(other) => {
                    return Err(format!(
                        "the battery's charging state is `{other}`: BatteryService printed no state it names"
                    ));
                }
                None => None,
            },
            Reading::ScreenLock => self.screen_locked.map(|l| if l { 1.0 } else { 0.0 }),
            Reading::RefreshRate => self.refresh_hz.map(f64::from),
            Reading::Fold => match self.fold.as_deref() {
                Some(fold) => crate::pack::FOLDS
                    .iter()
                    .position(|f| *f == fold)
                    .map(|i| i as f64),
                // Its displays were read, and said no fold state: a phone that does not fold.
                None if !self.displays.is_empty() => {
                    return Err(
                        "the phone does not fold (DisplayManagerService's DisplayFoldStatus is UNKNOWN)"
                            .to_owned(),
                    );
                }
                None => None,
            },
        };
        known.ok_or_else(|| {
            // What the reading's service said, when it was asked and did not read.
            let field = match reading {
                Reading::Battery | Reading::BatteryTemperature | Reading::Charging => "battery",
                Reading::HottestZone => "thermal",
                Reading::ScreenLock => "lock",
                Reading::RefreshRate => "screen",
                Reading::Fold => "displays",
            };
            self.unread
                .iter()
                .find(|why| why.starts_with(&format!("{field} ")))
                .cloned()
                .unwrap_or_else(|| format!("the device's {} was not read", reading.name()))
        })
    }

    /// Whether this state meets `required`; else what it said instead.
    pub(crate) fn against(&self, required: &Required) -> Result<(), String> {
        let asked = format!("`{}` ({})", required.condition, required.by);
        let condition = Condition::parse(&required.condition)
            .map_err(|e| format!("{asked} cannot be read: {e}"))?;
        let reading = condition.reading;
        // An unknown state never meets a precondition, whichever way it is asked.
        let value = self
            .value(reading)
            .map_err(|why| format!("{asked}: not ready: unknown ({why})"))?;
        if condition.compare.holds(value, condition.bound) {
            return Ok(());
        }
        let said = match reading {
            Reading::Charging => if value > 0.5 {
                "charging"
            } else {
                "not charging"
            }
            .to_owned(),
            Reading::ScreenLock => if value > 0.5 {
                "the screen is locked"
            } else {
                "the screen is unlocked"
            }
            .to_owned(),
            Reading::Battery => format!("battery {value}%"),
            Reading::BatteryTemperature => format!("battery temperature {value} °C"),
            Reading::HottestZone => format!("hottest zone {value}"),
            Reading::RefreshRate => format!("refresh rate {value} Hz"),
            Reading::Fold => format!(
                "the phone is {}",
                crate::pack::FOLDS
                    .get(value as usize)
                    .copied()
                    .unwrap_or("in an unknown fold state")
            ),
        };
        Err(format!("{asked}: {said}"))
    }

    /// How this state (one arm's, before its runs) differs from `other`'s in what moves
    /// timings: charging, the power state, the refresh rate, the battery's temperature by
    /// 5 °C or more, the hottest zone's by 5000 (5 °C in m°C) or more.
    pub(crate) fn differences(&self, other: &DeviceState) -> Option<String> {
        let mut differs = Vec::new();
        let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "unread".to_owned());
        if self.charging != other.charging {
            differs.push(format!(
                "charging {} against {}",
                shown(&self.charging),
                shown(&other.charging)
            ));
        }
        if self.power_state != other.power_state {
            differs.push(format!(
                "power {} against {}",
                shown(&self.power_state),
                shown(&other.power_state)
            ));
        }
        if let (Some(x), Some(y)) = (self.refresh_hz, other.refresh_hz)
            && x != y
        {
            differs.push(format!("refresh rate {x} Hz against {y} Hz"));
        }
        if let (Some(x), Some(y)) = (self.battery_temperature_c, other.battery_temperature_c)
            && (x - y).abs() >= 5.0
        {
            differs.push(format!("battery temperature {x} °C against {y} °C"));
        }
        let hottest = |s: &DeviceState| s.value(Reading::HottestZone).ok();
        if let (Some(x), Some(y)) = (hottest(self), hottest(other))
            && (x - y).abs() >= 5000.0
        {
            differs.push(format!("hottest zone {x} against {y}"));
        }
        (!differs.is_empty()).then(|| differs.join("; "))
    }

    /// One line for a report: what was read, then what was not.
    pub(crate) fn summary(&self) -> String {
        let mut words = Vec::new();
        if let Some(p) = self.battery_percent {
            let mut battery = format!("battery {p}%");
            if let Some(c) = &self.charging {
                let _ = write!(battery, " {c}");
            }
            if let Some(t) = self.battery_temperature_c {
                let _ = write!(battery, " {t} °C");
            }
            words.push(battery);
        }
        words.extend(self.power_state.as_ref().map(|s| format!("power {s}")));
        if let Some(hottest) = self.thermal.iter().max_by_key(|z| z.temperature) {
            words.push(format!(
                "hottest zone {} {}",
                hottest.zone, hottest.temperature
            ));
        }
        if let Some(b) = self.brightness {
            let auto = match self.auto_brightness {
                Some(true) => " (auto)",
                _ => "",
            };
            words.push(format!("brightness {b}{auto}"));
        }
        words.extend(self.screen_locked.map(|locked| {
            if locked {
                "screen locked"
            } else {
                "screen unlocked"
            }
            .to_owned()
        }));
        words.extend(self.refresh_hz.map(|hz| format!("{hz} Hz")));
        words.extend(self.fold.clone());
        if self.displays.len() > 1 {
            let shown: Vec<String> = self
                .displays
                .iter()
                .map(|d| match d.size {
                    Some([w, h]) => format!("{} {w}×{h}", d.id),
                    None => d.id.to_string(),
                })
                .collect();
            words.push(format!("displays {}", shown.join(", ")));
        }
        if !self.unread.is_empty() {
            words.push(format!("{} reading(s) not read", self.unread.len()));
        }
        if words.is_empty() {
            "nothing read".to_owned()
        } else {
            words.join(" · ")
        }
    }
}

mod read;
mod render;
pub(crate) use read::parse;
pub use render::render;

#[cfg(test)]
mod tests;
