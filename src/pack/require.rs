//! Preconditions on the device's state: what a device must say of itself before its runs for
//! its audit to mean anything (`battery >= 80%`, `charging: false`, `screen-lock: off`). A pack
//! seals the minimum every audit of it needs (`require:`); a lab's `dwpipe.yaml`
//! (`device.require`) and `audit --require` add their own. All of them hold at once, so a
//! lab can tighten a pack's and never loosen them.

use std::fmt;

/// A reading of the device's state a condition is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The battery's charge, percent.
    Battery,
    /// The battery's temperature, °C.
    BatteryTemperature,
    /// The hottest thermal zone's temperature, in its own unit (usually m°C).
    HottestZone,
    /// Whether the battery is charging.
    Charging,
    /// Whether the screen is locked.
    ScreenLock,
    /// The active refresh rate, Hz.
    RefreshRate,
    /// How a foldable is folded: `folded`, `half-folded` or `expanded` (0, 1, 2).
    Fold,
}

/// The fold states a condition names, by their value.
pub(crate) const FOLDS: [&str; 3] = ["folded", "half-folded", "expanded"];

impl Reading {
    const ALL: [(Reading, &'static str); 7] = [
        (Reading::Battery, "battery"),
        (Reading::BatteryTemperature, "battery-temperature"),
        (Reading::HottestZone, "hottest-zone"),
        (Reading::Charging, "charging"),
        (Reading::ScreenLock, "screen-lock"),
        (Reading::RefreshRate, "refresh-rate"),
        (Reading::Fold, "fold"),
    ];

    /// Its name in a condition.
    pub fn name(self) -> &'static str {
        Reading::ALL
            .iter()
            .find(|(r, _)| *r == self)
            .map_or("?", |(_, name)| name)
    }

    fn is_switch(self) -> bool {
        matches!(self, Reading::Charging | Reading::ScreenLock)
    }
}

/// How a reading is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// `>=`.
    AtLeast,
    /// `>`.
    Above,
    /// `<=`.
    AtMost,
    /// `<`.
    Below,
    /// `=` (or `:`).
    Equal,
}

impl Compare {
    fn symbol(self) -> &'static str {
        match self {
            Compare::AtLeast => ">=",
            Compare::Above => ">",
            Compare::AtMost => "<=",
            Compare::Below => "<",
            Compare::Equal => "=",
        }
    }

    /// Whether `value` compares so to `bound`.
    pub fn holds(self, value: f64, bound: f64) -> bool {
        match self {
            Compare::AtLeast => value >= bound,
            Compare::Above => value > bound,
            Compare::AtMost => value <= bound,
            Compare::Below => value < bound,
            Compare::Equal => (value - bound).abs() < 1e-9,
        }
    }
}

/// One precondition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Condition {
    /// What it reads.
    pub reading: Reading,
    /// How.
    pub compare: Compare,
    /// Against what: a number, or for a switch 1 (on/true) or 0 (off/false).
    pub bound: f64,
}

impl Condition {
    /// Parses `battery >= 80%`, `battery-temperature <= 40`, `charging: false`,
    /// `screen-lock: off`, `refresh-rate = 120`.
    pub fn parse(text: &str) -> Result<Condition, String> {
        let names = Reading::ALL.map(|(_, n)| n).join(", ");
        let text = text.trim();
        let (name, rest) = text
            .split_once(|c: char| c.is_whitespace() || matches!(c, ':' | '<' | '>' | '='))
            .map(|(n, _)| (n, &text[n.len()..]))
            .ok_or_else(|| {
                format!("`{text}` is not a condition: write `<reading> <op> <value>`, like `battery >= 80%` (readings: {names})")
            })?;
        let reading = Reading::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(r, _)| *r)
            .ok_or_else(|| {
                format!("`{name}` is not a reading of the device's state (readings: {names})")
            })?;
        let rest = rest.trim_start();
        let (compare, value) = [
            (">=", Compare::AtLeast),
            ("<=", Compare::AtMost),
            (">", Compare::Above),
            ("<", Compare::Below),
            ("=", Compare::Equal),
            (":", Compare::Equal),
        ]
        .iter()
        .find_map(|(symbol, compare)| rest.strip_prefix(symbol).map(|v| (*compare, v.trim())))
        .ok_or_else(|| format!("`{text}`: compare with >=, >, <=, <, = or `:`"))?;
        let bound = if reading == Reading::Fold {
            if compare != Compare::Equal {
                return Err(format!(
                    "`{text}`: `fold` is a state: write `fold: {}`",
                    FOLDS.join("|")
                ));
            }
            FOLDS
                .iter()
                .position(|f| *f == value)
                .map(|i| i as f64)
                .ok_or_else(|| format!("`{text}`: `fold` is one of {}", FOLDS.join(", ")))?
        } else if reading.is_switch() {
            if compare != Compare::Equal {
                return Err(format!(
                    "`{text}`: `{name}` is on or off: write `{name}: on|off`"
                ));
            }
            match value {
                "on" | "true" | "yes" => 1.0,
                "off" | "false" | "no" => 0.0,
                _ => return Err(format!("`{text}`: `{name}` is on or off")),
            }
        } else {
            let number = value.strip_suffix('%').unwrap_or(value).trim();
            let number = number
                .strip_suffix("°C")
                .or_else(|| number.strip_suffix("Hz"))
                .unwrap_or(number)
                .trim();
            number
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .ok_or_else(|| format!("`{text}`: `{value}` is not a number"))?
        };
        Ok(Condition {
            reading,
            compare,
            bound,
        })
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.reading.name();
        match self.reading {
            Reading::Charging | Reading::ScreenLock => {
                let word = if self.bound > 0.5 { "on" } else { "off" };
                write!(f, "{name}: {word}")
            }
            Reading::Fold => {
                let word = FOLDS.get(self.bound as usize).copied().unwrap_or("?");
                write!(f, "{name}: {word}")
            }
            Reading::Battery => write!(f, "{name} {} {}%", self.compare.symbol(), self.bound),
            _ => write!(f, "{name} {} {}", self.compare.symbol(), self.bound),
        }
    }
}

#[cfg(test)]
mod tests;
