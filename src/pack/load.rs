//! Reading a pack file (YAML or JSON) into the schema, with every failure turned into a
//! diagnostic that has a stable code, the key path and the file position.

use std::path::Path;

use crate::diagnostic::{Diagnostic, Location, chain};
use crate::input::{ReadError, parse_json, parse_yaml, read_bounded};

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
        ReadError::Io { .. } => Diagnostic::error("E_PACK_UNREADABLE", chain(&e))
            .fix("check the path and its permissions"),
        ReadError::TooLarge { .. } => Diagnostic::error("E_PACK_TOO_LARGE", chain(&e))
            .fix("split generated criteria into a smaller pack"),
        ReadError::NotAFile { .. } => Diagnostic::error("E_PACK_NOT_A_FILE", chain(&e))
            .fix("save the pack to a file and freeze that file"),
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
