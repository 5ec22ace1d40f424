//! Diagnostics: the stable-coded findings every stage reports.
//!
//! A diagnostic names its code (`E_…` errors refuse, `W_…` warnings are recorded), the
//! criterion it concerns, where in the input it was found and a one-line fix. Stages collect
//! them; reporters print them.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// How serious a diagnostic is.
#[derive(schemars::JsonSchema, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Refuses the stage.
    Error,
    /// Recorded and shown; the stage goes on.
    Warning,
}

/// A place in an input file.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The file, as the user named it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl Location {
    /// A location in `file`, or `None` when the parser did not know the line (JSON values).
    pub(crate) fn at(file: &Path, line: u64, column: u64) -> Option<Location> {
        (line > 0).then(|| Location {
            file: file.display().to_string(),
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        })
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One finding with a stable code.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Stable code (`E_PACK_UNKNOWN_KEY`); the prefix matches the severity.
    pub code: String,
    /// Error or warning.
    pub severity: Severity,
    /// The criterion concerned, if any.
    pub criterion_id: Option<String>,
    /// What is wrong.
    pub message: String,
    /// Where, when the input has positions (always present in JSON, `null` when unknown).
    #[serde(default)]
    pub location: Option<Location>,
    /// How to fix it, in one line.
    #[serde(default)]
    pub fix: Option<String>,
    /// The key path of a schema error (`criteria[3].assertion.matchr`).
    #[serde(default)]
    pub key_path: Option<String>,
}

impl Diagnostic {
    /// An error; the code must start with `E_`.
    pub(crate) fn error(code: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, Severity::Error, message)
    }

    /// A warning; the code must start with `W_`.
    pub(crate) fn warning(code: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, Severity::Warning, message)
    }

    fn new(code: &str, severity: Severity, message: impl Into<String>) -> Diagnostic {
        debug_assert_eq!(
            code.starts_with("E_"),
            severity == Severity::Error,
            "code {code} does not match its severity"
        );
        Diagnostic {
            code: code.to_owned(),
            severity,
            criterion_id: None,
            message: message.into(),
            location: None,
            fix: None,
            key_path: None,
        }
    }

    /// Names the criterion concerned.
    pub(crate) fn criterion(mut self, id: impl Into<String>) -> Diagnostic {
        self.criterion_id = Some(id.into());
        self
    }

    /// Sets where it was found.
    pub(crate) fn at(mut self, location: Option<Location>) -> Diagnostic {
        self.location = location;
        self
    }

    /// Adds the one-line fix.
    pub(crate) fn fix(mut self, fix: impl Into<String>) -> Diagnostic {
        self.fix = Some(fix.into());
        self
    }

    /// Files a parser's diagnostic under the caller's code and fix (a lock that does not parse
    /// is a lock error): one code per message, the reader's.
    pub(crate) fn recode(mut self, code: &str, fix: &str) -> Diagnostic {
        self.code = code.to_owned();
        self.fix = Some(fix.to_owned());
        self
    }

    /// The message and its line, without the code: for a finding told inside another error
    /// (which names the file and shows its own code: one code per message).
    pub(crate) fn described(&self) -> String {
        match &self.location {
            Some(at) => format!("line {}, column {}: {}", at.line, at.column, self.message),
            None => self.message.clone(),
        }
    }

    /// Whether this refuses the stage.
    pub(crate) fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Renders a diagnostic the way a terminal user reads it, compiler style:
///
/// ```text
/// error[E_PACK_UNKNOWN_KEY]: unknown key `matchr` at criteria[1].assertion
///   --> pack.yaml:14:7 (criterion A-01)
///   = fix: …
/// ```
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{level}[{}]: {}", self.code, self.message)?;
        let criterion = self
            .criterion_id
            .as_ref()
            .map(|id| format!("criterion {id}"));
        match (&self.location, criterion) {
            (Some(location), Some(criterion)) => write!(f, "\n  --> {location} ({criterion})")?,
            (Some(location), None) => write!(f, "\n  --> {location}")?,
            (None, Some(criterion)) => write!(f, "\n  --> {criterion}")?,
            (None, None) => {}
        }
        if let Some(fix) = &self.fix {
            write!(f, "\n  = fix: {fix}")?;
        }
        Ok(())
    }
}

/// Whether any diagnostic is an error.
pub(crate) fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}

/// An error and its causes in one line, `: `-separated, for files and messages that keep the
/// whole story (error messages never repeat their cause, so each part is said once).
pub(crate) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        text.push_str(": ");
        text.push_str(&next.to_string());
        cause = next.source();
    }
    text
}
