//! Loading a capture: everything a replay will rely on is validated first (one operation per
//! exchange, device commands that obey the same rules as live ones, no path that leaves the
//! folder), and every pulled file is checked against its recorded SHA-256 when served.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::diagnostic::chain;
use crate::hash::{Hasher, sha256_hex};
use crate::input::{MAX_REPORT_BYTES, ReadError, open_input, parse_yaml, read_text};
use crate::shell::ShellCommand;

use super::super::info::DeviceInfo;
use super::{CaptureError, Exchange, ExchangeDoc, Fault, Operation, TranscriptDoc};

/// A loaded, validated capture.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The capture folder.
    pub(crate) root: PathBuf,
    /// `device.yaml`.
    pub info: DeviceInfo,
    /// `transcript.yaml`, in order.
    pub(crate) exchanges: Vec<Exchange>,
    /// SHA-256 of `transcript.yaml`, naming the capture in the reports made from it.
    pub(crate) transcript_sha256: String,
    /// Its `format-version` (1: pauses were not recorded).
    pub(crate) format_version: u32,
    /// The dwpipe that recorded it.
    pub(crate) recorded_by: Option<String>,
    /// The sessions it was recorded with, by name: the SHA-256 of each one's playbook file.
    pub(crate) sessions: Option<BTreeMap<String, String>>,
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
        // The capture's own files obey the rules of the files it names: a symlinked
        // `device.yaml` pointing elsewhere is refused like a pulled file that leaves the folder.
        let read = |name: &str| -> Result<(PathBuf, String), CaptureError> {
            let path = inside(&root, name)
                .map_err(|(code, message)| error(code, &root.join(name), message))?;
            read_text(&path, MAX_REPORT_BYTES, "a capture file")
                .map(|text| (path.clone(), text))
                .map_err(|e| error(read_code(&e), &path, chain(&e)))
        };
        let (info_path, info_text) = read("device.yaml")?;
        let info: DeviceInfo = parse_yaml(&info_path, &info_text)
            .map_err(|d| error("E_CAPTURE_INVALID", &info_path, d.described()))?;
        // The serial names the evidence folder and reaches the terminal: held to the rules of
        // a live device's.
        crate::shell::ShellValue::serial(&info.serial)
            .map_err(|e| error("E_CAPTURE_INVALID", &info_path, e.to_string()))?;
        let (transcript_path, transcript_text) = read("transcript.yaml")?;
        let doc: TranscriptDoc = parse_yaml(&transcript_path, &transcript_text)
            .map_err(|d| error("E_CAPTURE_INVALID", &transcript_path, d.described()))?;
        // Format 1 is still read (a device listing, an install, a hand-written scenario); an
        // audit refuses it in `recorded_with`, as its sessions slept where today's poll.
        if !(1..=crate::format::TRANSCRIPT).contains(&doc.format_version) {
            let newer = if doc.format_version > crate::format::TRANSCRIPT {
                "; a newer dwpipe recorded it: upgrade dwpipe"
            } else {
                ""
            };
            return Err(error(
                "E_CAPTURE_INVALID",
                &transcript_path,
                format!(
                    "format-version {} is not supported (this dwpipe reads 1 to {}){newer}",
                    doc.format_version,
                    crate::format::TRANSCRIPT
                ),
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
            transcript_sha256: sha256_hex(transcript_text.as_bytes()),
            format_version: doc.format_version,
            recorded_by: doc.recorded_by,
            sessions: doc.sessions,
        })
    }

    /// The first exchange from `from` on that is a call: a live device pauses on the host and
    /// marks no visit through hdc, so fake-hdc steps over what a capture recorded of both.
    pub fn skip_unsent(&self, from: usize) -> usize {
        let mut index = from;
        while matches!(
            self.exchanges.get(index).and_then(|e| e.operation.as_ref()),
            Some(Operation::Sleep(_) | Operation::Visit(_))
        ) {
            index += 1;
        }
        index
    }

    /// The exchange at `index` (0-based) if it answers `operation`, else a mismatch naming
    /// both sides.
    pub fn exchange(&self, index: usize, operation: &Operation) -> Result<&Exchange, CaptureError> {
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
            Some(recorded) if recorded.answers(operation) => Ok(exchange),
            Some(recorded) => Err(mismatch(format!(
                "expected `{recorded}`, got `{operation}`"
            ))),
            None => Ok(exchange),
        }
    }

    /// The index of the first exchange from `from` on (wrapping around) that answers
    /// `operation`: how fake-hdc serves a build's capture to a session whose calls come in
    /// another order than the capture's (an A/B session's blocks and warm-ups).
    pub fn next_answering(&self, from: usize, operation: &Operation) -> Option<usize> {
        let n = self.exchanges.len();
        (0..n).map(|i| (from + i) % n).find(|&i| {
            self.exchanges[i]
                .operation
                .as_ref()
                .is_some_and(|recorded| recorded.answers(operation))
        })
    }

    /// Copies a pulled file into `local`, streamed, checking it against its recorded SHA-256
    /// (a file that does not match is removed again); returns its size.
    pub fn copy_verified(
        &self,
        index: usize,
        exchange: &Exchange,
        local: &Path,
    ) -> Result<u64, CaptureError> {
        use std::io::{Read, Write};
        let error = |code, file: &Path, message: String| CaptureError {
            code,
            file: file.to_owned(),
            exchange: Some(index + 1),
            message,
        };
        let (path, expected) = exchange.file.as_ref().ok_or_else(|| {
            let transcript = self.root.join("transcript.yaml");
            error(
                "E_CAPTURE_INVALID",
                &transcript,
                "a pull without a file".to_owned(),
            )
        })?;
        let mut source = open_input(path, "a pulled file").map_err(|e| {
            let code = match e {
                ReadError::Io { .. } => "E_CAPTURE_MISSING_FILE",
                _ => read_code(&e),
            };
            error(code, path, chain(&e))
        })?;
        let mut copy = || -> std::io::Result<(String, u64)> {
            let mut target = fs::File::create(local)?;
            let mut hasher = Hasher::new();
            let mut buffer = vec![0u8; 64 * 1024];
            let mut size = 0u64;
            loop {
                let n = match source.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                hasher.update(&buffer[..n]);
                target.write_all(&buffer[..n])?;
                size += n as u64;
            }
            target.sync_all()?;
            Ok((hasher.finish(), size))
        };
        let (actual, size) = copy().map_err(|e| {
            let _ = fs::remove_file(local);
            error("E_CAPTURE_UNREADABLE", path, format!("cannot copy: {e}"))
        })?;
        if &actual != expected {
            let _ = fs::remove_file(local);
            return Err(error(
                "E_CAPTURE_TAMPERED",
                path,
                format!("sha256 is {actual}, the transcript says {expected}"),
            ));
        }
        Ok(size)
    }
}

/// The capture code of a refused read.
fn read_code(error: &ReadError) -> &'static str {
    match error {
        ReadError::Io { .. } => "E_CAPTURE_UNREADABLE",
        ReadError::TooLarge { .. } => "E_CAPTURE_TOO_LARGE",
        ReadError::NotAFile { .. } => "E_CAPTURE_NOT_A_FILE",
    }
}

/// One exchange of a capture, checked: one operation (or a vanished device), a reply, a
/// pulled file inside the capture with its hash, a delay where one belongs.
fn validate_exchange(root: &Path, doc: &ExchangeDoc) -> Result<Exchange, Refusal> {
    let fault = fault_of(doc)?;
    let operation = operation_of(doc, fault)?;
    Ok(Exchange {
        reply: reply_of(root, doc)?,
        file: pulled_file(root, doc, operation.as_ref(), fault)?,
        delay: delay_of(doc, operation.as_ref())?,
        operation,
        status: doc.status.unwrap_or(0),
        fault,
        flood: doc.flood.unwrap_or(0),
    })
}

/// A capture's refusal: its code and message.
type Refusal = (&'static str, String);

fn invalid(message: String) -> Refusal {
    ("E_CAPTURE_INVALID", message)
}

/// The fault an exchange recorded, if any.
fn fault_of(doc: &ExchangeDoc) -> Result<Option<Fault>, Refusal> {
    Ok(match doc.fault.as_deref() {
        None => None,
        Some("hang") => Some(Fault::Hang),
        Some("vanish") => Some(Fault::Vanish),
        Some("hdc-reply") => Some(Fault::HdcReply),
        Some(other) => {
            return Err(invalid(format!(
                "unknown fault `{other}` (hang, vanish, hdc-reply)"
            )));
        }
    })
}

/// The exchange's one operation (none only where the device vanished).
fn operation_of(doc: &ExchangeDoc, fault: Option<Fault>) -> Result<Option<Operation>, Refusal> {
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
        doc.sleep
            .as_deref()
            .map(|d| crate::input::parse_duration(d).map(Operation::Sleep))
            .transpose()
            .map_err(invalid)?,
        doc.visit.clone().map(Operation::Visit),
    ]
    .into_iter()
    .flatten()
    .collect();
    Ok(match (operations.len(), fault) {
        (1, _) => operations.into_iter().next(),
        (0, Some(Fault::Vanish)) => None,
        (0, _) => {
            return Err(invalid(
                "no operation (shell, pull, push, install, uninstall, sleep or visit)".to_owned(),
            ));
        }
        _ => {
            return Err(invalid(
                "more than one operation in one exchange".to_owned(),
            ));
        }
    })
}

/// The reply, written inline or in a file inside the capture.
fn reply_of(root: &Path, doc: &ExchangeDoc) -> Result<String, Refusal> {
    Ok(match (&doc.reply, &doc.reply_file) {
        (Some(_), Some(_)) => return Err(invalid("both `reply` and `reply-file`".to_owned())),
        (Some(text), None) => text.clone(),
        (None, Some(file)) => {
            let path = inside(root, file)?;
            read_text(&path, MAX_REPORT_BYTES, "a reply file").map_err(|e| {
                let code = match e {
                    ReadError::Io { .. } => "E_CAPTURE_MISSING_FILE",
                    _ => read_code(&e),
                };
                (code, format!("reply file `{file}`: {}", chain(&e)))
            })?
        }
        (None, None) => String::new(),
    })
}

/// A pull's file inside the capture, and its hash.
fn pulled_file(
    root: &Path,
    doc: &ExchangeDoc,
    operation: Option<&Operation>,
    fault: Option<Fault>,
) -> Result<Option<(PathBuf, String)>, Refusal> {
    Ok(match (operation, &doc.file, &doc.sha256) {
        (Some(Operation::Pull(_)), Some(file), Some(sha)) => {
            let path = inside(root, file)?;
            match fs::metadata(&path) {
                Ok(meta) if meta.is_file() => {}
                // A FIFO would block the replay forever, a device would never end.
                Ok(_) => {
                    return Err((
                        "E_CAPTURE_NOT_A_FILE",
                        format!("pulled file `{file}` is not a regular file"),
                    ));
                }
                Err(_) => {
                    return Err((
                        "E_CAPTURE_MISSING_FILE",
                        format!("pulled file `{file}` is missing"),
                    ));
                }
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
    })
}

/// How long the call takes on the device's clock.
fn delay_of(
    doc: &ExchangeDoc,
    operation: Option<&Operation>,
) -> Result<std::time::Duration, Refusal> {
    Ok(match (operation, &doc.delay) {
        // A pause takes the device's time it names.
        (Some(Operation::Sleep(duration)), None) => *duration,
        (Some(Operation::Sleep(_)), Some(_)) => {
            return Err(invalid(
                "a sleep lasts what it says: `delay` belongs to calls".to_owned(),
            ));
        }
        (Some(Operation::Visit(_)), None) => std::time::Duration::ZERO,
        (Some(Operation::Visit(_)), Some(_)) => {
            return Err(invalid(
                "a visit marks where a visit began: `delay` belongs to calls".to_owned(),
            ));
        }
        (_, delay) => delay
            .as_deref()
            .map(crate::input::parse_duration)
            .transpose()
            .map_err(invalid)?
            .unwrap_or_default(),
    })
}

/// Resolves a path written in a capture: relative, no `..`, and still inside the folder
/// once symlinks are resolved.
fn inside(root: &Path, written: &str) -> Result<PathBuf, Refusal> {
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
