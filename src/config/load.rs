//! Loading `dwpipe.yaml`: the file read (bounded), parsed, and each section validated by its
//! own module into a [`Config`]; the helpers every section's validation shares.

use std::path::{Path, PathBuf};

use super::Store;
use crate::diagnostic::Diagnostic;
use crate::input::{parse_yaml, read_bounded};

use super::value::invalid;

use super::doc::ConfigDoc;
use super::{Agent, DeviceDefaults, Repair, Review, VerifyCommand};

/// A project's config, in the folder a command runs in unless named.
pub(crate) const CONFIG_FILE: &str = "dwpipe.yaml";

/// The project's config in the current folder, when there is one.
pub(crate) fn in_current_folder() -> Option<PathBuf> {
    let path = Path::new(CONFIG_FILE);
    path.is_file().then(|| path.to_owned())
}

/// A validated `dwpipe.yaml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The app's source tree (relative paths resolve against the config's folder).
    pub(crate) workspace: PathBuf,
    /// The agent, if one is configured.
    pub(crate) agent: Option<Agent>,
    /// Verification commands (at least one is required for `deliver`).
    pub(crate) verify: Vec<VerifyCommand>,
    /// Review settings.
    pub(crate) review: Review,
    /// Repair bounds.
    pub(crate) repair: Repair,
    /// Device defaults.
    pub(crate) device: DeviceDefaults,
    /// Where deliveries record their audits (`history:`; default `.dwpipe/history.sqlite`
    /// beside the runs).
    pub(crate) history: Option<Store>,
    /// The private key each delivery's audits are attested with (`attest: { key: … }`,
    /// relative to the config's folder; `deliver --sign-key` overrides it).
    pub(crate) sign_key: Option<PathBuf>,
}

impl Config {
    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<Config, Diagnostic> {
        let bytes = read_bounded(path, 1024 * 1024, "a config").map_err(|e| {
            e.diagnostic(
                "E_CONFIG_INVALID",
                "see the commented dwpipe.yaml that `dwpipe init` writes",
            )
        })?;
        let text = String::from_utf8(bytes).map_err(|_| invalid(path, "not UTF-8"))?;
        Config::parse(path, &text)
    }

    /// Validates config text; `path` names it and anchors relative paths.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Config, Diagnostic> {
        let doc: ConfigDoc = parse_yaml(path, text).map_err(|d| {
            d.recode(
                "E_CONFIG_INVALID",
                "see the commented dwpipe.yaml that `dwpipe init` writes",
            )
        })?;
        let base = crate::output::dir_or_dot(path.parent());
        let agent = doc
            .agent
            .map(|a| super::agent::agent(path, a))
            .transpose()?;
        let verify = super::verify::verify(path, doc.verify)?;
        let review = super::review::review(path, doc.review)?;
        let repair = super::review::repair(doc.repair.as_ref());
        let device = super::device::device(path, base, doc.device)?;
        let history = doc
            .history
            .map(|text| match Store::parse(&text) {
                Ok(Store::Sqlite(file)) => Ok(Store::Sqlite(base.join(file))),
                Ok(server) => Ok(server),
                Err(e) => Err(invalid(path, format!("history: {e} ({})", e.fix()))),
            })
            .transpose()?;
        Ok(Config {
            workspace: base.join(doc.workspace.unwrap_or_else(|| PathBuf::from("."))),
            agent,
            verify,
            review,
            repair,
            device,
            history,
            sign_key: doc.attest.map(|a| base.join(a.key)),
        })
    }
}
