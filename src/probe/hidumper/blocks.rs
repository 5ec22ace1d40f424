//! What every hidumper dump shares: the error it can say, and its service's block.

use regex::Regex;
use std::sync::LazyLock;

/// Why a dump could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DumpError {
    /// The dump lacks the block it should hold (unknown SA name, wrong command).
    #[error("no `{0}` block in the dump")]
    MissingBlock(String),
    /// hidumper said so.
    #[error("hidumper: {0}")]
    Hidumper(String),
    /// The block is there but holds nothing usable.
    #[error("{0}")]
    Empty(String),
}

pub(crate) fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static regex")
}

pub(super) static SA_HEADER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^-{10,}\s*([A-Za-z0-9_]+)\s*-{10,}\s*$"));
pub(crate) static HIDUMPER_ERROR: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^hidumper: (.+)$"));

/// Checks that the dump holds the block of system ability `name` (or hidumper's own error).
pub(crate) fn require_block(dump: &str, name: &str) -> Result<(), DumpError> {
    if let Some(error) = HIDUMPER_ERROR.captures(dump) {
        return Err(DumpError::Hidumper(error[1].trim().to_owned()));
    }
    if SA_HEADER.captures_iter(dump).any(|c| &c[1] == name) {
        Ok(())
    } else {
        Err(DumpError::MissingBlock(name.to_owned()))
    }
}
