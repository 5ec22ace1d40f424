//! `dwpipe inspect …`: what one extractor sees in one file.

mod dumps;
mod screen;
mod trace;

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::probe::hypium;

use super::error::Error;
use super::print;
use super::shared::Json;
use super::{Edge, Run};
use clap::Subcommand;
use screen::{layout, screenshot};
use std::path::PathBuf;
use trace::{questions, trace};

impl Run for InspectCommand {
    fn json(&self) -> bool {
        match self {
            InspectCommand::Trace { output, .. }
            | InspectCommand::Layout { output, .. }
            | InspectCommand::Hidumper { output, .. }
            | InspectCommand::Smartperf { output, .. }
            | InspectCommand::Cpu { output, .. }
            | InspectCommand::State { output, .. }
            | InspectCommand::Screenshot { output, .. }
            | InspectCommand::Hypium { output, .. } => output.json,
        }
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let json = self.json();
        match self {
            InspectCommand::Trace {
                file,
                bundle,
                span,
                section,
                counter,
                ..
            } => trace(&file, bundle, &questions(&span, &section, &counter)?, json),
            InspectCommand::Layout {
                file, vpr, bundle, ..
            } => layout(&file, vpr, bundle.as_deref(), json),
            InspectCommand::Hidumper { file, kind, .. } => hidumper_dump(&file, kind, json),
            InspectCommand::Smartperf {
                file,
                kind,
                battery,
                ..
            } => smartperf(&file, kind, battery.as_deref(), json),
            InspectCommand::Cpu { file, .. } => proc_cpu(&file, json),
            InspectCommand::State { file, .. } => state(&file, json),
            InspectCommand::Screenshot { file, bounds, .. } => screenshot(&file, &bounds, json),
            InspectCommand::Hypium { file, .. } => hypium_output(&file, json),
        }
    }
}

fn read(file: &Path, what: &'static str) -> Result<Vec<u8>, Error> {
    read_bounded(file, MAX_REPORT_BYTES, what)
        .map_err(|e| Error::from(e.diagnostic("E_INSPECT_UNREADABLE", "check the path")))
}

fn invalid(file: &Path, message: impl std::fmt::Display, fix: &str) -> Error {
    Diagnostic::error(
        "E_INSPECT_INVALID",
        format!("{}: {message}", file.display()),
    )
    .fix(fix)
    .into()
}

/// `inspect cpu FILE`: the load over the window two reads of /proc hold.
fn proc_cpu(file: &Path, json: bool) -> Result<i32, Error> {
    let bytes = read(file, "two reads of /proc")?;
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let cpu = crate::probe::proc_cpu::proc_cpu(&text).map_err(|e| {
        invalid(
            file,
            e,
            "pass an audit's cpu.txt: /proc/self/stat, /proc/<pid>/stat and /proc/stat read twice, apart by __DWPIPE_CPU_AGAIN",
        )
    })?;
    if json {
        print::json(&cpu);
    } else {
        print::out(&format!("{}:\ncpu: {}", file.display(), cpu.evidence()));
    }
    Ok(exit_code::OK)
}

/// `inspect state FILE`: every reading of the device's state, and why one was not.
fn state(file: &Path, json: bool) -> Result<i32, Error> {
    let bytes = read(file, "a device state file")?;
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let state = crate::audit::parse_state(&text);
    if json {
        print::json(&state);
    } else {
        print::out(&format!("{}:\nstate: {}", file.display(), state.summary()));
        for why in &state.unread {
            print::out(&format!(
                "  not read: {}",
                crate::text::one_line(why, crate::text::LINE)
            ));
        }
    }
    Ok(exit_code::OK)
}

/// `inspect hidumper FILE --kind K`: what the dump says, for people (or as JSON with `--json`).
/// `inspect smartperf FILE --kind gpu|power`.
fn smartperf(
    file: &Path,
    kind: SmartperfKind,
    battery: Option<&Path>,
    json: bool,
) -> Result<i32, Error> {
    let bytes = read(file, "an SP_daemon output")?;
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let bad = |e: crate::probe::sp_daemon::SpError| {
        use crate::probe::sp_daemon::SpError;
        let fix = match e {
            SpError::Missing(_) => {
                "pass the output of `SP_daemon -N <n> -PKG <bundle> -g` (gpu) or `-p` (power)"
            }
            _ => {
                "this is what an audit reads from it: the criterion would be unverified with this reason (docs/reading.md: What dwpipe reads, and how)"
            }
        };
        invalid(file, e, fix)
    };
    let (value, line) = match kind {
        SmartperfKind::Gpu => {
            let gpu = crate::probe::sp_daemon::gpu(&text, None).map_err(bad)?;
            let line = format!(
                "gpu: {}% load at {} MHz over {} sample(s)",
                gpu.load_percent, gpu.frequency_mhz, gpu.samples
            );
            (serde_json::json!(gpu), line)
        }
        SmartperfKind::Power => {
            let power = crate::probe::sp_daemon::power(&text, None).map_err(bad)?;
            let mut line = format!(
                "power: {} mW ({} mA at {} V) over {} sample(s)",
                power.milliwatts, power.current_ma, power.voltage_v, power.samples
            );
            if let Some(battery) = battery {
                let bytes = read(battery, "a BatteryService dump")?;
                let dump = String::from_utf8_lossy(&bytes).replace('\r', "");
                let now = crate::probe::hidumper::battery(&dump)
                    .map_err(|e| {
                        invalid(
                            battery,
                            e,
                            "pass an audit's battery.txt (`hidumper -s BatteryService -a -i`)",
                        )
                    })?
                    .now_current_ma;
                let checked = power.against_battery(now).map_err(bad)?;
                line = format!("{line}; {checked}");
            }
            (serde_json::json!(power), line)
        }
    };
    if json {
        print::json(&value);
    } else {
        print::out(&format!("{}:\n{line}", file.display()));
    }
    Ok(exit_code::OK)
}

fn hidumper_dump(file: &Path, kind: DumpKind, json: bool) -> Result<i32, Error> {
    let bytes = read(file, "a hidumper output")?;
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let (value, human) = dumps::shown_as(kind, &text).map_err(|refused| {
        invalid(
            file,
            refused,
            "pass the output of the hidumper command that --kind names",
        )
    })?;
    if json {
        print::json(&value);
    } else {
        print::out(&format!("{}:", file.display()));
        for line in human {
            print::out(&line);
        }
    }
    Ok(exit_code::OK)
}

/// A value that may be unknown, for people.
fn shown<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "unknown".to_owned(), |v| v.to_string())
}

/// `inspect hypium FILE`.
fn hypium_output(file: &Path, json: bool) -> Result<i32, Error> {
    let text = String::from_utf8_lossy(&read(file, "an aa test output")?).into_owned();
    let report = hypium::parse(&text).map_err(|e| {
        invalid(
            file,
            e,
            "pass the whole output of `aa test … OpenHarmonyTestRunner`",
        )
    })?;
    if json {
        print::json(&report);
        return Ok(exit_code::OK);
    }
    let s = report.summary;
    print::out(&format!(
        "{}: {} — {} run, {} pass, {} failure, {} error, {} ignored",
        file.display(),
        report.verdict,
        s.run,
        s.pass,
        s.failure,
        s.error,
        s.ignore
    ));
    for case in report.cases.iter().filter(|c| c.result != "pass") {
        print::out(&format!("  {}: {}.{}", case.result, case.class, case.test));
    }
    Ok(exit_code::OK)
}

#[derive(Debug, Subcommand)]
pub(super) enum InspectCommand {
    /// A hitrace text trace: events, markers, slices, frames, the cold start, and the app's own
    /// spans, sections and counters asked about.
    #[command(
        after_help = "Streams the file: memory stays flat whatever its size.\n\nExamples:\n  dwpipe inspect trace cold.ftrace --span 'feed requested..feed shown'\n  dwpipe inspect trace cold.ftrace --section '/^decode page/' --counter image-cache-bytes"
    )]
    Trace {
        /// The trace (hitrace text output), or `-` to read it from standard input (the one
        /// way to pass a pipe: `hdc shell cat /data/local/tmp/x.ftrace | dwpipe inspect trace -`).
        file: PathBuf,
        /// The app whose cold start to measure (default: the first one launched in the trace).
        #[arg(long)]
        bundle: Option<String>,
        /// The app's spans from one marker to the next: `FROM..TO`, each a name (without
        /// `H:`) or a `/regex/`; every span listed, as `perf.span` with `pick: each` reads them.
        #[arg(long, value_name = "FROM..TO")]
        span: Vec<String>,
        /// A section of the app's (`B`/`E` on one thread, `S`/`F` by task id), every one listed.
        #[arg(long, value_name = "NAME")]
        section: Vec<String>,
        /// A counter of the app's (`C`), every value listed.
        #[arg(long, value_name = "NAME")]
        counter: Vec<String>,
        #[command(flatten)]
        output: Json,
    },
    /// A `uitest dumpLayout` JSON: windows, touch targets (in vp), unlabeled clickables.
    Layout {
        /// The dump.
        file: PathBuf,
        /// The device's VirtualPixelRatio (px per vp, `dwpipe devices` shows it); without it
        /// sizes are reported in px.
        #[arg(long)]
        vpr: Option<f64>,
        /// The app whose window to measure (default: the first app window).
        #[arg(long)]
        bundle: Option<String>,
        #[command(flatten)]
        output: Json,
    },
    /// A hidumper output: fps, fps-count, screen, density, mem, windows, cpu, battery, power or thermal.
    Hidumper {
        /// The output, as printed by hidumper.
        file: PathBuf,
        /// Which command produced it.
        #[arg(long, value_enum)]
        kind: DumpKind,
        #[command(flatten)]
        output: Json,
    },
    /// SmartPerf's `SP_daemon … -g` or `-p` output: the GPU's load and frequency, or the
    /// battery's draw.
    Smartperf {
        /// The output, as printed by SP_daemon.
        file: PathBuf,
        /// Which reading: `gpu` (`-g`) or `power` (`-p`).
        #[arg(long, value_enum)]
        kind: SmartperfKind,
        /// With `--kind power`: BatteryService's dump read as the sampling began (an audit's
        /// `battery.txt`), whose `nowCurrent` the samples are held against, as the audit does.
        #[arg(long, value_name = "FILE")]
        battery: Option<PathBuf>,
        #[command(flatten)]
        output: Json,
    },
    /// Two reads of /proc around a window, as an audit's `cpu.txt` keeps them: the app's CPU
    /// load, as a share of every core and of one core, and the window on the device's clock.
    Cpu {
        /// The reads (`cat /proc/self/stat /proc/<pid>/stat /proc/stat; sleep S; echo
        /// __DWPIPE_CPU_AGAIN; cat …`; reads that began with /proc/uptime are read too).
        file: PathBuf,
        #[command(flatten)]
        output: Json,
    },
    /// The device's state as an audit keeps it (`state-before.txt`, `state-after.txt`): every
    /// reading, and why one was not read.
    State {
        /// The state file.
        file: PathBuf,
        #[command(flatten)]
        output: Json,
    },
    /// A screenshot (PNG, or JPEG with a warning): the WCAG contrast inside a box.
    Screenshot {
        /// The screenshot.
        file: PathBuf,
        /// The box to measure, in px: l,t,r,b (a node's bounds).
        #[arg(long = "box", value_name = "L,T,R,B")]
        bounds: String,
        #[command(flatten)]
        output: Json,
    },
    /// The output of `aa test … OpenHarmonyTestRunner`: per-case results and the summary.
    Hypium {
        /// The output.
        file: PathBuf,
        #[command(flatten)]
        output: Json,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum SmartperfKind {
    /// `-g`: GPU load and frequency.
    Gpu,
    /// `-p`: the battery's current and voltage.
    Power,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(super) enum DumpKind {
    /// `-s RenderService -a "<name> fps"`: present times → fps.
    Fps,
    /// `-s RenderService -a fpsCount`: frames per refresh rate.
    FpsCount,
    /// `-s RenderService -a screen`: resolution, refresh rate, power.
    Screen,
    /// `-s DisplayManagerService -a -a` (SceneBoard) or `-a '-d 0'` (the legacy dumper): the density.
    Density,
    /// `--mem <pid>`: the Total PSS row.
    Mem,
    /// `-s WindowManagerService -a '-a'`: the window table.
    Windows,
    /// `-s BatteryService -a -i`: charge, charging, plug, temperature.
    Battery,
    /// `-s PowerManagerService -a -s`: the power state (AWAKE, INACTIVE, …).
    Power,
    /// `-s ThermalService -a -t`: each thermal zone's temperature.
    Thermal,
    /// `--cpuusage <pid>`: the process's CPU load, as hiview's last 10-second sample has it
    /// (since 4.1; an audit reads /proc twice instead: `dwpipe inspect cpu`).
    Cpu,
}
