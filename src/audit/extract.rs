//! From a session's evidence files to one reading per probe: pure functions over bytes, so
//! `verify-evidence` can run them again offline on the stored files.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::pack::ProbeDoc;
use crate::pack::Selector;
use crate::probe::layout::{Layout, to_vp};
use crate::probe::screenshot::{Image, contrast};
use crate::probe::{hidumper, hitrace, hypium};

/// A reading's value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A number in the probe's unit.
    Number(f64),
    /// A word (`pass`/`fail`).
    Text(String),
}

impl Value {
    /// The number, if the value is one.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            Value::Text(_) => None,
        }
    }
}

/// One run's reading of one probe.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The value.
    pub value: Value,
    /// What it was read from, in words.
    pub detail: String,
}

/// What an extractor may need besides the files.
#[derive(Clone, Debug)]
pub struct Context<'a> {
    /// The app.
    pub bundle: &'a str,
    /// The device density (px per vp).
    pub vpr: Option<f64>,
}

/// Evidence files of one session run, by the name the playbook saved them under.
pub type Files = BTreeMap<String, PathBuf>;

fn read(files: &Files, name: &str) -> Result<Vec<u8>, String> {
    let path = files
        .get(name)
        .ok_or_else(|| format!("the session saved no `{name}`"))?;
    std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
}

fn text(files: &Files, name: &str) -> Result<String, String> {
    Ok(String::from_utf8_lossy(&read(files, name)?).replace('\r', ""))
}

fn selector(arg: &Option<String>, name: &str) -> Result<Selector, String> {
    let text = arg
        .as_deref()
        .ok_or_else(|| format!("the probe needs `{name}`"))?;
    Selector::parse(text).map_err(|e| e.to_string())
}

/// Runs extractor `name` over a session's files.
pub fn extract(
    name: &str,
    files: &Files,
    probe: &ProbeDoc,
    context: &Context<'_>,
) -> Result<Reading, String> {
    let number = |value: f64, detail: String| {
        Ok(Reading {
            value: Value::Number(value),
            detail,
        })
    };
    match name {
        "cold-start" | "frames" => {
            let path = files
                .get("trace.ftrace")
                .ok_or("the session saved no `trace.ftrace`")?;
            let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
            let report = hitrace::analyze(file, Some(context.bundle.to_owned()))
                .map_err(|e| e.to_string())?;
            if name == "cold-start" {
                let cold = report
                    .cold_start
                    .ok_or("no whole launch of the app in the trace")?;
                return number(
                    cold.ms,
                    format!(
                        "from `{}` to the end of the first present fence",
                        cold.start_marker
                    ),
                );
            }
            let f = report.frames;
            let (value, what) = match probe.metric.as_deref() {
                Some("fps") => (f.fps, "fps"),
                Some("p50") => (f.p50_ms, "p50 frame interval"),
                Some("p95") => (f.p95_ms, "p95 frame interval"),
                Some("max") => (f.max_ms, "longest frame interval"),
                _ => (f.jank_ms_per_s, "jank (dropped ms per second)"),
            };
            let value = value.ok_or("fewer than two frames presented in the trace")?;
            number(
                value,
                format!(
                    "{what} over {} presented frames, budget {} ms",
                    f.count,
                    f.budget_ms
                        .map_or_else(|| "unknown".to_owned(), |b| b.to_string())
                ),
            )
        }
        "memory" => {
            let total =
                hidumper::memory_total(&text(files, "mem.txt")?).map_err(|e| e.to_string())?;
            number(total.pss_kb as f64, total.evidence)
        }
        "layout-gap" | "layout-size" | "layout-align" | "touch-target" | "labels" | "contrast" => {
            let layout = Layout::parse(&read(files, "layout.json")?).map_err(|e| e.to_string())?;
            let window = layout
                .app_window(Some(context.bundle))
                .map_err(|e| e.to_string())?;
            let vpr = context
                .vpr
                .ok_or("the device's density (VirtualPixelRatio) is unknown")?;
            let vp = |px: i64| to_vp(px, vpr);
            match name {
                "layout-gap" => {
                    let (from, to) = (
                        layout.select(window, &selector(&probe.from, "from")?),
                        layout.select(window, &selector(&probe.to, "to")?),
                    );
                    let (from, to) = (
                        from.map_err(|e| e.to_string())?,
                        to.map_err(|e| e.to_string())?,
                    );
                    let horizontal = probe.axis.as_deref() == Some("horizontal");
                    let px = layout
                        .gap_px(from, to, horizontal)
                        .map_err(|e| e.to_string())?;
                    number(
                        vp(px),
                        format!(
                            "{px} px between {} and {}",
                            layout.selector_of(from),
                            layout.selector_of(to)
                        ),
                    )
                }
                "layout-size" => {
                    let node = layout
                        .select(window, &selector(&probe.target, "target")?)
                        .map_err(|e| e.to_string())?;
                    let px = layout
                        .size_px(node, probe.side.as_deref() == Some("height"))
                        .map_err(|e| e.to_string())?;
                    number(
                        vp(px),
                        format!(
                            "{px} px {} of {}",
                            probe.side.as_deref().unwrap_or("width"),
                            layout.selector_of(node)
                        ),
                    )
                }
                "layout-align" => {
                    let from = layout
                        .select(window, &selector(&probe.from, "from")?)
                        .map_err(|e| e.to_string())?;
                    let to = layout
                        .select(window, &selector(&probe.to, "to")?)
                        .map_err(|e| e.to_string())?;
                    let px = layout
                        .misalignment_px(from, to, probe.edge.as_deref() == Some("top"))
                        .map_err(|e| e.to_string())?;
                    number(
                        vp(px),
                        format!(
                            "{px} px between the {} edges",
                            probe.edge.as_deref().unwrap_or("left")
                        ),
                    )
                }
                "touch-target" => {
                    let candidates = match &probe.target {
                        Some(_) => vec![
                            layout
                                .select(window, &selector(&probe.target, "target")?)
                                .map_err(|e| e.to_string())?,
                        ],
                        None => layout.clickables(window),
                    };
                    let smallest = candidates
                        .iter()
                        .filter_map(|i| {
                            layout
                                .visible_rect(*i)
                                .map(|r| (r.width().min(r.height()), *i))
                        })
                        .min()
                        .ok_or("no clickable node on screen in the app window")?;
                    number(
                        vp(smallest.0),
                        format!(
                            "smallest side of {} ({} px)",
                            layout.selector_of(smallest.1),
                            smallest.0
                        ),
                    )
                }
                "labels" => {
                    let unlabeled: Vec<String> = layout
                        .unlabeled(window)
                        .into_iter()
                        .map(|i| layout.selector_of(i))
                        .collect();
                    number(
                        unlabeled.len() as f64,
                        if unlabeled.is_empty() {
                            "none".to_owned()
                        } else {
                            unlabeled.join(", ")
                        },
                    )
                }
                _ => {
                    let node = layout
                        .select(window, &selector(&probe.target, "target")?)
                        .map_err(|e| e.to_string())?;
                    let bounds = layout
                        .visible_rect(node)
                        .filter(|r| !r.is_empty())
                        .ok_or("the target is not on screen")?;
                    let image =
                        Image::decode(&read(files, "screen.png")?).map_err(|e| e.to_string())?;
                    let measured = contrast(&image, bounds).map_err(|e| e.to_string())?;
                    number(
                        measured.ratio,
                        format!(
                            "{} on {} inside {}",
                            measured.foreground,
                            measured.background,
                            layout.selector_of(node)
                        ),
                    )
                }
            }
        }
        "hypium" => {
            let report = hypium::parse(&text(files, "aa-test.txt")?).map_err(|e| e.to_string())?;
            Ok(Reading {
                value: Value::Text(report.verdict.to_owned()),
                detail: report.evidence,
            })
        }
        other => Err(format!("unknown extractor `{other}`")),
    }
}
