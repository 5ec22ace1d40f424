//! hidumper output: RenderService `fps` and `fpsCount` and `screen`, `--mem <pid>`, the
//! device's state (battery, power, thermal zones) and the WindowManagerService window table (research/hdc-hidumper.md §2). Field names changed
//! between HarmonyOS 5.x and 6.x, so every pattern is case-insensitive and accepts both.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

mod cpu;
mod memory;
mod state;
mod windows;

pub use cpu::{CpuUsage, cpu_usage};
pub use memory::{MemoryTotal, memory_total};
pub use state::{
    Battery, Brightness, PowerState, ThermalZone, battery, brightness, power_state, screen_locked,
    thermal_zones,
};
pub use windows::{Window, WindowTable, windows};

/// Why a dump could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DumpError {
    /// The dump lacks the block it should hold (unknown SA name, wrong command).
    #[error("no `{0}` block in the dump")]
    MissingBlock(String),
    /// hidumper said so.
    #[error("hidumper: {0}")]
    Hidumper(String),
    /// The block is there but holds nothing usable.
    #[error("{0}")]
    Empty(String),
}

pub(crate) fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static regex")
}

static SA_HEADER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^-{10,}\s*([A-Za-z0-9_]+)\s*-{10,}\s*$"));
pub(crate) static HIDUMPER_ERROR: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^hidumper: (.+)$"));

/// Checks that the dump holds the block of system ability `name` (or hidumper's own error).
pub(crate) fn require_block(dump: &str, name: &str) -> Result<(), DumpError> {
    if let Some(error) = HIDUMPER_ERROR.captures(dump) {
        return Err(DumpError::Hidumper(error[1].trim().to_owned()));
    }
    if SA_HEADER.captures_iter(dump).any(|c| &c[1] == name) {
        Ok(())
    } else {
        Err(DumpError::MissingBlock(name.to_owned()))
    }
}

/// One block of an `fps` dump: a screen, a surface or a window, and its present times.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FpsBlock {
    /// `screen [Id:0]`, `surface [UniRender]`, `window [note0]`.
    pub title: String,
    /// Present times, ns CLOCK_MONOTONIC, sorted, without duplicates or empty slots.
    pub(crate) presents_ns: Vec<u64>,
}

/// Frame rate over the window the records cover.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FpsSummary {
    /// The block measured.
    pub(crate) title: String,
    /// Frames recorded.
    pub(crate) frames: usize,
    /// First to last present.
    pub(crate) window_ms: f64,
    /// Frames per second over that window.
    pub fps: Option<f64>,
    /// Longest interval between presents.
    pub(crate) max_interval_ms: Option<f64>,
}

static FPS_TITLE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:The fps of (screen \[Id:\d+\]) is:|((?:surface|window) \[.*?\])(?: (?:Id|NodeId)\[\d+\])?:)\s*$",
    )
});

/// Parses `hidumper -s RenderService -a "<name> fps"`: records in either order (5.0 prints
/// oldest first, later versions newest first), zero slots of the ring dropped, and
/// `flush:present` pairs (≥ 6.1) read by their present half.
pub fn fps_blocks(dump: &str) -> Result<Vec<FpsBlock>, DumpError> {
    require_block(dump, "RenderService")?;
    let mut blocks: Vec<FpsBlock> = Vec::new();
    for line in dump.lines() {
        if let Some(c) = FPS_TITLE.captures(line) {
            let title = c.get(1).or(c.get(2)).map_or("", |m| m.as_str()).to_owned();
            blocks.push(FpsBlock {
                title,
                presents_ns: Vec::new(),
            });
            continue;
        }
        let Some(block) = blocks.last_mut() else {
            continue;
        };
        let record = line.trim();
        let present = record.rsplit(':').next().unwrap_or(record);
        // Zero is an unused slot of the ring; anything else non-numeric is not a record.
        if let Ok(ns) = present.trim().parse::<u64>()
            && ns > 0
        {
            block.presents_ns.push(ns);
        }
    }
    for block in &mut blocks {
        block.presents_ns.sort_unstable();
        block.presents_ns.dedup();
    }
    if blocks.is_empty() {
        return Err(DumpError::Empty("the dump holds no fps records (a normal ArkUI window name returns only the header: use UniRender)".to_owned()));
    }
    Ok(blocks)
}

impl FpsBlock {
    /// The frame rate over the records (optionally only those at or after `since_ns`).
    pub fn summary(&self, since_ns: Option<u64>) -> FpsSummary {
        let presents: Vec<u64> = self
            .presents_ns
            .iter()
            .copied()
            .filter(|p| since_ns.is_none_or(|s| *p >= s))
            .collect();
        let window = match (presents.first(), presents.last()) {
            (Some(first), Some(last)) => last - first,
            _ => 0,
        };
        let max_interval = presents.windows(2).map(|w| w[1] - w[0]).max();
        FpsSummary {
            title: self.title.clone(),
            frames: presents.len(),
            window_ms: round3(window as f64 / 1e6),
            fps: (window > 0).then(|| round3((presents.len() - 1) as f64 / (window as f64 / 1e9))),
            max_interval_ms: max_interval.map(|m| round3(m as f64 / 1e6)),
        }
    }
}

static FPS_COUNT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)Refresh Rate:\s*(\d+),\s*Count:\s*(\d+)"));

/// `hidumper -s RenderService -a fpsCount`: composed frames per refresh rate.
pub fn fps_count(dump: &str) -> Result<Vec<(u32, u64)>, DumpError> {
    require_block(dump, "RenderService")?;
    if !dump.contains("RefreshRateCounts") {
        return Err(DumpError::MissingBlock("-- RefreshRateCounts:".to_owned()));
    }
    Ok(FPS_COUNT
        .captures_iter(dump)
        .filter_map(|c| Some((c[1].parse().ok()?, c[2].parse().ok()?)))
        .collect())
}

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

static SCREEN_LINE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^\s*screen\[(\d+)\]:\s*id=(\w+)"));
static POWER: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)powerstatus=(\w+)"));
static RENDER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)render (?:size:\s*|resolution=)(\d+)x(\d+)"));
static PHYSICAL: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)physical (?:screen )?resolution[:=]\s*(\d+)x(\d+)"));
static VIRTUAL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)isvirtual=(true|false)"));
static ACTIVE_MODE: LazyLock<Regex> =
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

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const RS: &str = "-------------------------------[ability]-------------------------------\n\n\n----------------------------------RenderService---------------------------------\n";

    #[test]
    fn fps_records_in_both_orders_with_empty_slots_and_flush_pairs() {
        let oldest_first = format!(
            "{RS}-- The recently fps records info of screens:\n\nThe fps of screen [Id:0] is:\n1000000000\n1016666666\n1033333333\n0\n0\n"
        );
        let newest_first = format!(
            "{RS}-- The recently fps records info of screens:\n surface [UniRender] Id[12]:\n1033333333\n1016666666\n1000000000\n0\n"
        );
        let pairs = format!(
            "{RS}-- The recently fps records info of screens:\n surface [XComponent]:\n990000000:1033333333\n980000000:1016666666\n970000000:1000000000\n0:0\n"
        );
        for (dump, title) in [
            (oldest_first, "screen [Id:0]"),
            (newest_first, "surface [UniRender]"),
            (pairs, "surface [XComponent]"),
        ] {
            let blocks = fps_blocks(&dump).unwrap();
            assert_eq!(blocks[0].title, title);
            assert_eq!(
                blocks[0].presents_ns,
                [1_000_000_000, 1_016_666_666, 1_033_333_333]
            );
            let summary = blocks[0].summary(None);
            assert_eq!(
                (summary.frames, summary.fps, summary.window_ms),
                (3, Some(60.0), 33.333)
            );
        }
        assert!(matches!(
            fps_blocks(&format!(
                "{RS}-- The recently fps records info of screens:\n"
            )),
            Err(DumpError::Empty(_))
        ));
        assert!(matches!(
            fps_blocks("garbage"),
            Err(DumpError::MissingBlock(_))
        ));
    }

    #[test]
    fn fps_count_screen_memory_and_windows() {
        let counts = format!(
            "{RS}-- RefreshRateCounts: \nRefresh Rate:60, Count:320565;\nRefresh Rate:120, Count:6597;\n"
        );
        assert_eq!(fps_count(&counts).unwrap(), [(60, 320_565), (120, 6597)]);
        let new_screen = format!(
            "{RS}-- ScreenInfo\nscreen[0]: id=0, powerStatus=POWER_STATUS_ON, backlight=16920, screenType=EXTERNAL_TYPE, render resolution=1152x2520, physical resolution=1280x2800, isVirtual=false, skipFrameInterval=1\nsupportedMode[0]: 1280x2800, refreshRate=60\nactiveMode: 1280x2800, refreshRate=120\n"
        );
        let screen = &screens(&new_screen).unwrap()[0];
        assert_eq!(
            (screen.render, screen.physical, screen.refresh_hz),
            (Some((1152, 2520)), Some((1280, 2800)), Some(120))
        );
        assert_eq!(screen.power.as_deref(), Some("POWER_STATUS_ON"));
    }
}
