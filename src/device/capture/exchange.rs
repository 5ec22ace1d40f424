//! A capture's transcript as written (its documents) and as served (validated exchanges: an
//! operation, its reply, its status, a pulled file, a scripted fault).

use crate::shell::ShellCommand;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// A capture that cannot serve a replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", file.display(), exchange.map(|n| format!(" (exchange {n})")).unwrap_or_default())]
pub struct CaptureError {
    /// Stable code (`E_CAPTURE_MISMATCH`, …).
    pub(crate) code: &'static str,
    /// The file at fault.
    pub(crate) file: PathBuf,
    /// The 1-based exchange, when one is at fault.
    pub(crate) exchange: Option<usize>,
    /// What is wrong.
    pub(crate) message: String,
}

/// One exchange as written in `transcript.yaml`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ExchangeDoc {
    /// A device shell command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shell: Option<String>,
    /// A remote path pulled with `file recv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pull: Option<String>,
    /// A remote path pushed with `file send`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) push: Option<String>,
    /// A HAP file name installed with `install -r`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) install: Option<String>,
    /// A bundle uninstalled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) uninstall: Option<String>,
    /// A pause the audit took on the device's time (`2000ms`): a playbook's wait, a poll's
    /// interval (format 2 on; format 1 did not record them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sleep: Option<String>,
    /// Where a visit of the audit began (`2 cold-start`: run 2's cold-start session; `1 flow
    /// open-note`): the run plan the capture was recorded with, read before a replay's first
    /// call (format 3 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) visit: Option<String>,
    /// The reply text, inline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reply: Option<String>,
    /// The reply text, in a file of the capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reply_file: Option<String>,
    /// The device exit status of a shell command (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) status: Option<i32>,
    /// The pulled file, in the capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) file: Option<String>,
    /// Its SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sha256: Option<String>,
    /// How long the call took (`40ms`, `1.5s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) delay: Option<String>,
    /// A scripted fault: `hang`, `vanish`, `hdc-reply`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fault: Option<String>,
    /// Extra bytes of output after the reply (a flood).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) flood: Option<u64>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct TranscriptDoc {
    pub(super) format_version: u32,
    /// The dwpipe that recorded it (`dwpipe 0.2.0`); absent in hand-written captures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) recorded_by: Option<String>,
    /// The sessions it was recorded with: each session's name and the SHA-256 of its playbook
    /// file, so a replay by other sessions is refused before its first call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) sessions: Option<std::collections::BTreeMap<String, String>>,
    /// `exchanges:` with nothing under it is an empty list, as a hand editor would expect.
    #[serde(default)]
    pub(super) exchanges: Option<Vec<ExchangeDoc>>,
}

/// What a call asks of the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operation {
    /// `shell <command>`.
    Shell(ShellCommand),
    /// `file recv <remote> …`.
    Pull(String),
    /// `file send … <remote>`.
    Push(String),
    /// `install -r <hap>` (the file name).
    Install(String),
    /// `uninstall <bundle>`.
    Uninstall(String),
    /// A pause on the device's time (recorded, never sent to hdc).
    Sleep(Duration),
    /// Where a visit of the audit began (recorded, never sent to hdc).
    Visit(String),
}

impl Operation {
    /// Whether a recorded call answers `asked`: the same call, or an older form of one of the
    /// questions dwpipe asks every device itself (its clock, its state), which a capture
    /// recorded before the question changed holds in its place.
    pub fn answers(&self, asked: &Operation) -> bool {
        match (self, asked) {
            (Operation::Shell(recorded), Operation::Shell(asked)) => {
                recorded == asked || super::super::state::older_form(recorded, asked)
            }
            _ => self == asked,
        }
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Operation::Shell(c) => write!(f, "shell {c}"),
            Operation::Pull(p) => write!(f, "file recv {p}"),
            Operation::Push(p) => write!(f, "file send {p}"),
            Operation::Install(h) => write!(f, "install -r {h}"),
            Operation::Uninstall(b) => write!(f, "uninstall {b}"),
            Operation::Sleep(d) => write!(f, "sleep {} ms", d.as_millis()),
            Operation::Visit(label) => write!(f, "visit {label}"),
        }
    }
}

/// A scripted fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The call never answers.
    Hang,
    /// The device is gone from here on.
    Vanish,
    /// hdc itself answered (the reply is printed without a status line).
    HdcReply,
}

/// A validated exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// The operation; `None` only for a bare `fault: vanish`.
    pub(crate) operation: Option<Operation>,
    /// The reply text.
    pub reply: String,
    /// The device status of a shell command.
    pub status: i32,
    /// A pulled file inside the capture, with its expected SHA-256.
    pub(crate) file: Option<(PathBuf, String)>,
    /// How long the call took when recorded.
    pub(crate) delay: Duration,
    /// A scripted fault.
    pub fault: Option<Fault>,
    /// Extra output bytes.
    pub flood: u64,
}
