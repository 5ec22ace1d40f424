//! The target opened once every other check passed: the one device reachable, identified and
//! its density known (or the capture read), or a lab's devices; and the versions of the tools
//! dwpipe knows, for `dwpipe doctor`.

use std::path::Path;
use std::time::Duration;

use crate::device::{AnyDevice, Device, DeviceError};
use crate::diagnostic::Diagnostic;
use crate::process::{Cancel, Completion, ProcessSpec, run};
use crate::target::{HdcClient, Opened, Target};

use super::checks::{self, Check, problems};

/// How long a tool may take to say its version.
const VERSION_TIMEOUT: Duration = Duration::from_secs(15);

/// The one device (or capture): it answers, says who it is, and knows its density. A signal
/// meanwhile is not a missing device: it ends the run.
async fn device(device: &AnyDevice) -> Result<Check, DeviceError> {
    let what = match device {
        AnyDevice::Replay(_) => "capture",
        _ => "device",
    };
    Ok(match device.identity().await {
        Err(DeviceError::Cancelled) => return Err(DeviceError::Cancelled),
        Ok(info) => match info.virtual_pixel_ratio {
            Some(vpr) => Check::ok(
                what,
                info.serial.clone(),
                format!(
                    "{} ({}), {vpr} px/vp",
                    info.model.as_deref().unwrap_or("model unknown"),
                    info.software_version
                        .as_deref()
                        .unwrap_or("software unknown")
                ),
            ),
            None => {
                // A shell that names neither model nor release has none of the phone's tools
                // (`param`, `hidumper`): a Linux box or an emulator's bare shell.
                let toolless = info.model.is_none() && info.software_version.is_none();
                Check::missing(
                    what,
                    info.serial.clone(),
                    "E_PREFLIGHT_DEVICE",
                    if toolless {
                        "its density (VirtualPixelRatio) is unknown: vp cannot be measured; its shell answers without the phone's tools (no `param`, no `hidumper`)".to_owned()
                    } else {
                        "its density (VirtualPixelRatio) is unknown: vp cannot be measured"
                            .to_owned()
                    },
                    "check `hdc shell hidumper -s DisplayManagerService -a -a` on the device",
                )
                .called(if toolless { "no tools" } else { "no density" })
            }
        },
        // Another job drives it: not a device that is missing.
        Err(e @ DeviceError::Leased { .. }) => Check::missing(
            what,
            "the target",
            e.code(),
            crate::diagnostic::chain(&e),
            "let the job that holds it end, or wait longer with --lease-wait DURATION (leases live in $DWPIPE_LEASES, else the temporary folder (on Windows %LOCALAPPDATA%\\dwpipe\\leases), or in the PostgreSQL history)",
        ),
        // The lease cannot be asked for: its folder, a planted lock file, its server.
        Err(DeviceError::Lease { serial, source }) => Check::missing(
            what,
            "the target",
            "E_DEVICE_LEASE",
            format!(
                "the lease on device {serial} cannot be taken: {}",
                crate::diagnostic::chain(&source)
            ),
            source.fix(),
        ),
        // hdc says "not found or connected" alike for a device its server lists Offline and
        // one it has never seen: the listing tells which.
        Err(e @ DeviceError::DeviceNotFound { .. }) => {
            let listed = match device {
                AnyDevice::Hdc(live) => live.listed_status().await,
                AnyDevice::Recording(recording) => recording.inner().listed_status().await,
                AnyDevice::Replay(_) => None,
            };
            let (status, said) = match listed.as_deref() {
                Some("Offline") => ("offline", "its server lists it Offline".to_owned()),
                Some(other) => ("not connected", format!("its server lists it {other}")),
                None => ("not listed", "its server does not list it".to_owned()),
            };
            Check::missing(
                what,
                "the target",
                e.code(),
                format!("{}; {said}", crate::diagnostic::chain(&e)),
                e.fix().unwrap_or_default(),
            )
            .called(status)
        }
        // The server has it connected, and nothing answers on it: a hung phone, not a
        // missing one.
        Err(e @ DeviceError::Timeout { .. }) => Check::missing(
            what,
            "the target",
            e.code(),
            crate::diagnostic::chain(&e),
            format!(
                "the phone is connected but does not answer: try `hdc -t {} shell echo ok`, and restart the phone (or its hdcd) if that hangs too",
                device.serial()
            ),
        ),
        // What hdc said of the server or the device is its own error, with its own fix.
        Err(e) => match e.fix() {
            Some(fix) => Check::missing(
                what,
                "the target",
                e.code(),
                crate::diagnostic::chain(&e),
                fix,
            ),
            None => Check::missing(
                what,
                "the target",
                "E_PREFLIGHT_DEVICE",
                crate::diagnostic::chain(&e),
                "check `dwpipe devices` (is it connected and authorized?), or pass --replay CAPTURE",
            ),
        },
    })
}

/// Why a run was not started: converted once, where it becomes an exit code (`cli/error.rs`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotStarted {
    /// What it needs is missing: every problem, at once.
    #[error("{} missing; nothing was started", .0.len())]
    Missing(Vec<Diagnostic>),
    /// The target could not be opened (a broken capture, a lab whose servers all failed).
    #[error(transparent)]
    Device(DeviceError),
}

impl NotStarted {
    /// The stable code.
    pub(crate) fn code(&self) -> &str {
        match self {
            NotStarted::Missing(_) => "E_PREFLIGHT",
            NotStarted::Device(e) => e.code(),
        }
    }
}

/// Adds the target's checks to `checks` (the hdc client when it drives a live device or a
/// lab; the one device's identity) and opens it, unless something is missing. In a lab only
/// a missing hdc is fatal: devices that cannot be reached are seats in the matrix.
pub(crate) async fn open(
    mut checks: Vec<Check>,
    target: &Target,
    hdc: &HdcClient,
    cancel: &Cancel,
) -> (Vec<Check>, Result<Opened, NotStarted>) {
    if !matches!(target, Target::Replay { .. }) {
        checks.push(checks::hdc(&hdc.binary));
    }
    let hdc_missing = checks.iter().any(|c| {
        c.problem
            .as_ref()
            .is_some_and(|p| p.code == "E_HDC_NOT_FOUND")
    });
    if hdc_missing {
        let problems = problems(&checks);
        return (checks, Err(NotStarted::Missing(problems)));
    }
    let opened = match target.open(hdc, cancel).await {
        Ok(opened) => opened,
        Err(e) => return (checks, Err(NotStarted::Device(e))),
    };
    if let Opened::One(one) = &opened {
        match device(one).await {
            Ok(check) => checks.push(check),
            Err(cancelled) => return (checks, Err(NotStarted::Device(cancelled))),
        }
    }
    let problems = problems(&checks);
    let result = if problems.is_empty() {
        Ok(opened)
    } else {
        Err(NotStarted::Missing(problems))
    };
    (checks, result)
}

/// Asks the tools dwpipe knows their version (`hdc -v`, `deveco --version`, `hvigorw -v`).
pub(crate) async fn versions(checks: &mut [Check], cancel: &Cancel) {
    for check in checks.iter_mut().filter(|c| c.problem.is_none()) {
        let Some(found) = &check.found else { continue };
        let name = Path::new(&check.looked_for)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let flag = match name.as_str() {
            "hdc" => "-v",
            "deveco" | "opencode" => "--version",
            "hvigorw" | "hvigorw.js" => "-v",
            _ => continue,
        };
        let spec = ProcessSpec::new(found, [flag]).timeout(VERSION_TIMEOUT);
        if let Ok(outcome) = run(&spec, cancel).await
            && matches!(outcome.completion, Completion::Exited(_))
        {
            let text = outcome.stdout.to_string_lossy() + &outcome.stderr.to_string_lossy();
            check.version = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| l.chars().take(80).collect());
        }
    }
}
