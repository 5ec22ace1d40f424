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
//!   invocations, shared by every run that names it (default: a folder of each run's own under
//!   the system temp dir, so a second run starts every device from its first reply).
//! - `DWPIPE_FAKE_HDC_LATENCY`: time every call takes (`200ms`).
//! - `DWPIPE_FAKE_HDC_DOWN=1`: every server is unreachable.
//!
//! Faults come from the captures themselves (`fault: hang | vanish | hdc-reply`, `flood`).
//!
//! It has no server side: what talks to hdc's server over TCP is tested against OpenHarmony's
//! real one (tests/it/real_hdc). Started under a phone tool's name (`param`, `hidumper`, …) it
//! is that tool on a real hdcd instead: see `phone`.

use std::io::Write;
use std::path::PathBuf;

use dwpipe::device::SENTINEL;
use dwpipe::input::parse_duration;

mod apps;
mod devices;
mod line;
mod parent;
mod phone;
mod policy;
mod screens;
mod serve;
mod state;

use devices::{
    Kind, Named, Served, addressed, fail, fake_device, list_targets, named_devices, split_globals,
};
use serve::{device_command, said_state};
use state::State;

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
