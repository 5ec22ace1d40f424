//! HiTraceMeter marker payloads (`tracing_mark_write:` / `print:` arguments).
//!
//! ```text
//! API ≥ 19   B|pid|H:[chain]#name|<level><tags>[|args]     E|pid|<level><tags>
//!            S|pid|H:name|taskId|<level><tags>[|cat[|args]] F|… (same)   C|pid|H:name|value|<level><tags>
//! older      B|pid|H:name   E|pid|   S|pid|H:name taskId   C|pid|H:name value
//! Android    I|pid|name   N|pid|track|name   G|tgid|track|name|cookie   H|tgid|track|cookie
//! ```
//!
//! `<level>` is one of `D I C M`, `<tags>` one or more 2-digit ids (`M62`, `I38`, `M0538`).
//! Names may themselves contain `|`, so the level field is searched for rather than counted.

/// What a marker says; its names are `N`: the text, or where it lies in a chunk of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker<N> {
    /// `B`: a slice begins on this thread.
    Begin {
        /// The writer's pid.
        pid: Option<u32>,
        /// The slice name, without `H:` or a HiTraceChain prefix.
        name: N,
        /// What follows its level field (`key=value,…`), empty when nothing does.
        args: N,
    },
    /// `E`: the innermost open slice of this thread ends.
    End,
    /// `S`: an async slice begins.
    AsyncBegin {
        /// The name.
        name: N,
        /// The task id pairing it with its `F`.
        task: i64,
        /// What follows its category field (`key=value,…`), empty when nothing does.
        args: N,
    },
    /// `F`: an async slice ends.
    AsyncEnd {
        /// The name.
        name: N,
        /// The task id.
        task: i64,
    },
    /// `C`: a counter value.
    Counter {
        /// The counter name.
        name: N,
        /// Its value (may be large or negative).
        value: i64,
    },
    /// Android `I/N/G/H`, converter damage, anything else.
    Other,
}

impl<N> Marker<N> {
    /// The same marker with its names mapped by `f`.
    pub(crate) fn map<M>(self, mut f: impl FnMut(N) -> M) -> Marker<M> {
        match self {
            Marker::Begin { pid, name, args } => Marker::Begin {
                pid,
                name: f(name),
                args: f(args),
            },
            Marker::End => Marker::End,
            Marker::AsyncBegin { name, task, args } => Marker::AsyncBegin {
                name: f(name),
                task,
                args: f(args),
            },
            Marker::AsyncEnd { name, task } => Marker::AsyncEnd {
                name: f(name),
                task,
            },
            Marker::Counter { name, value } => Marker::Counter {
                name: f(name),
                value,
            },
            Marker::Other => Marker::Other,
        }
    }
}

/// Parses a marker payload; `print` events may carry a `0x<ip>: ` prefix first.
pub(crate) fn parse_marker(args: &[u8]) -> Marker<&[u8]> {
    let args = strip_ip(args);
    let args = args.strip_suffix(b"\r").unwrap_or(args);
    let Some((&phase, rest)) = args.split_first() else {
        return Marker::Other;
    };
    if phase == b'E' && (rest.is_empty() || rest[0] == b'|') {
        return Marker::End;
    }
    let Some(rest) = rest.strip_prefix(b"|") else {
        return Marker::Other;
    };
    let (pid, body) = match rest.iter().position(|b| *b == b'|') {
        Some(bar) => (super::line::parse_u32(&rest[..bar]), &rest[bar + 1..]),
        None => return Marker::Other,
    };
    match phase {
        b'B' => {
            let (name, after) = split_at_level(body);
            Marker::Begin {
                pid,
                name: clean_name(name),
                args: after.unwrap_or(&body[body.len()..]),
            }
        }
        b'S' | b'F' | b'C' => {
            let Some((name, number)) = name_and_number(body) else {
                return Marker::Other;
            };
            let name = clean_name(name);
            match phase {
                b'S' => Marker::AsyncBegin {
                    name,
                    task: number,
                    // `S|pid|H:name|task|level|category|args`: the arguments after the category.
                    args: split_at_level(body)
                        .1
                        .and_then(|after| memchr::memchr(b'|', after).map(|bar| &after[bar + 1..]))
                        .unwrap_or(&body[body.len()..]),
                },
                b'F' => Marker::AsyncEnd { name, task: number },
                _ => Marker::Counter {
                    name,
                    value: number,
                },
            }
        }
        _ => Marker::Other,
    }
}

/// `0x7f12ab: payload` → `payload` (the `print` event's caller-address form).
fn strip_ip(args: &[u8]) -> &[u8] {
    if let Some(hex) = args.strip_prefix(b"0x") {
        let digits = hex.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        if let Some(rest) = hex[digits..].strip_prefix(b": ") {
            return rest;
        }
    }
    args
}

/// Whether a `|` field is a level+tags field (`M62`, `I38`, `M0538`).
fn is_level(field: &[u8]) -> bool {
    matches!(field.first(), Some(b'D' | b'I' | b'C' | b'M'))
        && field.len() >= 3
        && (field.len() - 1).is_multiple_of(2)
        && field[1..].iter().all(u8::is_ascii_digit)
}

/// Splits `name|M62|args` at the level field: the name, and what follows the level field
/// (`None` without one: the old format, where the whole body is the name).
fn split_at_level(body: &[u8]) -> (&[u8], Option<&[u8]>) {
    // Names run to dozens of bytes: memchr outruns a plain scan here.
    let mut bar = memchr::memchr(b'|', body);
    while let Some(at) = bar {
        let next = memchr::memchr(b'|', &body[at + 1..]).map(|n| at + 1 + n);
        if is_level(&body[at + 1..next.unwrap_or(body.len())]) {
            let after = next.map_or(&body[body.len()..], |n| &body[n + 1..]);
            return (&body[..at], Some(after));
        }
        bar = next;
    }
    (body, None)
}

/// `name|123|M62…` (new) or `name 123` (old) → `(name, 123)`.
fn name_and_number(body: &[u8]) -> Option<(&[u8], i64)> {
    let (before_level, after) = split_at_level(body);
    if after.is_some() {
        let bar = before_level.iter().rposition(|b| *b == b'|')?;
        return Some((&before_level[..bar], parse_i64(&before_level[bar + 1..])?));
    }
    let body = super::line::trim(body);
    let space = body.iter().rposition(|b| *b == b' ' || *b == b'|')?;
    Some((&body[..space], parse_i64(&body[space + 1..])?))
}

fn parse_i64(text: &[u8]) -> Option<i64> {
    std::str::from_utf8(super::line::trim(text))
        .ok()?
        .parse()
        .ok()
}

/// Drops `H:`, a HiTraceChain `[a,b,c]#` prefix, and trailing blanks.
fn clean_name(name: &[u8]) -> &[u8] {
    let name = name.strip_prefix(b"H:").unwrap_or(name);
    let name = match name.strip_prefix(b"[") {
        Some(rest) => match rest.iter().position(|b| *b == b']') {
            Some(close) if rest.get(close + 1) == Some(&b'#') => &rest[close + 2..],
            _ => name,
        },
        None => name,
    };
    super::line::trim(name)
}

#[cfg(test)]
mod tests;
