//! One phone tool's call answered: its line found in the capture, its part of the reply
//! printed with its status, the files it was told to write written; `bm` on a device with builds.

use super::super::{Kind, Named, SENTINEL, State, said_state};
use crate::line::{Part, Said};
use dwpipe::device::{Capture, Operation, identity_command, render_identity, state_command};
use dwpipe::shell::ShellCommand;
use std::path::{Path, PathBuf};

/// The tools fake-hdc answers as, by the name it was started under.
pub(crate) const TOOLS: [&str; 10] = [
    "aa",
    "bm",
    "cat",
    "hidumper",
    "hitrace",
    "param",
    "pidof",
    "snapshot_display",
    "SP_daemon",
    "uitest",
];

/// Where the real `cat` is, for what the phone's `cat` does not answer.
pub(super) const REAL_CAT: &str = "/usr/bin/cat";

/// Runs as `tool` with `args`; the exit status.
pub(crate) fn run(tool: &str, args: &[String]) -> i32 {
    let mut words = vec![tool.to_owned()];
    words.extend(args.iter().cloned());
    let answered = answer(tool, &words);
    match answered {
        Ok(Some(said)) => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(said.output.as_bytes());
            said.status
        }
        Ok(None) if tool == "cat" => real_cat(args),
        Ok(None) => {
            eprintln!(
                "fake-hdc (as {tool}): the capture never answers `{}`",
                words.join(" ")
            );
            127
        }
        Err(e) => {
            eprintln!("fake-hdc (as {tool}): {e}");
            125
        }
    }
}

pub(super) fn real_cat(args: &[String]) -> i32 {
    // The phone's tools run under a Linux hdcd only (the real-hdc suite): `cat` becomes the
    // real one, in place.
    #[cfg(unix)]
    let error =
        std::os::unix::process::CommandExt::exec(std::process::Command::new(REAL_CAT).args(args));
    #[cfg(not(unix))]
    let error = format!("runs as a phone tool only under a Linux hdcd ({args:?})");
    eprintln!("fake-hdc (as cat): {REAL_CAT}: {error}");
    126
}

/// The device folder named by `DWPIPE_FAKE_PHONE`.
pub(super) fn device() -> Result<super::super::Served, String> {
    let folder = std::env::var_os("DWPIPE_FAKE_PHONE")
        .map(PathBuf::from)
        .ok_or("DWPIPE_FAKE_PHONE names no device folder")?;
    Named {
        server: None,
        folder,
        serial: Some("phone".to_owned()),
    }
    .load()
}

/// The line the calling shell runs (without dwpipe's status line), or the call's own words
/// when no shell runs it (hdcd starts `bm` through `sh -c`, which becomes `bm`).
pub(super) fn calling_line(words: &[String]) -> String {
    let own = || words.join(" ");
    let parent = crate::parent::parent_id();
    let Ok(cmdline) = std::fs::read(format!("/proc/{parent}/cmdline")) else {
        return own();
    };
    let argv: Vec<String> = cmdline
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    match argv.as_slice() {
        [shell, flag, line, ..] if shell.ends_with("sh") && flag == "-c" => {
            let line = line.trim();
            let line = line
                .strip_suffix(&format!("; echo {SENTINEL}$?"))
                .unwrap_or(line);
            line.to_owned()
        }
        _ => own(),
    }
}

/// What the tool says, or `None` when nothing in the device's material answers it.
pub(super) fn answer(tool: &str, words: &[String]) -> Result<Option<Said>, String> {
    if tool == "cat" && !words[1..].iter().all(|w| w.starts_with("/proc/")) {
        return Ok(None);
    }
    let device = device()?;
    let state = device.state();
    let line = calling_line(words);
    if tool == "bm" {
        return bundle_manager(&device, &state, words).map(Some);
    }
    // The identity and an unrecorded state are the device's own, as fake-hdc answers them.
    let own = |reply: String| part_of(&line, &reply, 0, words, &mut Vec::new());
    if line == identity_command().as_str() {
        return own(render_identity(device.info()));
    }
    let command = ShellCommand::from_capture(&line).map_err(|e| e.to_string())?;
    let operation = Operation::Shell(command);
    let (capture, key) = match &device.device {
        Kind::Transcript(capture) => (capture, "phone".to_owned()),
        Kind::Apps(apps) => match apps.installed_app(&state) {
            Some(app) => (&app.capture, format!("{}.phone", app.hap)),
            None => return Err(format!("nothing is installed to answer `{line}`")),
        },
        Kind::Screens(_) => return Err("a screens app is fake-hdc's own, not a phone's".into()),
    };
    let _guard = state.lock().map_err(|e| format!("its place: {e}"))?;
    let mut place = state.place(&key);
    let index = match place.current {
        Some(current)
            if capture.exchange(current, &operation).is_ok()
                && part_index(&line, words, &place.served).is_some() =>
        {
            current
        }
        current => {
            let from = current.map_or(0, |c| c + 1);
            match capture.next_answering(from, &operation) {
                Some(index) => {
                    place.served.clear();
                    index
                }
                None if line == state_command().as_str() => {
                    return own(said_state(&device));
                }
                None => return Ok(None),
            }
        }
    };
    let exchange = capture
        .exchange(index, &operation)
        .map_err(|e| e.to_string())?;
    if let Some(fault) = exchange.fault {
        return Err(format!(
            "exchange {} plays the fault `{fault:?}`, which is hdc's, not a phone tool's",
            index + 1
        ));
    }
    // Answered as a production phone of the capture's release answers it.
    let (reply, status) = crate::policy::production(
        capture.info.api_level,
        &line,
        &exchange.reply,
        exchange.status,
    )?;
    let said = part_of(&line, &reply, status, words, &mut place.served)?;
    place.current = Some(index);
    state.keep_place(&key, &place);
    if said.is_some() {
        write_pulled_files(capture, index, words)?;
    }
    Ok(said)
}

/// This call's part of `reply` to `line` (the first of its words not yet `served`), marked
/// served.
pub(super) fn part_of(
    line: &str,
    reply: &str,
    status: i32,
    words: &[String],
    served: &mut Vec<usize>,
) -> Result<Option<Said>, String> {
    let Some(index) = part_index(line, words, served) else {
        return Ok(None);
    };
    let parts =
        crate::line::parts(line).ok_or_else(|| format!("`{line}` is more than commands"))?;
    let said = crate::line::said(&parts, reply, status, |w| {
        w.first().is_some_and(|t| TOOLS.contains(&t.as_str()))
    })
    .ok_or_else(|| format!("the recorded reply to `{line}` lacks one of its markers"))?;
    served.push(index);
    Ok(said[index].clone())
}

/// Which command of `line` this call is: the first with its words that was not served yet.
pub(super) fn part_index(line: &str, words: &[String], served: &[usize]) -> Option<usize> {
    let parts = crate::line::parts(line)?;
    parts.iter().enumerate().position(|(i, part)| {
        !served.contains(&i) && matches!(part, Part::Command { words: w, .. } if w == words)
    })
}

/// Every file the capture pulls next that this call was told to write (an absolute path among
/// its words), written there from the capture, checked against its recorded SHA-256.
pub(super) fn write_pulled_files(
    capture: &Capture,
    index: usize,
    words: &[String],
) -> Result<(), String> {
    for path in words.iter().filter(|w| w.starts_with('/')) {
        let pull = Operation::Pull(path.clone());
        let Some(at) = capture.next_answering(index, &pull) else {
            continue;
        };
        let exchange = capture.exchange(at, &pull).map_err(|e| e.to_string())?;
        capture
            .copy_verified(at, exchange, Path::new(path))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `bm install [-r] -p HAP` and `bm uninstall -n BUNDLE`, on a device with builds.
pub(super) fn bundle_manager(
    device: &super::super::Served,
    state: &State,
    words: &[String],
) -> Result<Said, String> {
    let Kind::Apps(apps) = &device.device else {
        return Err("bm acts on a device with builds (apps.yaml) only".into());
    };
    let after = |flag: &str| {
        words
            .iter()
            .position(|w| w == flag)
            .and_then(|i| words.get(i + 1))
    };
    let said = match words.get(1).map(String::as_str) {
        Some("install") => {
            let hap = after("-p").ok_or("bm install without -p HAP")?;
            let file = std::fs::File::open(hap).map_err(|e| format!("{hap}: {e}"))?;
            let version = dwpipe::probe::hap::version(file).map_err(|e| format!("{hap}: {e}"))?;
            match apps.of_version(version.code) {
                Some(app) => apps.install(state, app),
                None => Err(format!(
                    "error: failed to install bundle.\ncode:9568305\nerror: no build of version code {} here.\n",
                    version.code
                )),
            }
        }
        Some("uninstall") => {
            let bundle = after("-n").ok_or("bm uninstall without -n BUNDLE")?;
            apps.uninstall(state, bundle)
        }
        _ => {
            return Err(format!(
                "`{}` is not a bm call dwpipe makes",
                words.join(" ")
            ));
        }
    };
    Ok(match said {
        Ok(output) => Said { output, status: 0 },
        Err(output) => Said { output, status: 1 },
    })
}
