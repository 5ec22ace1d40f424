//! `verify:`: the verification commands, each with its name, argv, limit, the way its outcome
//! is read, and the HAPs it builds.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diagnostic::Diagnostic;
use crate::words::words;

use super::doc::{self, CommandDoc};
use super::value::{argv, duration, invalid};

words! {
    /// How a verification command's outcome is read.
    pub(crate) enum VerifyKind {
        /// By its exit code.
        Command = "command",
        /// By hvigor's own conclusion lines, on both streams (never its exit code).
        Hvigor = "hvigor",
    }
}

/// A declared verification command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VerifyCommand {
    /// Its name in reports.
    pub(crate) name: String,
    /// Its argv (never a shell string).
    pub(crate) argv: Vec<String>,
    /// Wall-clock limit.
    pub(crate) timeout: Duration,
    /// How its outcome is read.
    pub(crate) kind: VerifyKind,
    /// The HAPs it builds, relative to the workspace.
    pub(crate) haps: Vec<PathBuf>,
}

/// `verify:`, validated: each command named once, its HAPs inside the workspace.
pub(super) fn verify(path: &Path, docs: Vec<CommandDoc>) -> Result<Vec<VerifyCommand>, Diagnostic> {
    let mut names = Vec::new();
    docs.into_iter()
        .map(|c| {
            if c.name.trim().is_empty() || names.contains(&c.name) {
                return Err(invalid(
                    path,
                    format!("verify: `{}` is empty or used twice", c.name),
                ));
            }
            names.push(c.name.clone());
            let kind = match c.kind.as_deref() {
                None => VerifyKind::Command,
                Some(kind) => VerifyKind::parse(kind).ok_or_else(|| {
                    invalid(
                        path,
                        format!(
                            "verify `{}`: kind `{kind}` is not `command` or `hvigor`",
                            c.name
                        ),
                    )
                })?,
            };
            let haps: Vec<PathBuf> = c
                .hap
                .map(doc::OneOrMany::into_vec)
                .unwrap_or_default()
                .into_iter()
                .map(PathBuf::from)
                .collect();
            if let Some(bad) = haps.iter().find(|h| {
                h.as_os_str().is_empty()
                    || h.is_absolute()
                    || h.components()
                        .any(|c| matches!(c, std::path::Component::ParentDir))
                    || h.extension().is_none_or(|e| e != "hap")
            }) {
                return Err(invalid(
                    path,
                    format!(
                        "verify `{}`: hap `{}` is not a `.hap` path inside the workspace",
                        c.name,
                        bad.display()
                    ),
                ));
            }
            Ok(VerifyCommand {
                timeout: duration(
                    path,
                    c.timeout.as_deref(),
                    Duration::from_secs(10 * 60),
                    "verify timeout",
                )?,
                argv: argv(path, c.argv, &format!("verify `{}`", c.name))?,
                name: c.name,
                kind,
                haps,
            })
        })
        .collect()
}
