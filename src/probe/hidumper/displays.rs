//! A phone's displays and fold state, from SceneBoard's DisplayManagerService dumper
//! (`hidumper -s DisplayManagerService -a -a`, window_manager
//! `screen_session_dumper.cpp` `ShowAllScreenInfo`): each screen's block (`---- Screen ID: N
//! ----`) with its session (`DisplayId:`, `activeModes<id, W, H, RS>:`) and its information
//! (`VirtualPixelRatio:`), and before each block the fold state (`DisplayFoldStatus:` of
//! `EXPAND`, `FOLDED`, `HALF_FOLD`, the two-hinge `FOLD_STATE_…` forms, or `UNKNOWN` on a
//! phone that does not fold). The legacy dmserver (3.2–4.1, builds without SceneBoard) refuses
//! `-a -a` and prints none of it.
//!
//! The argument `-f` is not used: in developer mode it also sets the fold display mode
//! (`IsDeveloperModeCommand`), and a reading must not change the phone.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::{DumpError, re};

/// One display the phone has.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Display {
    /// The display's id (what `uitest … -d` takes).
    pub id: u64,
    /// Its active mode's size, px, width and height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[u32; 2]>,
    /// Its density, px per vp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtual_pixel_ratio: Option<f64>,
}

/// What the dumper said: the fold state (`None`: the phone does not fold) and the displays.
#[derive(Clone, Debug, PartialEq)]
pub struct Displays {
    /// `expanded`, `folded` or `half-folded`.
    pub fold: Option<&'static str>,
    /// Every screen's display, in the dumper's order.
    pub displays: Vec<Display>,
}

static SCREEN: LazyLock<Regex> = LazyLock::new(|| re(r"^-+\s*Screen ID:\s*(\d+)\s*-+$"));
static FOLD: LazyLock<Regex> = LazyLock::new(|| re(r"^DisplayFoldStatus:\s*([A-Z_]+)"));
static DISPLAY_ID: LazyLock<Regex> = LazyLock::new(|| re(r"^DisplayId:\s*(\d+)"));
static MODE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^activeModes<id, W, H, RS>:\s*\d+,\s*(\d+),\s*(\d+)"));
static RATIO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^VirtualPixelRatio:\s*([0-9]+(?:\.[0-9]+)?)"));

/// The fold state a `DisplayFoldStatus` names (the first hinge's, on a phone with two).
fn fold(status: &str) -> Result<Option<&'static str>, String> {
    let first = status
        .strip_prefix("FOLD_STATE_")
        .map_or(status, |rest| rest.split("_WITH_").next().unwrap_or(rest));
    match first {
        "EXPAND" => Ok(Some("expanded")),
        "FOLDED" => Ok(Some("folded")),
        "HALF_FOLD" | "HALF_FOLDED" => Ok(Some("half-folded")),
        "UNKNOWN" => Ok(None),
        other => Err(format!("a fold status it does not name: `{other}`")),
    }
}

/// Parses `hidumper -s DisplayManagerService -a -a`.
pub fn displays(dump: &str) -> Result<Displays, DumpError> {
    let mut found = Displays {
        fold: None,
        displays: Vec::new(),
    };
    let mut fold_said = None;
    for line in dump.lines().map(str::trim) {
        if let Some(screen) = SCREEN.captures(line) {
            let id = screen[1].parse().unwrap_or_default();
            found.displays.push(Display {
                id,
                size: None,
                virtual_pixel_ratio: None,
            });
            continue;
        }
        if fold_said.is_none()
            && let Some(status) = FOLD.captures(line)
        {
            fold_said = Some(status[1].to_owned());
            continue;
        }
        let Some(current) = found.displays.last_mut() else {
            continue;
        };
        if let Some(id) = DISPLAY_ID.captures(line) {
            current.id = id[1].parse().unwrap_or(current.id);
        } else if let Some(mode) = MODE.captures(line) {
            current.size = Some([
                mode[1].parse().unwrap_or_default(),
                mode[2].parse().unwrap_or_default(),
            ]);
        } else if current.virtual_pixel_ratio.is_none()
            && let Some(ratio) = RATIO.captures(line)
        {
            current.virtual_pixel_ratio =
                ratio[1].parse().ok().filter(|r| (0.5..=6.25).contains(r));
        }
    }
    if found.displays.is_empty() {
        return Err(DumpError::Empty(
            "no screen block (`Screen ID:`): the legacy display manager, which refuses `-a -a`"
                .to_owned(),
        ));
    }
    if let Some(status) = fold_said {
        found.fold = fold(&status).map_err(DumpError::Empty)?;
    }
    Ok(found)
}

#[cfg(test)]
mod tests;
