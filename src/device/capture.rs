//! The capture format: a recorded device, small and hand-editable.
//!
//! ```text
//! <capture>/device.yaml       who the device is (DeviceInfo)
//! <capture>/transcript.yaml   the ordered exchanges: command, reply, status, delay, fault
//! <capture>/replies/…         long replies, when not inline
//! <capture>/files/…           pulled files, each with its SHA-256 in the transcript
//! ```
//!
//! Loading validates everything a replay will rely on: one operation per exchange, device
//! commands that obey the same rules as live ones, and no path that leaves the folder.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::hash::sha256_hex;
use crate::input::parse_yaml;

use super::info::DeviceInfo;
use crate::shell::ShellCommand;

/// A capture that cannot serve a replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {}{}: {message}", file.display(), exchange.map(|n| format!(" (exchange {n})")).unwrap_or_default())]
pub struct CaptureError {
    /// Stable code (`E_CAPTURE_MISMATCH`, …).
    pub code: &'static str,
    /// The file at fault.
    pub file: PathBuf,
    /// The 1-based exchange, when one is at fault.
    pub exchange: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// One exchange as written in `transcript.yaml`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ExchangeDoc {
    /// A device shell command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// A remote path pulled with `file recv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull: Option<String>,
    /// A remote path pushed with `file send`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<String>,
    /// A HAP file name installed with `install -r`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<String>,
    /// A bundle uninstalled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uninstall: Option<String>,
    /// The reply text, inline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// The reply text, in a file of the capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_file: Option<String>,
    /// The device exit status of a shell command (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
    /// The pulled file, in the capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Its SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// How long the call took (`40ms`, `1.5s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<String>,
    /// A scripted fault: `hang`, `vanish`, `hdc-reply`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// Extra bytes of output after the reply (a flood).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flood: Option<u64>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct TranscriptDoc {
    format_version: u32,
    /// `exchanges:` with nothing under it is an empty list, as a hand editor would expect.
    #[serde(default)]
    exchanges: Option<Vec<ExchangeDoc>>,
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
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Operation::Shell(c) => write!(f, "shell {c}"),
            Operation::Pull(p) => write!(f, "file recv {p}"),
            Operation::Push(p) => write!(f, "file send {p}"),
            Operation::Install(h) => write!(f, "install -r {h}"),
            Operation::Uninstall(b) => write!(f, "uninstall {b}"),
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
    pub operation: Option<Operation>,
    /// The reply text.
    pub reply: String,
    /// The device status of a shell command.
    pub status: i32,
    /// A pulled file inside the capture, with its expected SHA-256.
    pub file: Option<(PathBuf, String)>,
    /// How long the call took when recorded.
    pub delay: Duration,
    /// A scripted fault.
    pub fault: Option<Fault>,
    /// Extra output bytes.
    pub flood: u64,
}

/// A loaded, validated capture.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The capture folder.
    pub root: PathBuf,
    /// `device.yaml`.
    pub info: DeviceInfo,
    /// `transcript.yaml`, in order.
    pub exchanges: Vec<Exchange>,
}

impl Capture {
    /// Loads and validates a capture folder.
    pub fn load(root: &Path) -> Result<Capture, CaptureError> {
        let error = |code, file: &Path, message: String| CaptureError {
            code,
            file: file.to_owned(),
            exchange: None,
            message,
        };
        let root = fs::canonicalize(root).map_err(|e| {
            error(
                "E_CAPTURE_UNREADABLE",
                root,
                format!("cannot open the capture folder: {e}"),
            )
        })?;
        let read = |name: &str| -> Result<(PathBuf, String), CaptureError> {
            let path = root.join(name);
            fs::read_to_string(&path)
                .map(|text| (path.clone(), text))
                .map_err(|e| error("E_CAPTURE_UNREADABLE", &path, format!("cannot read: {e}")))
        };
        let (info_path, info_text) = read("device.yaml")?;
        let info: DeviceInfo = parse_yaml(&info_path, &info_text)
            .map_err(|d| error("E_CAPTURE_INVALID", &info_path, d.to_string()))?;
        let (transcript_path, transcript_text) = read("transcript.yaml")?;
        let doc: TranscriptDoc = parse_yaml(&transcript_path, &transcript_text)
            .map_err(|d| error("E_CAPTURE_INVALID", &transcript_path, d.to_string()))?;
        if doc.format_version != crate::format::TRANSCRIPT {
            return Err(error(
                "E_CAPTURE_INVALID",
                &transcript_path,
                format!("format-version {} is not supported", doc.format_version),
            ));
        }
        let exchanges = doc
            .exchanges
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, exchange)| {
                validate_exchange(&root, exchange).map_err(|(code, message)| CaptureError {
                    code,
                    file: transcript_path.clone(),
                    exchange: Some(i + 1),
                    message,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Capture {
            root,
            info,
            exchanges,
        })
    }

    /// The exchange at `index` (0-based) if it answers `operation`, else a mismatch naming
    /// both sides.
    pub fn expect(&self, index: usize, operation: &Operation) -> Result<&Exchange, CaptureError> {
        let mismatch = |message: String| CaptureError {
            code: "E_CAPTURE_MISMATCH",
            file: self.root.join("transcript.yaml"),
            exchange: Some(index + 1),
            message,
        };
        let Some(exchange) = self.exchanges.get(index) else {
            return Err(mismatch(format!(
                "the transcript has {} exchanges; got `{operation}` after its end",
                self.exchanges.len()
            )));
        };
        match &exchange.operation {
            Some(recorded) if recorded == operation => Ok(exchange),
            Some(recorded) => Err(mismatch(format!(
                "expected `{recorded}`, got `{operation}`"
            ))),
            None => Ok(exchange),
        }
    }

    /// Reads a pulled file and checks it against its recorded SHA-256.
    pub fn verified_file(
        &self,
        index: usize,
        exchange: &Exchange,
    ) -> Result<Vec<u8>, CaptureError> {
        let (path, expected) = exchange.file.as_ref().ok_or_else(|| CaptureError {
            code: "E_CAPTURE_INVALID",
            file: self.root.join("transcript.yaml"),
            exchange: Some(index + 1),
            message: "a pull without a file".to_owned(),
        })?;
        let bytes = fs::read(path).map_err(|e| CaptureError {
            code: "E_CAPTURE_MISSING_FILE",
            file: path.clone(),
            exchange: Some(index + 1),
            message: format!("cannot read: {e}"),
        })?;
        let actual = sha256_hex(&bytes);
        if &actual != expected {
            return Err(CaptureError {
                code: "E_CAPTURE_TAMPERED",
                file: path.clone(),
                exchange: Some(index + 1),
                message: format!("sha256 is {actual}, the transcript says {expected}"),
            });
        }
        Ok(bytes)
    }
}

fn validate_exchange(root: &Path, doc: &ExchangeDoc) -> Result<Exchange, (&'static str, String)> {
    let invalid = |message: String| ("E_CAPTURE_INVALID", message);
    let fault = match doc.fault.as_deref() {
        None => None,
        Some("hang") => Some(Fault::Hang),
        Some("vanish") => Some(Fault::Vanish),
        Some("hdc-reply") => Some(Fault::HdcReply),
        Some(other) => {
            return Err(invalid(format!(
                "unknown fault `{other}` (hang, vanish, hdc-reply)"
            )));
        }
    };
    let operations: Vec<Operation> = [
        doc.shell
            .as_deref()
            .map(|c| {
                ShellCommand::from_capture(c)
                    .map(Operation::Shell)
                    .map_err(|e| e.to_string())
            })
            .transpose()
            .map_err(invalid)?,
        doc.pull.clone().map(Operation::Pull),
        doc.push.clone().map(Operation::Push),
        doc.install.clone().map(Operation::Install),
        doc.uninstall.clone().map(Operation::Uninstall),
    ]
    .into_iter()
    .flatten()
    .collect();
    let operation = match (operations.len(), fault) {
        (1, _) => operations.into_iter().next(),
        (0, Some(Fault::Vanish)) => None,
        (0, _) => {
            return Err(invalid(
                "no operation (shell, pull, push, install or uninstall)".to_owned(),
            ));
        }
        _ => {
            return Err(invalid(
                "more than one operation in one exchange".to_owned(),
            ));
        }
    };
    let reply = match (&doc.reply, &doc.reply_file) {
        (Some(_), Some(_)) => return Err(invalid("both `reply` and `reply-file`".to_owned())),
        (Some(text), None) => text.clone(),
        (None, Some(file)) => {
            let path = inside(root, file)?;
            fs::read_to_string(&path).map_err(|e| {
                (
                    "E_CAPTURE_MISSING_FILE",
                    format!("reply file `{file}`: {e}"),
                )
            })?
        }
        (None, None) => String::new(),
    };
    let file = match (&operation, &doc.file, &doc.sha256) {
        (Some(Operation::Pull(_)), Some(file), Some(sha)) => {
            let path = inside(root, file)?;
            if !path.is_file() {
                return Err((
                    "E_CAPTURE_MISSING_FILE",
                    format!("pulled file `{file}` is missing"),
                ));
            }
            if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(invalid(format!("`sha256: {sha}` is not a SHA-256")));
            }
            Some((path, sha.to_lowercase()))
        }
        // A pull that failed on the device was recorded as its fault, without a file.
        (Some(Operation::Pull(_)), None, None) if fault.is_some() => None,
        (Some(Operation::Pull(_)), _, _) => {
            return Err(invalid("a pull needs `file` and `sha256`".to_owned()));
        }
        (_, None, None) => None,
        _ => return Err(invalid("`file`/`sha256` belong to a pull".to_owned())),
    };
    let delay = doc
        .delay
        .as_deref()
        .map(crate::input::parse_duration)
        .transpose()
        .map_err(invalid)?
        .unwrap_or_default();
    Ok(Exchange {
        operation,
        reply,
        status: doc.status.unwrap_or(0),
        file,
        delay,
        fault,
        flood: doc.flood.unwrap_or(0),
    })
}

/// Resolves a path written in a capture: relative, no `..`, and still inside the folder
/// once symlinks are resolved.
fn inside(root: &Path, written: &str) -> Result<PathBuf, (&'static str, String)> {
    let escape = || {
        (
            "E_CAPTURE_PATH_ESCAPE",
            format!("`{written}` leaves the capture folder"),
        )
    };
    let relative = Path::new(written);
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(escape());
    }
    let path = root.join(relative);
    match fs::canonicalize(&path) {
        Ok(real) if real.starts_with(root) => Ok(real),
        Ok(_) => Err(escape()),
        // Not there: reported as missing by the caller.
        Err(_) => Ok(path),
    }
}

/// Writes a capture as calls happen: replies inline when short, pulled files under `files/`
/// with their SHA-256; `transcript.yaml` and `device.yaml` on [`CaptureWriter::finish`].
#[derive(Debug)]
pub struct CaptureWriter {
    root: PathBuf,
    exchanges: Vec<ExchangeDoc>,
}

/// Replies up to this size are written inline in the transcript.
const INLINE_REPLY_BYTES: usize = 2048;

impl CaptureWriter {
    /// Starts a capture in `root` (created if needed).
    pub fn create(root: &Path) -> std::io::Result<CaptureWriter> {
        fs::create_dir_all(root.join("files"))?;
        Ok(CaptureWriter {
            root: root.to_owned(),
            exchanges: Vec::new(),
        })
    }

    /// Records a shell exchange.
    pub fn shell(
        &mut self,
        command: &ShellCommand,
        reply: &str,
        status: i32,
        delay: Duration,
    ) -> std::io::Result<()> {
        let n = self.exchanges.len() + 1;
        let mut doc = ExchangeDoc {
            shell: Some(command.as_str().to_owned()),
            status: (status != 0).then_some(status),
            delay: Some(format!("{}ms", delay.as_millis())),
            ..ExchangeDoc::default()
        };
        if reply.len() <= INLINE_REPLY_BYTES {
            doc.reply = Some(reply.to_owned());
        } else {
            let name = format!("replies/{n:03}.txt");
            fs::create_dir_all(self.root.join("replies"))?;
            crate::output::write_atomic(&self.root.join(&name), reply.as_bytes())
                .map_err(|e| e.source)?;
            doc.reply_file = Some(name);
        }
        self.exchanges.push(doc);
        Ok(())
    }

    /// Records a pull: copies the pulled file into `files/` and notes its hash.
    pub fn pull(&mut self, remote: &str, local: &Path, delay: Duration) -> std::io::Result<()> {
        let n = self.exchanges.len() + 1;
        let base = remote.rsplit('/').next().unwrap_or("file");
        let name = format!("files/{n:03}-{base}");
        let bytes = fs::read(local)?;
        crate::output::write_atomic(&self.root.join(&name), &bytes).map_err(|e| e.source)?;
        self.exchanges.push(ExchangeDoc {
            pull: Some(remote.to_owned()),
            file: Some(name),
            sha256: Some(sha256_hex(&bytes)),
            delay: Some(format!("{}ms", delay.as_millis())),
            ..ExchangeDoc::default()
        });
        Ok(())
    }

    /// Records any other exchange as written.
    pub fn other(&mut self, doc: ExchangeDoc) {
        self.exchanges.push(doc);
    }

    /// Writes `device.yaml` and `transcript.yaml`.
    pub fn finish(&self, info: &DeviceInfo) -> std::io::Result<()> {
        let transcript = TranscriptDoc {
            format_version: crate::format::TRANSCRIPT,
            exchanges: Some(self.exchanges.clone()),
        };
        let write = |name: &str, text: String| {
            crate::output::write_atomic(&self.root.join(name), text.as_bytes())
                .map_err(|e| e.source)
        };
        write("device.yaml", to_yaml(info)?)?;
        write("transcript.yaml", to_yaml(&transcript)?)
    }
}

fn to_yaml<T: Serialize>(value: &T) -> std::io::Result<String> {
    serde_saphyr::to_string(value).map_err(std::io::Error::other)
}
