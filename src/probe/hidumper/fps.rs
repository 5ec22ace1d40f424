//! RenderService's frame-rate dump: each surface's block of present times, and its summary.

use super::{DumpError, re, require_block, round3};
use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

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

pub(super) static FPS_TITLE: LazyLock<Regex> = LazyLock::new(|| {
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

pub(super) static FPS_COUNT: LazyLock<Regex> =
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
