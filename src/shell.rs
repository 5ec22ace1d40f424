//! Device shell strings. hdc runs one string through `/bin/sh -c` on the device, so nothing
//! is ever quoted-and-hoped: every value substituted into a command is validated against a
//! strict pattern first, and the finished string may not contain a double quote (hdc wraps
//! the string in `"…"` without escaping).

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

static BUNDLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$").expect("static regex")
});
static IDENTIFIER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9_]{0,127}$").expect("static regex"));
static REMOTE_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^/data/local/tmp(/[A-Za-z0-9_][A-Za-z0-9._-]*)+$").expect("static regex")
});
static DEVICE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$").expect("static regex")
});
static SERIAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$").expect("static regex"));

/// A value that failed its pattern; nothing was spawned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{kind} {:?} is not allowed in a device command ({rule})",
    crate::text::one_line(value, crate::text::CELL)
)]
pub struct UnsafeValue {
    kind: &'static str,
    value: String,
    rule: &'static str,
}

impl UnsafeValue {
    pub(super) fn new(kind: &'static str, value: &str, rule: &'static str) -> UnsafeValue {
        UnsafeValue {
            kind,
            value: value.to_owned(),
            rule,
        }
    }
}

/// A host file's path as an argument of hdc (spawned as argv, never through a shell):
/// absolute, so that it never begins with `-` (which hdc would read as an option), and text,
/// since hdc takes it as text (a lossy name would be another file).
pub(crate) fn host_path(kind: &'static str, path: &std::path::Path) -> Result<String, UnsafeValue> {
    let lossy = || path.to_string_lossy().into_owned();
    let absolute = std::path::absolute(path)
        .map_err(|_| UnsafeValue::new(kind, &lossy(), "a path that can be made absolute"))?;
    match absolute.to_str() {
        Some(text) => Ok(text.to_owned()),
        None => Err(UnsafeValue::new(kind, &lossy(), "a path named in UTF-8")),
    }
}

/// A value validated for substitution into a device shell string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellValue(String);

impl ShellValue {
    fn checked(
        kind: &'static str,
        value: &str,
        pattern: &Regex,
        rule: &'static str,
    ) -> Result<ShellValue, UnsafeValue> {
        let traversal = value.split('/').any(|segment| segment == "..");
        if pattern.is_match(value) && !traversal {
            Ok(ShellValue(value.to_owned()))
        } else {
            Err(UnsafeValue::new(kind, value, rule))
        }
    }

    /// A bundle name: reverse-domain identifier.
    pub fn bundle(value: &str) -> Result<ShellValue, UnsafeValue> {
        ShellValue::checked(
            "bundle",
            value,
            &BUNDLE,
            "a reverse-domain identifier like com.example.notes",
        )
    }

    /// An ability or module name: a plain identifier.
    pub(crate) fn identifier(kind: &'static str, value: &str) -> Result<ShellValue, UnsafeValue> {
        ShellValue::checked(
            kind,
            value,
            &IDENTIFIER,
            "letters, digits and `_`, starting with a letter",
        )
    }

    /// The `aa test` filter of hypium suites and cases: ` -s class Suite#case,Other` (each
    /// name an identifier), or nothing for the whole run.
    pub(crate) fn hypium_classes(
        filters: &[(&str, Option<&str>)],
    ) -> Result<ShellValue, UnsafeValue> {
        let mut classes = Vec::with_capacity(filters.len());
        for (suite, case) in filters {
            let suite = ShellValue::identifier("suite", suite)?;
            classes.push(match case {
                Some(case) => format!("{}#{}", suite.0, ShellValue::identifier("case", case)?.0),
                None => suite.0,
            });
        }
        Ok(ShellValue(if classes.is_empty() {
            String::new()
        } else {
            format!(" -s class {}", classes.join(","))
        }))
    }

    /// A path on the device, under /data/local/tmp, without `..`.
    pub fn remote_path(value: &str) -> Result<ShellValue, UnsafeValue> {
        ShellValue::checked(
            "remote path",
            value,
            &REMOTE_PATH,
            "a path under /data/local/tmp of letters, digits, `.`, `_` and `-`",
        )
    }

    /// A non-negative integer (a run number, a pid), from text a device printed.
    pub(crate) fn number(kind: &'static str, value: &str) -> Result<ShellValue, UnsafeValue> {
        let value = value.trim();
        if !value.is_empty() && value.len() <= 19 && value.bytes().all(|b| b.is_ascii_digit()) {
            Ok(ShellValue(value.to_owned()))
        } else {
            Err(UnsafeValue::new(kind, value, "digits only"))
        }
    }

    /// A time on the device's clock, as `date '+%Y-%m-%d %H:%M:%S'` prints it (hidumper's
    /// `--since` takes that form); single-quoted in the command, it holds one space.
    pub(crate) fn device_time(value: &str) -> Result<ShellValue, UnsafeValue> {
        ShellValue::checked(
            "device time",
            value.trim(),
            &DEVICE_TIME,
            "a time like 2026-12-06 12:00:03",
        )
    }

    /// Text a flow types: letters and digits of any script, space and `. , _ @ + -`, at most
    /// `max` characters, single-quoted for the device shell (nothing it may hold can end the
    /// quotes or start a substitution).
    pub(crate) fn input_text(value: &str, max: usize) -> Result<ShellValue, UnsafeValue> {
        match input_text_refusal(value, max) {
            None => Ok(ShellValue(format!("'{value}'"))),
            Some(_) => Err(UnsafeValue::new(
                "input text",
                value,
                "letters, digits, space and . , _ @ + -, at most 200 characters",
            )),
        }
    }

    /// A device serial (connect key): USB serial or `IP:port`.
    pub(crate) fn serial(value: &str) -> Result<ShellValue, UnsafeValue> {
        ShellValue::checked(
            "serial",
            value,
            &SERIAL,
            "letters, digits, `.`, `_`, `:` and `-`",
        )
    }

    /// The validated text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why `text` cannot be typed by a flow: the first character outside the allowed set, or its
/// length; `None` when it can.
pub(crate) fn input_text_refusal(text: &str, max: usize) -> Option<String> {
    if text.is_empty() {
        return Some("the text is empty".to_owned());
    }
    if text.chars().count() > max {
        return Some(format!("the text is longer than {max} characters"));
    }
    text.chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, ' ' | '.' | ',' | '_' | '@' | '+' | '-')))
        .map(|c| {
            if c.is_control() || c.is_whitespace() {
                format!("U+{:04X} cannot be typed", u32::from(c))
            } else {
                format!("`{c}` cannot be typed")
            }
        })
}

/// A finished device shell string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShellCommand(String);

impl ShellCommand {
    /// A command written in dwpipe's own code (no substitution).
    pub fn fixed(text: &'static str) -> ShellCommand {
        debug_assert!(
            !text.contains('"'),
            "device commands use single quotes only"
        );
        ShellCommand(text.to_owned())
    }

    /// Fills `{name}` placeholders of `template` with validated values. Unknown or unfilled
    /// placeholders and double quotes are refused.
    pub fn render(
        template: &str,
        values: &[(&str, &ShellValue)],
    ) -> Result<ShellCommand, UnsafeValue> {
        let refuse = |rule: &'static str| UnsafeValue::new("command template", template, rule);
        if template.contains('"') {
            return Err(refuse(
                "double quotes cannot pass through hdc; use single quotes",
            ));
        }
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| refuse("an unclosed `{`"))?
                + open;
            let name = &rest[open + 1..close];
            let (_, value) = values
                .iter()
                .find(|(key, _)| *key == name)
                .ok_or_else(|| refuse("a placeholder with no validated value"))?;
            out.push_str(value.as_str());
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        Ok(ShellCommand(out))
    }

    /// Parses a command read back from a capture: the same rules as a command dwpipe built.
    pub fn from_capture(text: &str) -> Result<ShellCommand, UnsafeValue> {
        ShellCommand::render(text, &[]).and_then(|c| {
            if text.contains('{') {
                Err(UnsafeValue::new("command", text, "no placeholders"))
            } else {
                Ok(c)
            }
        })
    }

    /// The string the device shell runs.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ShellCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests;
