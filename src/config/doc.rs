//! `dwpipe.yaml` as written: strict serde types (kebab-case keys, unknown keys are errors
//! naming their path), before durations, argv and words are validated.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct ConfigDoc {
    #[serde(default)]
    pub(super) workspace: Option<PathBuf>,
    pub(super) agent: Option<AgentDoc>,
    #[serde(default)]
    pub(super) verify: Vec<CommandDoc>,
    #[serde(default)]
    pub(super) review: Option<ReviewDoc>,
    #[serde(default)]
    pub(super) repair: Option<RepairDoc>,
    #[serde(default)]
    pub(super) device: Option<DeviceDoc>,
    /// Where deliveries record (a file, or a `postgres://` URL).
    #[serde(default)]
    pub(super) history: Option<String>,
    /// How deliveries attest their audits.
    #[serde(default)]
    pub(super) attest: Option<AttestDoc>,
}

/// `attest:`: the private key each delivery's audits are signed with.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct AttestDoc {
    /// A PKCS#8 PEM key (relative to the config's folder), readable by its owner only.
    pub(super) key: PathBuf,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct AgentDoc {
    pub(super) kind: String,
    #[serde(default)]
    pub(super) argv: Vec<String>,
    #[serde(default)]
    pub(super) timeout: Option<String>,
    #[serde(default)]
    pub(super) idle_timeout: Option<String>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, String>,
    #[serde(default)]
    pub(super) program: Option<String>,
    #[serde(default)]
    pub(super) mode: Option<String>,
    #[serde(default)]
    pub(super) config_env: Option<String>,
    #[serde(default)]
    pub(super) config: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) transport: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct CommandDoc {
    pub(super) name: String,
    pub(super) argv: Vec<String>,
    #[serde(default)]
    pub(super) timeout: Option<String>,
    #[serde(default)]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) hap: Option<OneOrMany>,
}

/// A path, or a list of them.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub(super) fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(one) => vec![one],
            OneOrMany::Many(many) => many,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct ReviewDoc {
    #[serde(default)]
    pub(super) max_rounds: Option<u32>,
    #[serde(default)]
    pub(super) fail_mode: Option<String>,
    #[serde(default)]
    pub(super) reviewer: Option<ReviewerDoc>,
    #[serde(default)]
    pub(super) allow_waiver_when_closed: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct ReviewerDoc {
    pub(super) argv: Vec<String>,
    #[serde(default)]
    pub(super) timeout: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RepairDoc {
    #[serde(default)]
    pub(super) max_rounds: Option<u32>,
    #[serde(default)]
    pub(super) max_same_failure: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct DeviceDoc {
    #[serde(default)]
    pub(super) serial: Option<String>,
    #[serde(default)]
    pub(super) server: Option<String>,
    #[serde(default)]
    pub(super) replay: Option<PathBuf>,
    /// The lab's preconditions on every device's state before its runs.
    #[serde(default)]
    pub(super) require: Vec<String>,
}
