//! A simulated phone for the device-time bench: it answers what each call asks from a capture
//! (the next recorded exchange for that operation, not the capture's order, so sessions that
//! wait otherwise than the recording still get their replies), takes a delay per call that a
//! phone on USB takes, and runs an app whose window is focused and drawn some time after
//! `aa start`, which it reports to `pidof` and the window manager's dumps as a phone does.
//!
//! The delays are assumptions, not measurements (no capture in `../shared/captures` times
//! its calls); they are written here so the figures can be read against them. A second set
//! ([`Delays::SLOW`]: every call twice as long, pulls at 10 MB/s) shows whether a figure rests
//! on the first. A shell string of several commands is charged each command's time, its hdc
//! round trip once, and commands side by side the longest one's. `SIM_LOG=1` prints every
//! call with the clock.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use dwpipe::device::{Capture, Device, DeviceError, DeviceInfo, Operation, ShellReply};
use dwpipe::shell::{ShellCommand, ShellValue};

/// After `aa start` of a stopped app: its process appears, then its window is drawn (Huawei's
/// cold-start reference is 680 ms to the first frame).
const COLD_PROCESS: Duration = Duration::from_millis(150);
const COLD_DRAWN: Duration = Duration::from_millis(700);
/// After `aa start` of an app already running (brought to the front).
const WARM_DRAWN: Duration = Duration::from_millis(250);

/// How long the simulated phone takes: each call's time scaled, and the pulls' rate.
#[derive(Clone, Copy)]
pub(crate) struct Delays {
    /// Every call's assumed time, times this.
    pub(crate) scale: u32,
    /// Bytes per second a pull moves (after its round trip).
    pub(crate) pull_rate: f64,
}

impl Delays {
    /// The assumed phone on USB: the times below, pulls at 25 MB/s.
    pub(crate) const ASSUMED: Delays = Delays {
        scale: 1,
        pull_rate: 25e6,
    };
    /// A slower one: every call twice as long, pulls at 10 MB/s.
    pub(crate) const SLOW: Delays = Delays {
        scale: 2,
        pull_rate: 10e6,
    };
}

/// The hdc round trip inside each command's time below: a shell string of several commands
/// (`a; b`, `a && b`) pays it once and each command's own time after it.
const ROUND_TRIP: Duration = Duration::from_millis(30);

/// The time one call holds the device: each command of its shell string as [`command_delay`]
/// has it, one round trip in all; commands run side by side (`a & b`) take the longest one's
/// time (an assumption: two processes on a phone's eight cores).
fn delay(shell: &str) -> Duration {
    let commands: Vec<&str> = shell
        .split(';')
        .flat_map(|part| part.split("&&"))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let each: Duration = commands
        .iter()
        .map(|c| c.split(" & ").map(command_delay).max().unwrap_or_default())
        .sum();
    each - ROUND_TRIP * (commands.len().max(1) as u32 - 1)
}

/// The time one command holds the device, by what it runs (assumed), its round trip included.
fn command_delay(command: &str) -> Duration {
    let ms = match command {
        c if c.starts_with("aa start") => 180,
        c if c.starts_with("aa force-stop") => 90,
        c if c.starts_with("aa test") => 12_000,
        c if c.contains("--trace_begin") => 300,
        c if c.contains("--trace_finish") => 900,
        c if c.starts_with("uitest dumpLayout") => 1_100,
        c if c.starts_with("uitest screenCap") => 800,
        c if c.starts_with("uitest uiInput swipe") => 900,
        c if c.starts_with("uitest uiInput") => 350,
        c if c.starts_with("hidumper -s WindowManagerService -a -a") => 120,
        c if c.starts_with("hidumper") => 80,
        _ => 35,
    };
    Duration::from_millis(ms)
}

/// A pull: a round trip, then the bytes at the pull rate.
fn pull_delay(delays: Delays, bytes: u64) -> Duration {
    Duration::from_millis(30) * delays.scale
        + Duration::from_secs_f64(bytes as f64 / delays.pull_rate)
}

/// With `SIM_LOG` set, each call on stderr: the clock after it, its time, what it ran.
fn log(state: &State, took: Duration, what: &str) {
    if std::env::var_os("SIM_LOG").is_some() {
        eprintln!(
            "sim {:>8.3} s {:>6.3} s  {what}",
            state.clock.as_secs_f64(),
            took.as_secs_f64()
        );
    }
}

#[derive(Default)]
struct State {
    clock: Duration,
    /// Where the next exchange for an operation is looked for.
    cursor: usize,
    /// When the app was started, and how long it takes to be drawn; `None` while stopped.
    started: Option<(Duration, Duration)>,
    /// Readiness questions asked (`pidof` of the bundle).
    looks: u32,
}

/// The simulated phone.
pub(crate) struct SimDevice {
    capture: Capture,
    bundle: String,
    delays: Delays,
    state: Mutex<State>,
}

impl SimDevice {
    pub(crate) fn new(capture: &Path, bundle: &str, delays: Delays) -> SimDevice {
        SimDevice {
            capture: Capture::load(capture).unwrap(),
            bundle: bundle.to_owned(),
            delays,
            state: Mutex::new(State::default()),
        }
    }

    /// How often the audit asked whether the app was there.
    pub(crate) fn looks(&self) -> u32 {
        self.state.lock().unwrap().looks
    }

    /// The window manager's table: the app's window `notes0` (13) focused once drawn, the
    /// status bar before.
    fn windows(focused: bool) -> String {
        let focus = if focused { 13 } else { 9 };
        format!(
            "----------------------------------WindowManagerService----------------------------------\n-------------------------------------ScreenGroup 0-------------------------------------\nWindowName           DisplayId Pid     WinId Type Mode Flag ZOrd Orientation [ x    y    w    h    ]\nSystemUi_StatusBar   0         1572    9     2108 102  0    2    0           [ 0    0    1260 123  ]\nnotes0               0         5000    13    1    1    0    1    0           [ 0    0    1260 2720 ]\n---------------------------------------------------------------------------------------\nFocus window: {focus}\ntotal window num: 2\n"
        )
    }

    fn reply(&self, state: &mut State, command: &ShellCommand) -> (String, i32) {
        let text = command.as_str();
        let since = state
            .started
            .map(|(at, drawn)| (state.clock.saturating_sub(at), drawn));
        if text == format!("pidof {}", self.bundle) {
            state.looks += 1;
            return match since {
                Some((since, drawn)) if since >= COLD_PROCESS.min(drawn) => ("5000\n".into(), 0),
                _ => (String::new(), 1),
            };
        }
        let drawn = since.is_some_and(|(since, drawn)| since >= drawn);
        if text == "hidumper -s WindowManagerService -a -a" {
            return (Self::windows(drawn), 0);
        }
        if text == "hidumper -s WindowManagerService -a '-w 13'" {
            let first = u8::from(drawn);
            return (
                format!(
                    "WindowName: notes0\nWinId: 13\nPid: 5000\nFirstFrameCallbackCalled: {first}\nVisibilityState: 0\n"
                ),
                0,
            );
        }
        if text.starts_with("aa force-stop") {
            state.started = None;
        } else if text.starts_with("aa start") {
            let drawn = if state.started.is_some() {
                WARM_DRAWN
            } else {
                COLD_DRAWN
            };
            state.started = Some((state.clock, drawn));
        }
        let operation = Operation::Shell(command.clone());
        match self.capture.next_answering(state.cursor, &operation) {
            Some(index) => {
                state.cursor = index + 1;
                let exchange = self.capture.exchange(index, &operation).unwrap();
                (exchange.reply.clone(), exchange.status)
            }
            None => (format!("sim: nothing recorded answers `{text}`\n"), 1),
        }
    }
}

impl Device for SimDevice {
    fn serial(&self) -> &str {
        &self.capture.info.serial
    }

    async fn identity(&self) -> Result<DeviceInfo, DeviceError> {
        Ok(self.capture.info.clone())
    }

    async fn shell(&self, command: &ShellCommand) -> Result<ShellReply, DeviceError> {
        let mut state = self.state.lock().unwrap();
        let took = delay(command.as_str()) * self.delays.scale;
        state.clock += took;
        let (output, status) = self.reply(&mut state, command);
        log(&state, took, command.as_str());
        Ok(ShellReply {
            output,
            status,
            duration: took,
        })
    }

    async fn pull(&self, remote: &ShellValue, local: &Path) -> Result<(), DeviceError> {
        let mut state = self.state.lock().unwrap();
        let operation = Operation::Pull(remote.as_str().to_owned());
        let index = self
            .capture
            .next_answering(state.cursor, &operation)
            .ok_or_else(|| DeviceError::Transfer {
                path: remote.as_str().to_owned(),
                message: "sim: nothing recorded".to_owned(),
            })?;
        state.cursor = index + 1;
        let exchange = self.capture.exchange(index, &operation)?;
        let size = self.capture.copy_verified(index, exchange, local)?;
        let took = pull_delay(self.delays, size);
        state.clock += took;
        log(&state, took, &format!("pull {}", remote.as_str()));
        Ok(())
    }

    async fn push(&self, _local: &Path, _remote: &ShellValue) -> Result<(), DeviceError> {
        Ok(())
    }

    async fn install(&self, _hap: &Path) -> Result<(), DeviceError> {
        Ok(())
    }

    async fn uninstall(&self, _bundle: &ShellValue) -> Result<(), DeviceError> {
        Ok(())
    }

    async fn pause(&self, duration: Duration) -> Result<(), DeviceError> {
        let mut state = self.state.lock().unwrap();
        state.clock += duration;
        log(&state, duration, "(pause)");
        Ok(())
    }

    fn clock(&self) -> Duration {
        self.state.lock().unwrap().clock
    }
}
