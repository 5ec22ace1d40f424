//! Writing a capture as calls happen: replies inline when short, pulled files under `files/`
//! with their SHA-256; `transcript.yaml` and `device.yaml` when the recording finishes.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::shell::ShellCommand;

use super::super::info::DeviceInfo;
use super::{ExchangeDoc, TranscriptDoc};

/// Writes a capture as calls happen: replies inline when short, pulled files under `files/`
/// with their SHA-256; `transcript.yaml` and `device.yaml` on `CaptureWriter::finish`.
#[derive(Debug)]
pub struct CaptureWriter {
    root: PathBuf,
    exchanges: Vec<ExchangeDoc>,
    /// The sessions the recording ran, by name: the SHA-256 of each one's playbook file.
    sessions: Option<BTreeMap<String, String>>,
}

/// Replies up to this size are written inline in the transcript.
const INLINE_REPLY_BYTES: usize = 2048;

impl CaptureWriter {
    /// Starts a capture in `root` (created if needed).
    pub(crate) fn create(root: &Path) -> std::io::Result<CaptureWriter> {
        fs::create_dir_all(root.join("files"))?;
        Ok(CaptureWriter {
            root: root.to_owned(),
            exchanges: Vec::new(),
            sessions: None,
        })
    }

    /// Names the sessions the recording runs, for `transcript.yaml`'s `sessions`.
    pub(crate) fn sessions(&mut self, sessions: &BTreeMap<String, String>) {
        self.sessions
            .get_or_insert_with(BTreeMap::new)
            .extend(sessions.iter().map(|(k, v)| (k.clone(), v.clone())));
    }

    /// Records where a visit of the audit began.
    pub(crate) fn visit(&mut self, label: &str) {
        self.exchanges.push(ExchangeDoc {
            visit: Some(label.to_owned()),
            ..ExchangeDoc::default()
        });
    }

    /// Records a pause on the device's time.
    pub(crate) fn sleep(&mut self, duration: Duration) {
        self.exchanges.push(ExchangeDoc {
            sleep: Some(format!("{}ms", duration.as_millis())),
            ..ExchangeDoc::default()
        });
    }

    /// Records a shell exchange.
    pub(crate) fn shell(
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
    pub(crate) fn pull(
        &mut self,
        remote: &str,
        local: &Path,
        delay: Duration,
    ) -> std::io::Result<()> {
        let n = self.exchanges.len() + 1;
        let base = remote.rsplit('/').next().unwrap_or("file");
        let name = format!("files/{n:03}-{base}");
        // Streamed: a pulled trace may be large.
        let sha256 = crate::input::hash_file(local, "a pulled file")
            .map_err(|e| std::io::Error::other(crate::diagnostic::chain(&e)))?;
        let kept = self.root.join(&name);
        if let Some(dir) = kept.parent() {
            fs::create_dir_all(dir)?;
        }
        fs::copy(local, &kept)?;
        self.exchanges.push(ExchangeDoc {
            pull: Some(remote.to_owned()),
            file: Some(name),
            sha256: Some(sha256),
            delay: Some(format!("{}ms", delay.as_millis())),
            ..ExchangeDoc::default()
        });
        Ok(())
    }

    /// Records any other exchange as written.
    pub(crate) fn other(&mut self, doc: ExchangeDoc) {
        self.exchanges.push(doc);
    }

    /// Writes `device.yaml` and `transcript.yaml`.
    pub(crate) fn finish(&self, info: &DeviceInfo) -> std::io::Result<()> {
        let transcript = TranscriptDoc {
            format_version: crate::format::TRANSCRIPT,
            recorded_by: Some(format!("dwpipe {}", env!("CARGO_PKG_VERSION"))),
            sessions: self.sessions.clone(),
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
