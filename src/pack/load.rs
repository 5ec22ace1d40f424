//! Reading a pack file (YAML or JSON) into the schema, with every failure turned into a
//! diagnostic that has a stable code, the key path and the file position.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::diagnostic::{Diagnostic, Location};
use crate::input::{ReadError, read_bounded};

use super::schema::PackDoc;

/// Largest pack file dwpipe reads. A real pack is a few kilobytes; anything near this size is
/// generated or hostile, and is refused before parsing.
pub const MAX_PACK_BYTES: u64 = 4 * 1024 * 1024;

/// The syntax a pack is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// YAML (positions are reported for every value).
    Yaml,
    /// JSON.
    Json,
}

impl Syntax {
    /// By extension, else by the first non-blank character.
    fn detect(path: &Path, text: &str) -> Syntax {
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => Syntax::Json,
            Some("yaml" | "yml") => Syntax::Yaml,
            _ if text.trim_start().starts_with('{') => Syntax::Json,
            _ => Syntax::Yaml,
        }
    }
}

/// Reads and parses a pack file. The only error is one diagnostic, because a schema error
/// stops the parser where it stands.
pub fn load_pack(path: &Path) -> Result<(PackDoc, Syntax), Diagnostic> {
    let bytes = read_bounded(path, MAX_PACK_BYTES, "a pack").map_err(|e| match e {
        ReadError::Io { .. } => Diagnostic::error("E_PACK_UNREADABLE", e.to_string())
            .fix("check the path and its permissions"),
        ReadError::TooLarge { .. } => Diagnostic::error("E_PACK_TOO_LARGE", e.to_string())
            .fix("split generated criteria into a smaller pack"),
    })?;
    parse_pack(path, &bytes)
}

/// Parses pack bytes; `path` names the file in diagnostics and picks the syntax.
pub fn parse_pack(path: &Path, bytes: &[u8]) -> Result<(PackDoc, Syntax), Diagnostic> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        let (line, column) = line_column(&bytes[..offset]);
        Diagnostic::error("E_PACK_NOT_UTF8", format!("invalid UTF-8 at byte {offset}"))
            .at(Location::at(path, line, column))
            .fix("save the pack as UTF-8")
    })?;
    if text.trim().is_empty() {
        return Err(
            Diagnostic::error("E_PACK_EMPTY", format!("`{}` is empty", path.display()))
                .at(Location::at(path, 1, 1))
                .fix("start from `dwpipe init`, which writes a commented example pack"),
        );
    }
    let syntax = Syntax::detect(path, text);
    let doc = match syntax {
        Syntax::Yaml => parse_yaml(path, text),
        Syntax::Json => parse_json(path, text),
    };
    match doc {
        Ok(doc) => Ok((doc, syntax)),
        Err(diagnostic) => Err(name_criterion(diagnostic, text, syntax)),
    }
}

/// A schema error inside `criteria[N]` names that criterion's id when the text still parses
/// as plain data, so the author sees which criterion to fix, not just its index.
fn name_criterion(mut diagnostic: Diagnostic, text: &str, syntax: Syntax) -> Diagnostic {
    let index = diagnostic
        .key_path
        .as_deref()
        .and_then(|p| p.strip_prefix("criteria["))
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(n, _)| n.parse::<usize>().ok());
    let Some(index) = index else {
        return diagnostic;
    };
    let loose: Option<serde_json::Value> = match syntax {
        Syntax::Yaml => serde_saphyr::from_str(text).ok(),
        Syntax::Json => serde_json::from_str(text).ok(),
    };
    diagnostic.criterion_id = loose.as_ref().and_then(|v| {
        v.get("criteria")?
            .get(index)?
            .get("id")?
            .as_str()
            .map(str::to_owned)
    });
    diagnostic
}

/// Deserializes YAML into `T`, naming the key path and position of any error.
pub fn parse_yaml<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, Diagnostic> {
    let mut key_path = None;
    let result = serde_saphyr::with_deserializer_from_str(text, |de| {
        serde_path_to_error::deserialize(de).map_err(|e| {
            key_path = Some(e.path().to_string());
            e.into_inner()
        })
    });
    result.map_err(|error| {
        let location = error
            .location()
            .and_then(|l| Location::at(path, l.line(), l.column()));
        let code = yaml_code(error.without_snippet());
        let message = strip_position(&error.without_snippet().to_string());
        schema_diagnostic(code, message, key_path.as_deref()).at(location)
    })
}

/// Deserializes JSON into `T`, naming the key path and position of any error.
pub fn parse_json<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, Diagnostic> {
    let json_diagnostic = |inner: serde_json::Error, key_path: Option<&str>| {
        let code = match inner.classify() {
            serde_json::error::Category::Data => data_code(&inner.to_string()),
            _ => "E_PACK_PARSE",
        };
        let location = Location::at(path, inner.line() as u64, inner.column() as u64);
        schema_diagnostic(code, strip_position(&inner.to_string()), key_path).at(location)
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|error| {
        let key_path = error.path().to_string();
        json_diagnostic(error.into_inner(), Some(&key_path))
    })?;
    de.end().map_err(|e| json_diagnostic(e, None))?;
    Ok(value)
}

fn yaml_code(error: &serde_saphyr::Error) -> &'static str {
    use serde_saphyr::Error as E;
    match error {
        E::SerdeUnknownField { .. } => "E_PACK_UNKNOWN_KEY",
        E::SerdeMissingField { .. } => "E_PACK_MISSING_FIELD",
        E::DuplicateMappingKey { .. } => "E_PACK_DUPLICATE_KEY",
        E::Budget { .. }
        | E::AliasReplayCounterOverflow { .. }
        | E::AliasReplayLimitExceeded { .. }
        | E::AliasExpansionLimitExceeded { .. }
        | E::AliasReplayStackDepthExceeded { .. } => "E_PACK_TOO_COMPLEX",
        E::Message { .. }
        | E::Unexpected { .. }
        | E::SerdeInvalidType { .. }
        | E::SerdeInvalidValue { .. }
        | E::SerdeInvalidLength { .. }
        | E::SerdeUnknownVariant { .. }
        | E::NonFiniteFloat { .. }
        | E::InvalidScalar { .. }
        | E::NullIntoString { .. }
        | E::InvalidBooleanStrict { .. } => "E_PACK_SCHEMA",
        _ => "E_PACK_PARSE",
    }
}

/// Codes for serde's data errors, whose wording serde itself fixes.
fn data_code(message: &str) -> &'static str {
    if message.starts_with("unknown field") {
        "E_PACK_UNKNOWN_KEY"
    } else if message.starts_with("missing field") {
        "E_PACK_MISSING_FIELD"
    } else if message.starts_with("duplicate field") {
        "E_PACK_DUPLICATE_KEY"
    } else {
        "E_PACK_SCHEMA"
    }
}

fn schema_diagnostic(code: &'static str, message: String, key_path: Option<&str>) -> Diagnostic {
    // `Spanned` wrappers add a `value` segment of their own; the pack has no key by that name.
    let key_path = key_path
        .map(|p| {
            p.split('.')
                .filter(|segment| *segment != "value")
                .collect::<Vec<_>>()
                .join(".")
        })
        .filter(|p| !p.is_empty() && p != ".");
    let message = match &key_path {
        Some(p) => format!("{message} (at `{p}`)"),
        None => message,
    };
    let mut diagnostic = Diagnostic::error(code, message);
    diagnostic.key_path = key_path;
    let fix = match code {
        "E_PACK_UNKNOWN_KEY" => {
            "correct the spelling or remove the key; unknown keys are never ignored"
        }
        "E_PACK_MISSING_FIELD" => "add the missing field",
        "E_PACK_DUPLICATE_KEY" => "keep one of the duplicated keys",
        "E_PACK_TOO_COMPLEX" => "write the pack without deep nesting or alias expansion",
        "E_PACK_SCHEMA" => "give the value the type the schema expects (see `dwpipe init`)",
        _ => "fix the syntax at the position shown",
    };
    diagnostic.fix(fix)
}

/// Drops the ` at line L, column C` tail that parsers append: the location is reported once,
/// in its own field.
fn strip_position(message: &str) -> String {
    let first_line = message.lines().next().unwrap_or(message);
    let first_line = first_line.strip_prefix("error: ").unwrap_or(first_line);
    let trimmed = match first_line.rfind(" at line ") {
        Some(at) => &first_line[..at],
        None => first_line,
    };
    let trimmed = match trimmed.strip_prefix("line ") {
        // saphyr's rendered form: "line 3 column 10: message"
        Some(rest) => rest.split_once(": ").map_or(trimmed, |(_, m)| m),
        None => trimmed,
    };
    trimmed.to_owned()
}

fn line_column(prefix: &[u8]) -> (u64, u64) {
    let line = prefix.iter().filter(|b| **b == b'\n').count() + 1;
    let column = prefix.len()
        - prefix
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (line as u64, column as u64)
}
