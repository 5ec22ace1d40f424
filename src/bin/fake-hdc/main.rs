//! `fake-hdc`: a stand-in for the `hdc` client that serves recorded captures through the real
//! process path, for tests and for trying dwpipe without a device. It behaves like hdc where
//! dwpipe can tell: exit status always 0, everything on stdout, `[Fail]…` lines, `Connect
//! server failed` on stderr, `\r\n` endings on its own messages.
//!
//! Environment:
//! - `DWPIPE_FAKE_HDC_CAPTURES`: comma-separated capture folders, each optionally prefixed by
//!   the server that serves it (`10.0.0.5:8710=/caps/phone-a`); no prefix means the local server.
//!   A folder may end in `@SERIAL`: the device answers to that connect key instead of its
//!   recorded one, so one capture serves as several devices of a lab (`caps/phone@LAB02`).
//!   A folder with `screens.yaml` instead of a transcript is a fake app that answers taps by
//!   changing screens (see `screens.rs`); one with `apps.yaml` is a device with builds of an
//!   app to install, each answered by its own capture (see `apps.rs`).
//! - `DWPIPE_FAKE_HDC_STATE`: folder keeping each device's position in its transcript between
//!   invocations (default: a folder under the system temp dir).
//! - `DWPIPE_FAKE_HDC_LATENCY`: time every call takes (`200ms`).
//! - `DWPIPE_FAKE_HDC_DOWN=1`: every server is unreachable.
//!
//! Faults come from the captures themselves (`fault: hang | vanish | hdc-reply`, `flood`).
//!
//! It has no server side: what talks to hdc's server over TCP is tested against OpenHarmony's
//! real one (tests/it/real_hdc). Started under a phone tool's name (`param`, `hidumper`, …) it
//! is that tool on a real hdcd instead: see `phone`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dwpipe::device::{Capture, DeviceInfo, Exchange, Fault, Operation, SENTINEL};
use dwpipe::device::{identity_command, render_identity, state_command};
use dwpipe::input::parse_duration;
use dwpipe::shell::ShellCommand;

mod apps;
mod phone;
mod screens;

use apps::Apps;
use screens::Screens;

/// A fake device folder's `device.yaml` and its document `name` (`screens.yaml`,
/// `apps.yaml`), when the folder has that document; why they cannot be read, else.
fn fake_device<T: serde::de::DeserializeOwned>(
    root: &Path,
    name: &str,
) -> Option<Result<(DeviceInfo, T), String>> {
    if !root.join(name).is_file() {
        return None;
    }
    let read = |name: &str| -> Result<String, String> {
        std::fs::read_to_string(root.join(name)).map_err(|e| format!("{name}: {e}"))
    };
    Some((|| {
        let info = serde_saphyr::from_str(&read("device.yaml")?)
            .map_err(|e| format!("device.yaml: {e}"))?;
        let doc = serde_saphyr::from_str(&read(name)?).map_err(|e| format!("{name}: {e}"))?;
        Ok((info, doc))
    })())
}

/// A device named in `DWPIPE_FAKE_HDC_CAPTURES`: where it is served, and the connect key it
/// answers to when the entry says so. Its identity (`device.yaml`) is read when a listing or
/// a call needs it, its capture only when a call addresses it: in a lab of a hundred captures
/// a call costs one capture's parse, not a hundred.
struct Named {
    server: Option<String>,
    folder: PathBuf,
    serial: Option<String>,
}

/// One served device: a recorded transcript, or a screens app.
struct Served {
    server: Option<String>,
    device: Kind,
    /// Its folder: a `state.txt` there is what it says of its state (else a phone at rest).
    folder: PathBuf,
}

enum Kind {
    Transcript(Capture),
    Screens(Screens),
    Apps(Apps),
}

/// Where a device stands between invocations: one device per server and serial (the same
/// connect key on two servers, as emulators are, is two devices).
fn state_of(server: Option<&String>, serial: &str) -> State {
    match server {
        Some(server) => State::of(&format!("{server}_{serial}")),
        None => State::of(serial),
    }
}

impl Named {
    /// Who the device is, under the connect key it answers to.
    fn info(&self) -> Result<DeviceInfo, String> {
        let path = self.folder.join("device.yaml");
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut info: DeviceInfo =
            serde_saphyr::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(serial) = &self.serial {
            serial.clone_into(&mut info.serial);
        }
        Ok(info)
    }

    /// The whole device: its transcript, screens or builds, under the connect key it answers to.
    fn load(&self) -> Result<Served, String> {
        let folder = self.folder.as_path();
        let device = match (Screens::load(folder), Apps::load(folder)) {
            (Some(screens), _) => screens.map(Kind::Screens),
            (None, Some(apps)) => apps.map(Kind::Apps),
            (None, None) => Capture::load(folder)
                .map(Kind::Transcript)
                .map_err(|e| e.to_string()),
        }?;
        let mut served = Served {
            server: self.server.clone(),
            device,
            folder: self.folder.clone(),
        };
        if let Some(serial) = &self.serial {
            serial.clone_into(&mut served.info_mut().serial);
        }
        Ok(served)
    }
}

impl Served {
    fn state(&self) -> State {
        state_of(self.server.as_ref(), &self.info().serial)
    }

    fn info(&self) -> &DeviceInfo {
        match &self.device {
            Kind::Transcript(capture) => &capture.info,
            Kind::Screens(screens) => &screens.info,
            Kind::Apps(apps) => &apps.info,
        }
    }

    fn info_mut(&mut self) -> &mut DeviceInfo {
        match &mut self.device {
            Kind::Transcript(capture) => &mut capture.info,
            Kind::Screens(screens) => &mut screens.info,
            Kind::Apps(apps) => &mut apps.info,
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Started under a phone tool's name, it is that tool on a real hdcd (see `phone`).
    let called = std::env::args_os()
        .next()
        .map(PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    if phone::TOOLS.contains(&called.as_str()) {
        std::process::exit(phone::run(&called, &args));
    }
    let (server, serial, command) = split_globals(&args);
    if let Some(latency) = std::env::var("DWPIPE_FAKE_HDC_LATENCY")
        .ok()
        .and_then(|l| parse_duration(&l).ok())
    {
        std::thread::sleep(latency);
    }
    let mut out = String::new();
    let reachable = std::env::var("DWPIPE_FAKE_HDC_DOWN").map_or(true, |v| v != "1");
    let named = named_devices();
    let known_server = server.is_none() || named.iter().any(|s| s.server == server);
    if !reachable || !known_server {
        eprintln!("Connect server failed");
        return;
    }
    let here: Vec<&Named> = named.iter().filter(|s| s.server == server).collect();
    match command.first().map(String::as_str) {
        Some("list") => out.push_str(&list_targets(&here)),
        Some("-v" | "version") => out.push_str("Ver: 3.2.0f\n"),
        Some("kill") => out.push_str("Kill server finish\r\n"),
        Some(_) => match serial.and_then(|key| addressed(&here, key)) {
            Some(device) => match device.load() {
                Ok(device) => out.push_str(&device_command(&device, &command)),
                Err(e) => out.push_str(&fail(&e)),
            },
            None if serial.is_none() => {
                out.push_str("[Fail]ExecuteCommand need connect-key? please confirm a device by help info\r\n");
            }
            None => {
                out.push_str("[Fail]Not match target founded, check connect-key please\r\n");
            }
        },
        None => out.push_str("Unknown operation command...\r\n"),
    }
    let _ = std::io::stdout().write_all(out.as_bytes());
}

/// `[-s HOST:PORT] [-p] [-t SERIAL] command…`
fn split_globals(args: &[String]) -> (Option<String>, Option<&str>, Vec<String>) {
    let (mut server, mut serial, mut i) = (None, None, 0);
    while i < args.len() {
        match args[i].as_str() {
            "-s" => {
                server = args.get(i + 1).cloned();
                i += 2;
            }
            "-t" => {
                serial = args.get(i + 1).map(String::as_str);
                i += 2;
            }
            "-p" => i += 1,
            _ => break,
        }
    }
    (server, serial, args[i.min(args.len())..].to_vec())
}

fn named_devices() -> Vec<Named> {
    let list = std::env::var("DWPIPE_FAKE_HDC_CAPTURES").unwrap_or_default();
    list.split(',')
        .filter(|entry| !entry.trim().is_empty())
        .map(|entry| {
            let (server, folder) = match entry.split_once('=') {
                Some((server, folder)) => (Some(server.to_owned()), folder),
                None => (None, entry),
            };
            let (folder, serial) = match folder.rsplit_once('@') {
                Some((folder, serial)) => (folder, Some(serial.to_owned())),
                None => (folder, None),
            };
            Named {
                server,
                folder: PathBuf::from(folder),
                serial,
            }
        })
        .collect()
}

/// The device a call's connect key names: those named by their entry first (no file read),
/// then the others by their identity.
fn addressed<'a>(here: &[&'a Named], key: &str) -> Option<&'a Named> {
    here.iter()
        .find(|n| n.serial.as_deref() == Some(key))
        .or_else(|| {
            here.iter()
                .find(|n| n.serial.is_none() && n.info().is_ok_and(|info| info.serial == key))
        })
        .copied()
}

/// A broken capture, reported the way hdc reports trouble: on stdout.
fn fail(error: &str) -> String {
    format!("[Fail]fake-hdc: {error}\r\n")
}

fn list_targets(devices: &[&Named]) -> String {
    if devices.is_empty() {
        return "[Empty]\r\thdc\n".to_owned();
    }
    devices
        .iter()
        .map(|d| {
            let info = match d.info() {
                Ok(info) => info,
                Err(e) => return fail(&e),
            };
            let serial = &info.serial;
            let status = if state_of(d.server.as_ref(), serial).vanished() {
                "Offline"
            } else {
                "Connected"
            };
            let transport = if serial.contains(':') { "TCP" } else { "USB" };
            format!("{serial}\t\t{transport}\t{status}\tlocalhost\thdc\n")
        })
        .collect()
}

/// Where one device stands in its transcript, kept in files between invocations.
struct State {
    dir: PathBuf,
    serial: String,
}

impl State {
    fn of(serial: &str) -> State {
        let dir = std::env::var_os("DWPIPE_FAKE_HDC_STATE").map_or_else(
            || std::env::temp_dir().join("dwpipe-fake-hdc"),
            PathBuf::from,
        );
        let _ = std::fs::create_dir_all(&dir);
        State {
            dir,
            serial: serial.replace([':', '/'], "_"),
        }
    }

    fn file(&self, what: &str) -> PathBuf {
        self.dir.join(format!("{}.{what}", self.serial))
    }

    /// The next exchange of the device's transcript (`key`: `next`), or of one build's
    /// capture (`<hap>.next`).
    fn next(&self, key: &str) -> usize {
        std::fs::read_to_string(self.file(key))
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0)
    }

    fn advance(&self, key: &str, to: usize) {
        let _ = std::fs::write(self.file(key), to.to_string());
    }

    /// Held while a phone tool finds and takes its place: a line's commands run side by side.
    fn lock(&self) -> std::io::Result<std::fs::File> {
        let file = std::fs::File::create(self.file("lock"))?;
        file.lock()?;
        Ok(file)
    }

    /// Where a phone tool's capture (`key`) stands: its current exchange and which of that
    /// line's commands were answered.
    fn place(&self, key: &str) -> Place {
        let text = std::fs::read_to_string(self.file(&format!("{key}.place"))).unwrap_or_default();
        let mut numbers = text.split_whitespace().filter_map(|n| n.parse().ok());
        Place {
            current: numbers.next(),
            served: numbers.collect(),
        }
    }

    fn keep_place(&self, key: &str, place: &Place) {
        let text: Vec<String> = place
            .current
            .iter()
            .chain(&place.served)
            .map(ToString::to_string)
            .collect();
        let text = text.join(" ");
        let _ = std::fs::write(self.file(&format!("{key}.place")), text);
    }

    fn vanished(&self) -> bool {
        self.file("vanished").exists()
    }

    fn vanish(&self) {
        let _ = std::fs::write(self.file("vanished"), "");
    }
}

/// Where a phone tool's capture stands (see `State::place`).
struct Place {
    current: Option<usize>,
    served: Vec<usize>,
}

/// The identity reply, from `device.yaml`.
fn identity(info: &DeviceInfo, wants_status: bool) -> String {
    let status = if wants_status {
        format!("{SENTINEL}0\n")
    } else {
        String::new()
    };
    format!("{}{status}", render_identity(info))
}

/// The shell line hdc was given, without its quotes, and whether dwpipe asked for the status.
fn shell_body(rest: &[&str]) -> (String, bool) {
    let line = rest.join(" ");
    let line = line.trim().trim_matches('"');
    match line.strip_suffix(&format!("; echo {SENTINEL}$?")) {
        Some(body) => (body.to_owned(), true),
        None => (line.to_owned(), false),
    }
}

/// A command to a screens app.
fn screens_command(screens: &Screens, state: &State, command: &[String]) -> String {
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
fn no_such_file(remote: &str) -> String {
    format!("[Fail]Error opening file: no such file or directory, path:{remote}\r\n")
}

const GONE: &str = "[Fail][E001005] Device not found or connected\r\n";

/// What the device says of its state: its folder's `state.txt`, else a phone at rest
/// (charged, unplugged, awake, cool, unlocked) at its own refresh rate.
fn state_reply(device: &Served) -> String {
    format!("{}{SENTINEL}0\n", said_state(device))
}

/// What the device says of its state, without the status line.
fn said_state(device: &Served) -> String {
    std::fs::read_to_string(device.folder.join("state.txt")).unwrap_or_else(|_| {
        dwpipe::audit::render_state(90, 0, 300, false, device.info().refresh_rate.unwrap_or(60))
    })
}

/// Whether `command` asks for the device's state and the device answers it itself (a
/// screens app or an app switcher always, a transcript when it did not record the call).
fn answers_state(device: &Served, command: &[String]) -> bool {
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

fn device_command(device: &Served, command: &[String]) -> String {
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
                Err(e) => return format!("[Fail]fake-hdc: {e}\r\n"),
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
fn app_reply(operation: &str, path: &str, said: Result<String, String>) -> String {
    let words = said.unwrap_or_else(|refused| refused).replace('\n', " ");
    let end = if operation == "install" { "\n" } else { "\r\n" };
    format!("[Info]App {operation} path:{path} msg:{words}{end}AppMod finish{end}")
}

/// The operation hdc was asked for, with the local path of a pull; the reply itself when
/// the fake answers without a capture (the identity, a command it does not know).
fn operation<'c>(
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
fn serve(
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
        Operation::Shell(_) => {
            let mut reply = exchange.reply.clone();
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
            format!("{reply}{SENTINEL}{}\n", exchange.status)
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
