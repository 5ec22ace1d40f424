//! What every section's validation shares: the error that names the config and the fix, a
//! duration with its default, an argv that is never empty.

use std::path::Path;
use std::time::Duration;

use crate::diagnostic::Diagnostic;
use crate::input::parse_duration;

/// The config at `path` refused, with `message` saying where and why.
pub(super) fn invalid(path: &Path, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(
        "E_CONFIG_INVALID",
        format!("{}: {}", path.display(), message.into()),
    )
    .fix("see the commented dwpipe.yaml that `dwpipe init` writes")
}

/// A duration as written (`10m`), or `default` when absent.
pub(super) fn duration(
    path: &Path,
    text: Option<&str>,
    default: Duration,
    what: &str,
) -> Result<Duration, Diagnostic> {
    match text {
        None => Ok(default),
        Some(text) => parse_duration(text).map_err(|e| invalid(path, format!("{what}: {e}"))),
    }
}

/// An argv: a non-empty list of non-empty strings without NUL bytes.
pub(super) fn argv(path: &Path, argv: Vec<String>, what: &str) -> Result<Vec<String>, Diagnostic> {
    if argv.is_empty() || argv.iter().any(|a| a.is_empty() || a.contains('\0')) {
        return Err(invalid(
            path,
            format!("{what}: argv must be a non-empty list of non-empty strings"),
        ));
    }
    Ok(argv)
}
