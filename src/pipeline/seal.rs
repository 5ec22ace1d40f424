//! A run's own records and their seal. `run.json`, written when the run is created, says what
//! the run is for: the pack's hash, where it measures, the workspace. The lock, the spec,
//! `run.json` and the ledger are held in memory (their hashes, the ledger's lines), so after
//! every stage that ran someone else's code (the agent, the verification commands) dwpipe can
//! tell whether its records changed under it.
//!
//! An agent running as the same user can still stop dwpipe itself, or go on from a process
//! that left its group; what it cannot do unnoticed is change these records during its stage
//! (the run ends `records_tampered`), nor make a resumed run accept a lock of another pack, a
//! ledger whose lines do not follow from one another, or another device.

use std::path::Path;

use crate::hash::sha256_hex;
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::schema::{RunRecord, RunTarget};
use crate::target::{Pick, Target};

/// `run.json`.
pub(crate) const RUN_FILE: &str = "run.json";

impl RunTarget {
    /// Where `target` measures.
    pub(crate) fn of(target: &Target) -> RunTarget {
        match target {
            Target::Device { serial, server, .. } => RunTarget::Device {
                serial: serial.clone(),
                server: server.as_ref().map(ToString::to_string),
            },
            Target::Replay { capture, .. } => {
                let capture = std::fs::canonicalize(capture).unwrap_or_else(|_| capture.clone());
                let transcript = read_bounded(
                    &capture.join("transcript.yaml"),
                    MAX_REPORT_BYTES,
                    "a transcript",
                );
                RunTarget::Replay {
                    capture: crate::text::doc_path(&capture),
                    transcript_sha256: transcript.ok().map(|bytes| sha256_hex(&bytes)),
                }
            }
            Target::Lab { pick, servers, .. } => RunTarget::Lab {
                devices: match pick {
                    Pick::All => None,
                    Pick::Serials(serials) => Some(serials.clone()),
                },
                servers: servers.iter().map(ToString::to_string).collect(),
            },
        }
    }
}

impl std::fmt::Display for RunTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunTarget::Device { serial, .. } => write!(f, "device {serial}"),
            RunTarget::Replay { capture, .. } => write!(f, "the capture {capture}"),
            RunTarget::Lab { devices: None, .. } => f.write_str("every device of the lab"),
            RunTarget::Lab {
                devices: Some(devices),
                ..
            } => write!(f, "the lab of {}", devices.join(", ")),
        }
    }
}

impl RunRecord {
    /// The record's text as written.
    pub(crate) fn to_text(&self) -> String {
        serde_json::to_string_pretty(self).expect("a run record serializes") + "\n"
    }
}

/// A file of the run held by its hash.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    /// Its name in the run directory.
    pub(crate) name: &'static str,
    /// Its SHA-256 when the run last wrote or read it.
    pub(crate) sha256: String,
}

impl Held {
    /// `name` in `dir`, held as it is now (`None` when it cannot be read).
    pub(crate) fn now(dir: &Path, name: &'static str) -> Option<Held> {
        let bytes = read_bounded(&dir.join(name), MAX_REPORT_BYTES, "a run record").ok()?;
        Some(Held {
            name,
            sha256: sha256_hex(&bytes),
        })
    }

    /// What happened to it in `dir`, if anything.
    pub(crate) fn changed(&self, dir: &Path) -> Option<String> {
        match read_bounded(&dir.join(self.name), MAX_REPORT_BYTES, "a run record") {
            Ok(bytes) if sha256_hex(&bytes) == self.sha256 => None,
            Ok(_) => Some(format!("{} was changed", self.name)),
            Err(_) => Some(format!("{} is gone", self.name)),
        }
    }
}
