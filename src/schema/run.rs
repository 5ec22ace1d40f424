//! `run.json`: what a delivery's run is for, written when the run is created — the pack's
//! hash, where it measures, the workspace — and held against every resume.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where a run measures, as `run.json` records it: a resumed run must measure there again.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum RunTarget {
    /// A live device.
    #[serde(rename_all = "kebab-case")]
    Device {
        /// Its connect key.
        serial: String,
        /// Its hdc server (`None`: the local one).
        server: Option<String>,
    },
    /// A recorded capture.
    #[serde(rename_all = "kebab-case")]
    Replay {
        /// The capture folder (absolute).
        capture: String,
        /// SHA-256 of its `transcript.yaml` (absent when it cannot be read).
        transcript_sha256: Option<String>,
    },
    /// A lab.
    #[serde(rename_all = "kebab-case")]
    Lab {
        /// The devices asked for (`None`: every connected one).
        devices: Option<Vec<String>>,
        /// The hdc servers.
        servers: Vec<String>,
    },
}

/// `run.json`: what a run is for.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct RunRecord {
    /// Schema version.
    pub(crate) format_version: u32,
    /// The pack the run delivers.
    pub(crate) pack_sha256: String,
    /// Where it measures.
    pub(crate) target: RunTarget,
    /// The workspace it delivers.
    pub(crate) workspace: PathBuf,
}
