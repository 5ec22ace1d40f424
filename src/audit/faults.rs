//! The platform's record of the app's crashes and freezes around each visit, when the pack
//! asks for `stability.crashes`: the device's clock as the visit begins (`faults-since.txt`),
//! then, however the visit ended, the clock again, whether the app still has a process, and
//! the fault records (`faults.txt`, the command first).
//!
//! From API 22 (`hidumper -e --list`, OpenHarmony 6.1): the event list of the app since the
//! visit began, and the first lines of each record inside it (`hidumper -e --print <id>`,
//! `fault-<id>.txt`). Before: `hidumper -e`'s dump of the fault logger's folder, which from 4.1
//! the shell itself may not list (`sh.te`: `search` only; hidumper's service reads it on every
//! release, `hidumper_service.te`), cut down on the phone to the app's records and the
//! system's freezes. What each visit found is decoded here for every reader (the audit, and
//! `verify-evidence`).

use std::path::Path;

use crate::device::Device;
use crate::playbook::Values;
use crate::probe::faults::{Fault, FaultsError, device_time, parse_dump, parse_list};
use crate::shell::ShellValue;

use super::evidence::{Files, StepFailure};
use super::keep::{device_or_step, keep_said};

/// The device's clock as the visit began.
pub(crate) const SINCE: &str = "faults-since.txt";
/// The clock as the visit ended, and the fault records.
pub(crate) const FAULTS: &str = "faults.txt";
/// The first API level whose hidumper lists abnormal exits (`-e --list`).
pub(crate) const LIST_FIRST_API: u32 = 22;
/// The records inside a visit whose first lines are asked for, at most.
const PRINTED: usize = 5;

/// The device's local time, in the form hidumper's `--since` takes.
macro_rules! clock {
    () => {
        "date '+%Y-%m-%d %H:%M:%S'"
    };
}
const CLOCK: &str = clock!();
/// As a visit ends: the clock, then whether the app still has a process (`pid=` and its pid,
/// or nothing after it), before the records.
const ENDED: &str = concat!(clock!(), "; echo pid=$(pidof {bundle})");
/// Then, for a visit that leaves the app in the foreground, the window manager's table: whose
/// window has the focus, between markers (the records follow the second).
const FOCUS: &str =
    "echo __DWPIPE_FOCUS; hidumper -s WindowManagerService -a -a; echo __DWPIPE_RECORDS";
const FOCUS_MARK: &str = "__DWPIPE_FOCUS";
const RECORDS_MARK: &str = "__DWPIPE_RECORDS";
/// Where hidumper's dump waits on the phone while it is cut down.
const DUMPED: &str = "/data/local/tmp/dwpipe-faults.txt";

/// The file a record's first lines are kept in.
fn printed(id: &str) -> String {
    format!("fault-{id}.txt")
}

/// Whether an evidence file (by its path in the audit folder) is one of a visit's fault
/// records.
pub(super) fn is_fault_file(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name == SINCE || name == FAULTS || (name.starts_with("fault-") && name.ends_with(".txt"))
}

/// Keeps the device's clock as a visit begins.
pub(super) async fn mark(
    device: &impl Device,
    dir: &Path,
    files: &mut Files,
) -> Result<(), StepFailure> {
    std::fs::create_dir_all(dir).map_err(|e| StepFailure::Step {
        reason: format!("cannot create `{}`: {e}", dir.display()),
    })?;
    let said = ask(device, CLOCK).await?;
    keep_said(dir, files, SINCE, &said)
}

/// Reads the fault records of `bundle` after a visit (`values` holds it as `{bundle}`),
/// keeping them beside its evidence; `foreground`: the visit leaves the app in the foreground
/// (it does not send it home), so whose window has the focus is kept too. A record source that
/// does not answer is kept as it answered: the stability criterion says why it is unverified.
pub(super) async fn read(
    device: &impl Device,
    (values, bundle): (&Values, &str),
    (api_level, foreground): (Option<u32>, bool),
    (dir, files): (&Path, &mut Files),
) -> Result<(), StepFailure> {
    let since = files
        .get(SINCE)
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|said| device_time(&said).map(str::to_owned));
    let listed = api_level.is_some_and(|api| api >= LIST_FIRST_API);
    let ended = match foreground {
        true => format!("{ENDED}; {FOCUS}"),
        false => ENDED.to_owned(),
    };
    let mut values = values.clone();
    let template = match (&since, listed) {
        (Some(since), true) => {
            let since = ShellValue::device_time(since).map_err(|e| step(e.to_string()))?;
            values.set("since", since);
            format!("{ended}; hidumper -e --list {{bundle}} --since '{{since}}'")
        }
        (None, true) => format!("{ended}; hidumper -e --list {{bundle}}"),
        (_, false) => format!(
            "{ended}; hidumper -e > {DUMPED}; grep -m 1 -E '^---*\\[' {DUMPED}; grep -c '^{}' {DUMPED}; grep -E -A {} '^{}([a-z]*-{{bundle}}-|sysfreeze-)' {DUMPED}; rm -f {DUMPED}",
            crate::probe::faults::FAULTLOGGER,
            crate::probe::faults::FIRST_LINES,
            crate::probe::faults::FAULTLOGGER,
        ),
    };
    let command = values.command(&template).map_err(|e| step(e.to_string()))?;
    let said = ask(device, command.as_str()).await?;
    keep_said(dir, files, FAULTS, &format!("$ {command}\n{said}"))?;
    if !listed {
        return Ok(());
    }
    let Some(window) = since.zip(said.lines().next().and_then(device_time)) else {
        return Ok(());
    };
    let Ok(list) = parse_list(split_focus(&said).1, bundle) else {
        return Ok(());
    };
    let inside = list
        .faults
        .iter()
        .filter(|f| within(f, (&window.0, window.1)));
    for fault in inside.take(PRINTED) {
        let Ok(id) = ShellValue::number("record id", &fault.id) else {
            continue;
        };
        let print = format!("hidumper -e --print {} | head -n 40", id.as_str());
        let said = ask(device, &print).await?;
        keep_said(dir, files, &printed(&fault.id), &said)?;
    }
    Ok(())
}

fn step(reason: String) -> StepFailure {
    StepFailure::Step { reason }
}

/// What `command` printed, or why it printed nothing (kept in its place: the reader says the
/// records did not read, and why). Never judged by its status: grep exits 1 when the app has
/// no record, and hidumper's status says nothing; the words are read. A device that failed
/// stops the audit.
async fn ask(device: &impl Device, command: &str) -> Result<String, StepFailure> {
    let command =
        crate::shell::ShellCommand::from_capture(command).map_err(|e| step(e.to_string()))?;
    match device.shell(&command).await.map_err(device_or_step) {
        Ok(reply) => Ok(reply.output),
        Err(StepFailure::Step { reason }) => Ok(format!("(no reply: {reason})\n")),
        Err(device) => Err(device),
    }
}

/// Whether `fault` began inside the visit `(since, until)`, both ends included: the records'
/// times are whole seconds, and a record of the second a visit began is never dismissed.
fn within(fault: &Fault, (since, until): (&str, &str)) -> bool {
    since <= fault.at.as_str() && fault.at.as_str() <= until
}

/// What a visit's fault records show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VisitFaults {
    /// How they were read, in words.
    pub(crate) source: &'static str,
    /// The records that began inside it.
    pub(crate) faults: Vec<Fault>,
    /// The records the source listed outside it or of other processes.
    pub(crate) others: u64,
    /// Whether the app still had a process as the visit ended.
    pub(crate) running: bool,
    /// Another app's window that had the focus as the visit ended, in words (a visit that
    /// leaves the app in the foreground; the system's windows, a dialog or the keyboard, are
    /// the app's screen still).
    pub(crate) elsewhere: Option<String>,
}

impl VisitFaults {
    /// The first record that ended the app's visit (a crash, a freeze, the system ending it).
    pub(crate) fn ended(&self) -> Option<&Fault> {
        self.faults.iter().find(|f| f.severity.ends_visit())
    }
}

/// Decodes a visit's fault records from its files; `None` when the visit kept none (the
/// pack asks for no stability criterion); an error says why they do not read.
pub(crate) fn decode(files: &Files, bundle: &str) -> Option<Result<VisitFaults, String>> {
    let kept = files.get(FAULTS)?;
    Some(decode_kept(files, kept, bundle))
}

fn decode_kept(files: &Files, kept: &Path, bundle: &str) -> Result<VisitFaults, String> {
    let read = |path: &Path| {
        crate::input::read_text(path, 16 * 1024 * 1024, "a fault record")
            .map_err(|e| crate::diagnostic::chain(&e))
    };
    let since_said = files
        .get(SINCE)
        .ok_or_else(|| format!("the device's clock as the visit began was not kept ({SINCE})"))
        .and_then(|path| read(path))?;
    let since = device_time(&since_said).ok_or_else(|| {
        format!(
            "the device's clock as the visit began did not read (`{}`): which records are this visit's cannot be told",
            crate::text::one_line(&since_said, 120)
        )
    })?;
    let text = read(kept)?;
    let mut lines = text.lines();
    let command = lines.next().unwrap_or_default();
    let until_said = lines.next().unwrap_or_default();
    let until = device_time(until_said).ok_or_else(|| {
        format!(
            "the device's clock as the visit ended did not read (`{}`)",
            crate::text::one_line(until_said, 120)
        )
    })?;
    let pid = lines
        .next()
        .and_then(|l| l.strip_prefix("pid="))
        .map(|pid| {
            pid.split_whitespace()
                .next()
                .and_then(|p| p.parse::<u32>().ok())
        })
        .ok_or_else(|| "whether the app still ran as the visit ended was not said".to_owned())?;
    let rest: String = lines.collect::<Vec<_>>().join("\n");
    let (focus, body) = split_focus(&rest);
    let elsewhere = focus
        .zip(pid)
        .and_then(|(table, pid)| elsewhere(table, pid));
    let listed = command.contains("hidumper -e --list");
    let parsed = if listed {
        parse_list(body, bundle)
    } else {
        parse_dump(body, bundle)
    };
    let listed_faults = parsed.map_err(|e: FaultsError| e.to_string())?;
    let mut faults = Vec::new();
    let mut others = 0u64;
    for mut fault in listed_faults.faults {
        if !within(&fault, (since, until)) {
            others += 1;
            continue;
        }
        if let Some(path) = files.get(&printed(&fault.id)) {
            let said = read(path)?;
            fault.lines = said
                .lines()
                .take(crate::probe::faults::FIRST_LINES)
                .map(|l| crate::text::one_line(l, 240).into_owned())
                .collect();
        }
        faults.push(fault);
    }
    let on_phone = listed_faults.on_phone.unwrap_or(0);
    Ok(VisitFaults {
        source: if listed {
            "hidumper -e --list"
        } else {
            "hidumper -e (the fault logger's files)"
        },
        others: others.max(on_phone.saturating_sub(faults.len() as u64)),
        faults,
        running: pid.is_some(),
        elsewhere,
    })
}

/// The window manager's table a visit's end kept, if it kept one, and the records after it.
fn split_focus(said: &str) -> (Option<&str>, &str) {
    match said.split_once(FOCUS_MARK) {
        Some((_, after)) => match after.split_once(RECORDS_MARK) {
            Some((table, records)) => (Some(table), records),
            None => (Some(after), ""),
        },
        None => (None, said),
    }
}

/// Another app's window with the focus, where the table says so: a window of an app (not the
/// system's) of another process than `pid`.
fn elsewhere(table: &str, pid: u32) -> Option<String> {
    let table = crate::probe::hidumper::windows(table).ok()?;
    let focus = table.focus?;
    let window = table.windows.iter().find(|w| w.id == focus)?;
    (window.is_apps() && window.pid != pid).then(|| {
        format!(
            "another app's window had the focus as the visit ended: {} (window {}, pid {})",
            window.name, window.id, window.pid
        )
    })
}
