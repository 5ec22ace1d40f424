//! Where an audit's readings came from: a live device, or a recorded capture replayed. A
//! report and a delivery record it, so a run is never continued, nor a number believed, on
//! another source than the one it was measured on.

use serde::{Deserialize, Serialize};

use super::info::DeviceInfo;

/// The source of an audit's readings.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Source {
    /// A live device behind hdc.
    #[serde(rename_all = "kebab-case")]
    Device {
        /// Its connect key.
        serial: String,
        /// Its model.
        model: Option<String>,
        /// Its software version.
        software_version: Option<String>,
    },
    /// A recorded capture, replayed.
    #[serde(rename_all = "kebab-case")]
    Replay {
        /// The capture folder (absolute).
        capture: String,
        /// SHA-256 of its `transcript.yaml`.
        transcript_sha256: String,
        /// Recorded exchanges the audit never asked for.
        unserved: usize,
        /// The first of them, in words.
        first_unserved: Option<String>,
    },
}

impl Source {
    /// A live device, as its identity names it.
    pub(crate) fn live(info: &DeviceInfo) -> Source {
        Source::Device {
            serial: info.serial.clone(),
            model: info.model.clone(),
            software_version: info.software_version.clone(),
        }
    }

    /// Whether the readings were replayed from a capture.
    pub(crate) fn is_replay(&self) -> bool {
        matches!(self, Source::Replay { .. })
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Device { serial, model, .. } => match model {
                Some(model) => write!(f, "device {serial} ({model})"),
                None => write!(f, "device {serial}"),
            },
            Source::Replay {
                capture,
                transcript_sha256,
                ..
            } => write!(
                f,
                // By its folder's name and its transcript's hash: where a reader looks (banners,
                // summaries, JUnit) the host's path is noise and says how the runner is laid
                // out; the full path stays in the report's `source.capture`.
                "the capture {} (transcript {})",
                std::path::Path::new(capture)
                    .file_name()
                    .map_or_else(|| capture.clone(), |n| n.to_string_lossy().into_owned()),
                &transcript_sha256[..transcript_sha256.len().min(12)]
            ),
        }
    }
}
