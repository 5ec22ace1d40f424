//! What `dwpipe inspect hidumper --kind KIND FILE` reads of each dump: the document `--json`
//! prints, and the lines a person reads.

use crate::probe::hidumper::{self, DumpError};

use super::{DumpKind, shown};

/// A dump as shown: its document, and its lines for people.
pub(super) type Shown = (serde_json::Value, Vec<String>);

/// Why a dump shows nothing.
#[derive(Debug, thiserror::Error)]
pub(super) enum Refused {
    /// Its parser refused it.
    #[error(transparent)]
    Dump(#[from] DumpError),
    /// It has no density field, or its dumper refused its arguments.
    #[error("{0}")]
    NoDensity(&'static str),
}

/// The dump `text` read as `kind` says.
pub(super) fn shown_as(kind: DumpKind, text: &str) -> Result<Shown, Refused> {
    match kind {
        DumpKind::Fps => fps(text),
        DumpKind::FpsCount => fps_count(text),
        DumpKind::Screen => screen(text),
        DumpKind::Density => density(text),
        DumpKind::Mem => mem(text),
        DumpKind::Windows => windows(text),
        DumpKind::Battery => battery(text),
        DumpKind::Power => power(text),
        DumpKind::Cpu => cpu(text),
        DumpKind::Thermal => thermal(text),
    }
}

fn fps(text: &str) -> Result<Shown, Refused> {
    let summaries: Vec<_> = hidumper::fps_blocks(text)?
        .iter()
        .map(|b| b.summary(None))
        .collect();
    let human = summaries
        .iter()
        .map(|s| {
            format!(
                "{}: {} frames over {} ms, {} fps, longest interval {} ms",
                s.title,
                s.frames,
                s.window_ms,
                shown(s.fps),
                shown(s.max_interval_ms)
            )
        })
        .collect();
    Ok((serde_json::json!(summaries), human))
}

fn fps_count(text: &str) -> Result<Shown, Refused> {
    let counts = hidumper::fps_count(text)?;
    let human = counts
        .iter()
        .map(|(hz, n)| format!("{hz} Hz: {n} frames"))
        .collect();
    let value = counts
        .iter()
        .map(|(hz, n)| serde_json::json!({"refresh_hz": hz, "frames": n}))
        .collect::<Vec<_>>();
    Ok((serde_json::json!(value), human))
}

fn screen(text: &str) -> Result<Shown, Refused> {
    let screens = hidumper::screens(text)?;
    let size = |s: Option<(u32, u32)>| s.map_or("unknown".to_owned(), |(w, h)| format!("{w}×{h}"));
    let human = screens
        .iter()
        .map(|s| {
            format!(
                "screen {}: render {} px, physical {} px, {} Hz, {}{}",
                s.id,
                size(s.render),
                size(s.physical),
                shown(s.refresh_hz),
                s.power.as_deref().unwrap_or("power unknown"),
                if s.is_virtual { ", virtual" } else { "" }
            )
        })
        .collect();
    Ok((serde_json::json!(screens), human))
}

fn density(text: &str) -> Result<Shown, Refused> {
    hidumper::require_block(text, "DisplayManagerService")?;
    let vpr = crate::device::virtual_pixel_ratio(text).ok_or_else(|| {
        let why = if text.contains("The arguments are illegal") {
            "the dumper refused its arguments (the legacy DisplayManagerService takes two: ask `-a '-d 0'`, which prints `VPR:`)"
        } else {
            "no VirtualPixelRatio, Density or VPR field"
        };
        Refused::NoDensity(why)
    })?;
    Ok((
        serde_json::json!({"virtual_pixel_ratio": vpr, "unit": "px/vp"}),
        vec![format!("density: {vpr} px/vp")],
    ))
}

fn mem(text: &str) -> Result<Shown, Refused> {
    let total = hidumper::memory_total(text)?;
    let human = vec![format!("PSS total: {} kB", total.pss_kb)];
    Ok((serde_json::json!(total), human))
}

fn windows(text: &str) -> Result<Shown, Refused> {
    let table = hidumper::windows(text)?;
    let mut human = vec![format!(
        "{} windows, focus: {}",
        table.windows.len(),
        shown(table.focus)
    )];
    human.extend(table.windows.iter().map(|w| {
        let [x, y, width, height] = w.rect;
        format!(
            "  {:<20} win {:<6} pid {:<7} z {:<3} [{x}, {y}, {width}×{height}]{}",
            w.name,
            w.id,
            w.pid,
            w.z_order,
            if w.foreground { "" } else { "  background" }
        )
    }));
    human.extend(table.warnings.iter().map(|w| format!("warning: {w}")));
    Ok((serde_json::json!(table), human))
}

fn battery(text: &str) -> Result<Shown, Refused> {
    let battery = hidumper::battery(text)?;
    let mut human = vec![format!(
        "battery: {}, {}, plugged {}, {}",
        battery
            .capacity_percent
            .map_or_else(|| "charge unknown".to_owned(), |p| format!("{p}%")),
        shown(battery.charging),
        shown(battery.plugged),
        battery
            .temperature_c
            .map_or_else(|| "temperature unknown".to_owned(), |t| format!("{t} °C"))
    )];
    human.extend(
        battery
            .unknown
            .iter()
            .map(|why| format!("  unknown: {why}")),
    );
    Ok((serde_json::json!(battery), human))
}

fn power(text: &str) -> Result<Shown, Refused> {
    let power = hidumper::power_state(text)?;
    let human = vec![format!(
        "power state: {}{}",
        power.state,
        power
            .screen_off_timeout_ms
            .map_or_else(String::new, |ms| format!(", screen off after {ms} ms"))
    )];
    Ok((serde_json::json!(power), human))
}

fn cpu(text: &str) -> Result<Shown, Refused> {
    let usage = hidumper::cpu_usage(text)?;
    let human = vec![
        format!("cpu: {}", usage.evidence),
        "  (hiview's last 10-second sample since 4.1, not a window of this call's: an audit reads /proc twice instead — `dwpipe inspect cpu`)".to_owned(),
    ];
    Ok((serde_json::json!(usage), human))
}

fn thermal(text: &str) -> Result<Shown, Refused> {
    let zones = hidumper::thermal_zones(text)?;
    let mut human: Vec<String> = zones
        .iter()
        .map(|z| format!("  {:<24} {}", z.zone, z.temperature))
        .collect();
    human.push(
        "  (ThermalService's last report: up to its driver's polling interval old)".to_owned(),
    );
    match crate::probe::sysfs::zones(text) {
        Ok(live) => {
            human.push("read live from sysfs:".to_owned());
            human.extend(
                live.zones
                    .iter()
                    .map(|z| format!("  {:<24} {} ({})", z.zone, z.temperature, z.node)),
            );
            human.extend(live.unread.iter().map(|why| format!("  not read: {why}")));
        }
        Err(why) if text.contains(crate::probe::sysfs::MARKER) => {
            human.push(format!("sysfs: not read: {why}"));
        }
        Err(_) => {}
    }
    Ok((serde_json::json!(zones), human))
}
