//! Parsing input text (YAML or JSON) into serde types, with every failure turned into one
//! diagnostic that names the key path (`criteria[3].assertion.matchr`) and the file position.
//!
//! The codes are the pack's (`E_PACK_UNKNOWN_KEY`, `E_PACK_SCHEMA`, …): it is the input people
//! write most; readers of other files file them under their own code with
//! [`Diagnostic::recode`].

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::diagnostic::{Diagnostic, Location};

/// Deserializes YAML into `T`, naming the key path and position of any error.
pub(crate) fn parse_yaml<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, Diagnostic> {
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
pub(crate) fn parse_json<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, Diagnostic> {
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

/// The keys of a JSON document's top-level object, read without building the document: every
/// value is skipped as it is parsed, so a hostile file of many small values costs nothing
/// but its keys. What kind of report a file is, before it is read into its typed shape.
pub(crate) fn top_level_keys(bytes: &[u8]) -> Result<Vec<String>, serde_json::Error> {
    struct Keys;
    impl<'de> serde::de::Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<serde::de::IgnoredAny>()?;
                keys.push(key);
            }
            Ok(keys)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let keys = serde::Deserializer::deserialize_map(&mut deserializer, Keys)?;
    deserializer.end()?;
    Ok(keys)
}
