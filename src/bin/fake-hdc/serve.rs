//! A call to a served device answered: from its transcript in order (its faults played), from
//! the installed build's capture, or by the device itself (its identity, its state).

use super::screens::Screens;
use super::{Kind, Served, State, fail};
use dwpipe::device::{Capture, DeviceInfo, Exchange, Fault, Operation, SENTINEL};
use dwpipe::device::{identity_command, render_identity, state_command};
use dwpipe::shell::ShellCommand;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// The identity reply, from `device.yaml`.
pub(super) fn identity(info: &DeviceInfo, wants_status: bool) -> String {
    let status = if wants_status {
        format!("{SENTINEL}0\n")
    } else {
        String::new()
    };
    format!("{}{status}", render_identity(info))
}

/// The shell line hdc was given, without its quotes, and whether dwpipe asked for the status.
pub(super) fn shell_body(rest: &[&str]) -> (String, bool) {
    let line = rest.join(" ");
    let line = line.trim().trim_matches('"');
    match line.strip_suffix(&format!("; echo {SENTINEL}$?")) {
        Some(body) => (body.to_owned(), true),
        None => (line.to_owned(), false),
    }
}

/// A command to a screens app.
pub(super) fn screens_command(screens: &Screens, state: &State, command: &[String]) -> String {
    let words: Vec<&str> = command.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["shell", rest @ ..] => {
            let (body, wants_status) = shell_body(rest);
            if body == identity_command().as_str() {
                return identity(&screens.info, wants_status);
            }
            screens.shell(&state.dir, &body)
        }
        ["file", "recv", remote, local] => match screens.pulled(&state.dir, remote) {
            Some(file) => match std::fs::copy(&file, local) {
                Ok(size) => format!(
                    "FileTransfer finish, Size:{size}, File count = 1, time:1ms rate:1000.00kB/s\n"
                ),
                Err(e) => format!("[Fail]fake-hdc: {}: {e}\r\n", file.display()),
            },
            None => no_such_file(remote),
        },
        _ => "Unknown operation command...\r\n".to_owned(),
    }
}

/// What hdc says of a file the device does not have.
pub(super) fn no_such_file(remote: &str) -> String {
    format!("[Fail]Error opening file: no such file or directory, path:{remote}\r\n")
}

pub(super) const GONE: &str = "[Fail][E001005] Device not found or connected\r\n";

/// What the device says of its state: its folder's `state.txt`, else a phone at rest
/// (charged, unplugged, awake, cool, unlocked) at its own refresh rate.
pub(super) fn state_reply(device: &Served) -> String {
    format!("{}{SENTINEL}0\n", said_state(device))
}

/// What the device says of its state, without the status line.
pub(super) fn said_state(device: &Served) -> String {
    std::fs::read_to_string(device.folder.join("state.txt")).unwrap_or_else(|_| {
        dwpipe::audit::render_state(90, 0, 300, false, device.info().refresh_rate.unwrap_or(60))
    })
}

/// Whether `command` asks for the device's state and the device answers it itself (a
/// screens app or an app switcher always, a transcript when it did not record the call).
pub(super) fn answers_state(device: &Served, command: &[String]) -> bool {
    let asks = matches!(command, [shell, rest @ ..] if shell == "shell"
        && shell_body(&rest.iter().map(String::as_str).collect::<Vec<_>>()).0
            == state_command().as_str());
    asks && match &device.device {
        Kind::Transcript(capture) => {
            let next = capture.skip_unsent(device.state().next("next"));
            capture
                .exchange(next, &Operation::Shell(state_command()))
                .is_err()
        }
        Kind::Screens(_) | Kind::Apps(_) => true,
    }
}

pub(super) fn device_command(device: &Served, command: &[String]) -> String {
    if answers_state(device, command) {
        return state_reply(device);
    }
    if let Kind::Screens(screens) = &device.device {
        return screens_command(screens, &device.state(), command);
    }
    let info = device.info();
    let state = device.state();
    if state.vanished() {
        return GONE.to_owned();
    }
    let (operation, local) = match operation(info, command) {
        Ok(operation) => operation,
        Err(reply) => return reply,
    };
    match &device.device {
        Kind::Transcript(capture) => {
            let index = capture.skip_unsent(state.next("next"));
            let exchange = match capture.exchange(index, &operation) {
                Ok(exchange) => exchange,
                Err(e) => {
                    return match state.stale() {
                        Some(stale) => format!("[Fail]fake-hdc: {e}; {stale}\r\n"),
                        None => format!("[Fail]fake-hdc: {e}\r\n"),
                    };
                }
            };
            state.advance("next", index + 1);
            serve(capture, (index, exchange), &operation, local, &state)
        }
        Kind::Apps(apps) => {
            match &operation {
                Operation::Install(hap) => {
                    let Some(app) = apps.named(hap) else {
                        return "[Fail][E006001] Not any installation package was found.\r\n"
                            .to_owned();
                    };
                    return app_reply("install", local.unwrap_or(hap), apps.install(&state, app));
                }
                Operation::Uninstall(bundle) => {
                    return app_reply("uninstall", "", apps.uninstall(&state, bundle));
                }
                _ => {}
            }
            let (app, index) = match (apps.answering(&state, &operation), &operation) {
                (Ok(answering), _) => answering,
                // A file no build's capture pulls is not on the device: hdc's words for it.
                (Err(_), Operation::Pull(remote)) => return no_such_file(remote),
                (Err(e), _) => return format!("[Fail]fake-hdc: {e}\r\n"),
            };
            state.advance(&format!("{}.next", app.hap), index + 1);
            match app.capture.exchange(index, &operation) {
                Ok(exchange) => serve(&app.capture, (index, exchange), &operation, local, &state),
                Err(e) => format!("[Fail]fake-hdc: {e}\r\n"),
            }
        }
        Kind::Screens(_) => unreachable!("answered above"),
    }
}

/// hdc's reply to `install`/`uninstall`: the bundle manager's words on one line (hdcd's
/// `AsyncInstallFinish` turns each `\n` into a blank), in the client's `[Info]App` form, as
/// the real client prints it (the HAP's host path; `\n` after an install, `\r\n` after an
/// uninstall).
pub(super) fn app_reply(operation: &str, path: &str, said: Result<String, String>) -> String {
    let words = said.unwrap_or_else(|refused| refused).replace('\n', " ");
    let end = if operation == "install" { "\n" } else { "\r\n" };
    format!("[Info]App {operation} path:{path} msg:{words}{end}AppMod finish{end}")
}

/// The operation hdc was asked for, with the local path of a pull; the reply itself when
/// the fake answers without a capture (the identity, a command it does not know).
pub(super) fn operation<'c>(
    info: &DeviceInfo,
    command: &'c [String],
) -> Result<(Operation, Option<&'c str>), String> {
    let words: Vec<&str> = command.iter().map(String::as_str).collect();
    Ok(match words.as_slice() {
        ["shell", rest @ ..] => {
            let (body, wants_status) = shell_body(rest);
            let body = body.as_str();
            if body == identity_command().as_str() {
                return Err(identity(info, wants_status));
            }
            match ShellCommand::from_capture(body) {
                Ok(shell) => (Operation::Shell(shell), None),
                Err(e) => return Err(format!("[Fail]fake-hdc: {e}\r\n")),
            }
        }
        ["file", "recv", remote, local] => (Operation::Pull((*remote).to_owned()), Some(*local)),
        ["file", "send", _, remote] => (Operation::Push((*remote).to_owned()), None),
        ["install", .., hap] => {
            let name = Path::new(hap)
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            (Operation::Install(name), Some(*hap))
        }
        ["uninstall", bundle] => (Operation::Uninstall((*bundle).to_owned()), None),
        _ => return Err("Unknown operation command...\r\n".to_owned()),
    })
}

/// The reply of a recorded exchange (the `index`-th of `capture`), its faults played.
pub(super) fn serve(
    capture: &Capture,
    (index, exchange): (usize, &Exchange),
    operation: &Operation,
    local: Option<&str>,
    state: &State,
) -> String {
    match exchange.fault {
        Some(Fault::Vanish) => {
            state.vanish();
            return GONE.to_owned();
        }
        Some(Fault::Hang) => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
        Some(Fault::HdcReply) => return exchange.reply.clone(),
        None => {}
    }
    match operation {
        Operation::Shell(command) => {
            // Answered as a production phone of the capture's release answers it.
            let (mut reply, status) = match crate::policy::production(
                capture.info.api_level,
                command.as_str(),
                &exchange.reply,
                exchange.status,
            ) {
                Ok(answer) => answer,
                Err(e) => return format!("[Fail]fake-hdc: {e}\r\n"),
            };
            if exchange.flood > 0 {
                // Streamed, so the fake itself never holds the flood in memory.
                let _ = std::io::stdout().write_all(reply.as_bytes());
                let chunk = vec![b'x'; 64 * 1024];
                let mut left = exchange.flood;
                while left > 0 {
                    let n = left.min(chunk.len() as u64) as usize;
                    if std::io::stdout().write_all(&chunk[..n]).is_err() {
                        break;
                    }
                    left -= n as u64;
                }
                reply = "\n".to_owned();
            }
            format!("{reply}{SENTINEL}{status}\n")
        }
        Operation::Pull(_) => match local {
            Some(local) => match capture.copy_verified(index, exchange, Path::new(local)) {
                Ok(size) => format!(
                    "FileTransfer finish, Size:{size}, File count = 1, time:1ms rate:1000.00kB/s\n"
                ),
                Err(e) => format!("[Fail]fake-hdc: {e}\r\n"),
            },
            None => "[Fail]Unknown file option\r\n".to_owned(),
        },
        Operation::Push(_) => {
            "FileTransfer finish, Size:1, File count = 1, time:1ms rate:1.00kB/s\n".to_owned()
        }
        Operation::Install(_) | Operation::Uninstall(_) if !exchange.reply.is_empty() => {
            exchange.reply.clone()
        }
        Operation::Install(_) => app_reply(
            "install",
            local.unwrap_or_default(),
            Ok("install bundle successfully.\n".to_owned()),
        ),
        Operation::Uninstall(_) => app_reply(
            "uninstall",
            "",
            Ok("uninstall bundle successfully.\n".to_owned()),
        ),
        // `operation` never reads these from a command line: a pause is the host's, a visit
        // mark only the capture's.
        Operation::Sleep(_) => fail("a pause is not an hdc call"),
        Operation::Visit(_) => fail("a visit mark is not an hdc call"),
    }
}
