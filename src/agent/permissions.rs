//! The permissions a non-interactive Goal run needs, written into the project's
//! `deveco.jsonc` (DevEco Code's project config, OpenCode's schema; research/seeds-and-peers.md
//! §3.1, field-2026-12.md §3.1): in `deveco run` every permission that resolves to `ask` is
//! auto-rejected for the root session and never answered for a Goal subagent, which then
//! waits for ever. So `doom_loop` (a repeated tool call) and edits are allowed, and
//! `external_directory` is denied outright: the agent is not invited outside the workspace.

use serde_json::{Map, Value};

/// The file DevEco Code reads in the project root.
pub(crate) const FILE: &str = "deveco.jsonc";

/// What dwpipe needs, key by key.
const NEEDED: [(&str, &str); 3] = [
    ("edit", "allow"),
    ("doom_loop", "allow"),
    ("external_directory", "deny"),
];

/// The merged file: the user's settings kept, dwpipe's added where absent or `ask`. The second
/// value says whether comments of the old file were dropped (JSON keeps none).
pub(crate) fn merge(existing: Option<&str>) -> Result<(String, bool), String> {
    let (mut doc, had_comments) = match existing {
        None => (Map::new(), false),
        Some(text) => {
            let (plain, comments) = strip(text);
            match serde_json::from_str::<Value>(&plain) {
                Ok(Value::Object(map)) => (map, comments),
                Ok(_) => return Err("it is not a JSON object".to_owned()),
                Err(e) => return Err(format!("it is not JSONC: {e}")),
            }
        }
    };
    let permission = doc
        .entry("permission")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(permission) = permission else {
        return Err("its `permission` is not an object".to_owned());
    };
    for (key, value) in NEEDED {
        let unset = permission.get(key).is_none_or(|v| v == "ask");
        if unset {
            permission.insert(key.to_owned(), Value::String(value.to_owned()));
        }
    }
    let text = serde_json::to_string_pretty(&Value::Object(doc)).expect("JSON serializes");
    Ok((
        format!(
            "// Permissions for non-interactive Goal runs (written by `dwpipe init`): a permission\n\
             // that resolves to `ask` is never answered in `deveco run`, so a subagent would wait.\n{text}\n"
        ),
        had_comments,
    ))
}

/// JSONC without its comments and trailing commas; whether it had comments. One pass: a
/// comma outside a string is written and remembered until something other than space or a
/// comment follows it; a closing bracket takes it back (JSONC allows it, JSON does not).
fn strip(text: &str) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let (mut in_string, mut escaped, mut comments) = (false, false, false);
    let mut comma: Option<usize> = None;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                comments = true;
                for skipped in chars.by_ref() {
                    if skipped == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                comments = true;
                chars.next();
                let mut previous = ' ';
                for skipped in chars.by_ref() {
                    if previous == '*' && skipped == '/' {
                        break;
                    }
                    previous = skipped;
                }
            }
            (c, _) if c.is_whitespace() => out.push(c),
            ('}' | ']', _) => {
                if let Some(at) = comma.take() {
                    out.remove(at);
                }
                out.push(c);
            }
            (',', _) => {
                comma = Some(out.len());
                out.push(c);
            }
            _ => {
                comma = None;
                in_string = c == '"';
                out.push(c);
            }
        }
    }
    (out, comments)
}

#[cfg(test)]
mod tests;
