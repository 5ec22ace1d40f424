//! RenderService's screens: each one's power, render size, physical size and active mode.

use super::{DumpError, re, require_block};
use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

/// One screen of `hidumper -s RenderService -a screen`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Screen {
    /// Screen id.
    pub(crate) id: String,
    /// Power status (`POWER_STATUS_ON`, …).
    pub(crate) power: Option<String>,
    /// Render resolution in px (the space of layout bounds and screenshots).
    pub render: Option<(u32, u32)>,
    /// Physical resolution in px.
    pub(crate) physical: Option<(u32, u32)>,
    /// A virtual screen.
    pub(crate) is_virtual: bool,
    /// The active refresh rate in Hz.
    pub refresh_hz: Option<u32>,
}

pub(super) static SCREEN_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^\s*screen\[(\d+)\]:\s*id=(\w+)"));
pub(super) static POWER: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)powerstatus=(\w+)"));
pub(super) static RENDER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)render (?:size:\s*|resolution=)(\d+)x(\d+)"));
pub(super) static PHYSICAL: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)physical (?:screen )?resolution[:=]\s*(\d+)x(\d+)"));
pub(super) static VIRTUAL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)isvirtual=(true|false)"));
pub(super) static ACTIVE_MODE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)activeMode:\s*\d+x\d+,\s*refreshrate=(\d+)"));

/// Parses `-a screen` in the 5.x and 6.x field names.
pub fn screens(dump: &str) -> Result<Vec<Screen>, DumpError> {
    require_block(dump, "RenderService")?;
    let size = |re: &Regex, line: &str| {
        re.captures(line)
            .and_then(|c| Some((c[1].parse().ok()?, c[2].parse().ok()?)))
    };
    let mut screens: Vec<Screen> = Vec::new();
    for line in dump.lines() {
        if let Some(c) = SCREEN_LINE.captures(line) {
            screens.push(Screen {
                id: c[2].to_owned(),
                power: POWER.captures(line).map(|p| p[1].to_owned()),
                render: size(&RENDER, line),
                physical: size(&PHYSICAL, line),
                is_virtual: VIRTUAL
                    .captures(line)
                    .is_some_and(|v| v[1].eq_ignore_ascii_case("true")),
                refresh_hz: None,
            });
        } else if let (Some(screen), Some(c)) = (screens.last_mut(), ACTIVE_MODE.captures(line)) {
            screen.refresh_hz = c[1].parse().ok();
        }
    }
    if screens.is_empty() {
        return Err(DumpError::Empty("no `screen[n]:` line".to_owned()));
    }
    Ok(screens)
}

pub(super) fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}
