//! The platform's own record of an app's crashes and freezes, in the two forms a shell may
//! read it (research/field-2026-12c.md §2; hiviewdfx_hidumper and hiviewdfx_hiview sources):
//!
//! - **`hidumper -e --list <process> --since <time>`** (hidumper's event list, OpenHarmony 6.1,
//!   HarmonyOS API 22): a table `time foreground reason record_id process_name` of the abnormal
//!   exits hiview recorded (`event_list_dumper.cpp`), the reason in its short form
//!   (`CppCrash`, `JsError`, `ThreadBlock6S`, `LowMemoryKill` …, `event_reason_config.json`),
//!   the time the device's local time to the second, or `no records found.`;
//! - **`hidumper -e`** before it: hidumper's service prints every file of
//!   `/data/log/faultlog/faultlogger` (a fault-log group title, then each file's path, a blank
//!   line and its lines). dwpipe keeps the title, the number of files and the first lines of
//!   the app's own and the system's freezes. A file is named
//!   `<kind>-<module>-<uid>-<YYYYMMDDHHMMSS>[mmm][.log]` (`faultlog_util.cpp`: milliseconds and
//!   `.log` from 5.1), its time the device's local time.
//!
//! Both are parsed line by line; the times are compared as the device wrote them, never
//! converted through the host's zone.

use std::sync::LazyLock;

use regex::Regex;

/// How a record bears on the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Severity {
    /// The app crashed (a native signal, an uncaught ArkTS, Cangjie or Rust error).
    Crash,
    /// The app (or the whole system) stopped answering.
    Freeze,
    /// The system ended the app (low memory, a resource leak, power saving): not the app's
    /// fault, but the app was gone.
    Ended,
    /// Recorded, not an end (a freeze warning, a sanitizer report).
    Warning,
}

impl Severity {
    /// Whether the record is a crash or a freeze, which the stability criterion counts.
    pub(crate) fn counts(self) -> bool {
        matches!(self, Severity::Crash | Severity::Freeze)
    }

    /// Whether the app was no longer running or answering after it: the visit measured
    /// something else.
    pub(crate) fn ends_visit(self) -> bool {
        self != Severity::Warning
    }
}

/// One record of the platform's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fault {
    /// The platform's name for it (`CppCrash`, `jscrash`, `ThreadBlock6S`, `sysfreeze` …).
    pub(crate) kind: String,
    pub(crate) severity: Severity,
    /// When it began, on the device's clock: `YYYY-MM-DD HH:MM:SS`.
    pub(crate) at: String,
    /// Its identity: hiview's record id, or the fault log's file name.
    pub(crate) id: String,
    /// The process it names.
    pub(crate) process: String,
    /// Its first lines, as far as they were read (the reason, the first frames).
    pub(crate) lines: Vec<String>,
}

/// What a fault source said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Listed {
    /// The records of the app (and the system's freezes), in the order printed.
    pub(crate) faults: Vec<Fault>,
    /// The records on the phone of any process, where the source counts them.
    pub(crate) on_phone: Option<u64>,
}

/// Why a source's text is no reading.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FaultsError {
    #[error("hidumper has no event list on this release ({})", said(.0))]
    NoList(String),
    #[error("hidumper printed no event list ({})", said(.0))]
    Unread(String),
    #[error("hidumper printed no fault-log section ({})", said(.0))]
    NoDump(String),
}

/// What a tool printed, quoted, or that it printed nothing.
fn said(text: &str) -> String {
    if text.is_empty() {
        "it printed nothing".to_owned()
    } else {
        format!("it printed `{text}`")
    }
}

/// The reasons of hidumper's event list, by severity (`event_reason_config.json` and
/// `dump_event_info.cpp`'s fault set: the short form, and the long one some releases print).
fn list_severity(reason: &str) -> Severity {
    match reason {
        "CppCrash" | "Cpp Crash" | "JsError" | "Js Error" => Severity::Crash,
        "ThreadBlock6S" | "THREAD_BLOCK_6S" | "AppInputBlock" | "APP_INPUT_BLOCK"
        | "LifecycleTimeout" | "LIFECYCLE_TIMEOUT" => Severity::Freeze,
        _ => Severity::Ended,
    }
}

/// The kinds of fault-log files (`GetFaultNameByType`, the sanitizers' names), by severity.
fn file_severity(kind: &str) -> Severity {
    match kind {
        "cppcrash" | "jscrash" | "cjerror" | "rustpanic" => Severity::Crash,
        "appfreeze" | "sysfreeze" => Severity::Freeze,
        _ => Severity::Warning,
    }
}

static ROW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s+(True|False|Null)\s+(\S+)\s+(\S+)\s+(\S+)\s*$",
    )
    .expect("static regex")
});

/// Reads `hidumper -e --list`'s table; `process` keeps the rows of that process (and of its
/// `process:name` children), since hidumper matches any name containing it.
pub(crate) fn parse_list(text: &str, process: &str) -> Result<Listed, FaultsError> {
    let mut faults = Vec::new();
    let mut header = false;
    let mut none = false;
    let mut rows = 0u64;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.contains("unrecognized option") || trimmed.contains("option pid missed") {
            return Err(FaultsError::NoList(
                crate::text::one_line(trimmed, 160).into_owned(),
            ));
        }
        if trimmed == "no records found." {
            none = true;
        } else if trimmed.starts_with("time ") && trimmed.contains("record_id") {
            header = true;
        } else if let Some(row) = ROW.captures(line) {
            rows += 1;
            let name = &row[5];
            if name != process && !name.starts_with(&format!("{process}:")) {
                continue;
            }
            let reason = row[3].to_owned();
            faults.push(Fault {
                severity: list_severity(&reason),
                kind: reason,
                at: row[1].to_owned(),
                id: row[4].to_owned(),
                process: name.to_owned(),
                lines: Vec::new(),
            });
        }
    }
    if !header && !none {
        return Err(FaultsError::Unread(
            crate::text::one_line(text.trim(), 160).into_owned(),
        ));
    }
    Ok(Listed {
        faults,
        on_phone: Some(rows),
    })
}

/// The folder hidumper dumps before its event list.
pub(crate) const FAULTLOGGER: &str = "/data/log/faultlog/faultlogger/";

static FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([a-z]+)-(.+)-(\d+)-(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d{3})?(\.log)?$")
        .expect("static regex")
});
static TITLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^-{3,}\[[A-Za-z_ ]+\]-{3,}$").expect("static regex"));

/// How many of a record's lines are kept.
pub(crate) const FIRST_LINES: usize = 40;

/// Reads what dwpipe keeps of `hidumper -e`: the fault-log section's title, the number of
/// files on the phone (a line of digits), then `grep -A`'s excerpt of the records of `module`
/// and the system's freezes (`--` between excerpts).
pub(crate) fn parse_dump(text: &str, module: &str) -> Result<Listed, FaultsError> {
    let mut titled = false;
    let mut on_phone = None;
    let mut faults: Vec<Fault> = Vec::new();
    let mut current: Option<usize> = None;
    for line in text.lines() {
        let trimmed = line.trim_end();
        if TITLE.is_match(trimmed.trim()) {
            titled = true;
            continue;
        }
        if on_phone.is_none()
            && current.is_none()
            && titled
            && let Ok(count) = trimmed.trim().parse::<u64>()
        {
            on_phone = Some(count);
            continue;
        }
        if trimmed == "--" {
            current = None;
            continue;
        }
        if let Some(name) = trimmed.strip_prefix(FAULTLOGGER) {
            current = record(name, module).map(|fault| {
                faults.push(fault);
                faults.len() - 1
            });
            continue;
        }
        if let Some(index) = current {
            let lines = &mut faults[index].lines;
            if lines.len() < FIRST_LINES && !(lines.is_empty() && trimmed.is_empty()) {
                lines.push(crate::text::one_line(trimmed, 240).into_owned());
            }
        }
    }
    if !titled {
        return Err(FaultsError::NoDump(
            crate::text::one_line(text.trim(), 160).into_owned(),
        ));
    }
    Ok(Listed { faults, on_phone })
}

/// The record a fault log's file name describes, when it is `module`'s or a system freeze.
fn record(name: &str, module: &str) -> Option<Fault> {
    let parts = FILE.captures(name)?;
    let kind = &parts[1];
    let of = &parts[2];
    if of != module && kind != "sysfreeze" {
        return None;
    }
    Some(Fault {
        kind: kind.to_owned(),
        severity: file_severity(kind),
        at: format!(
            "{}-{}-{} {}:{}:{}",
            &parts[4], &parts[5], &parts[6], &parts[7], &parts[8], &parts[9]
        ),
        id: name.to_owned(),
        process: of.to_owned(),
        lines: Vec::new(),
    })
}

static CLOCK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$").expect("static regex"));

/// The device's local time as `date '+%Y-%m-%d %H:%M:%S'` prints it, if `line` is one.
pub(crate) fn device_time(line: &str) -> Option<&str> {
    let line = line.trim();
    CLOCK.is_match(line).then_some(line)
}

#[cfg(test)]
mod tests;
