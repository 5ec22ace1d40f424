//! One line of ftrace text:
//!
//! ```text
//! <ws> task-tid <ws> [(<ws> tgid|-----)] <ws> [cpu] <ws> [flags] <ws> secs.frac: event: args
//! ```
//!
//! Parsed from bytes without allocating: task names may hold spaces, `-`, `:`, `#`, `[`; the
//! TGID may be `( 1252)`, `(-----)`, `(-------)` or absent; padding may be TABs; lines may end
//! in CRLF. Timestamps become integer nanoseconds, never floats.

/// A parsed event line; every field borrows from the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EventLine<'a> {
    /// The task (thread) name, with the blanks that pad it (nothing reads it but the tests:
    /// trimming every line's padding was a tenth of the parse).
    pub(crate) task: &'a [u8],
    /// The thread id from the line prefix.
    pub(crate) tid: u32,
    /// The TGID column, when known.
    pub(crate) tgid: Option<u32>,
    /// Timestamp in nanoseconds.
    pub(crate) ts_ns: u64,
    /// The event name (`tracing_mark_write`, `print`, `sched_switch`, …).
    pub(crate) event: &'a [u8],
    /// Everything after `event: `.
    pub(crate) args: &'a [u8],
}

/// Parses one line (its `\n` already removed); `None` for anything that is not an event.
pub(crate) fn parse_line(line: &[u8]) -> Option<EventLine<'_>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let (head_end, cpu_close) = find_cpu(line)?;
    // Before the CPU: `task-tid` and an optional `(tgid)`, blanks after them trimmed.
    let mut head = &line[..head_end];
    let mut tgid = None;
    if head.last() == Some(&b')') {
        let open = head.iter().rposition(|b| *b == b'(')?;
        let inner = trim(&head[open + 1..head.len() - 1]);
        tgid = parse_u32(inner);
        if tgid.is_none() && !inner.iter().all(|b| *b == b'-') {
            return None;
        }
        head = trim_end(&head[..open]);
    }
    let digits = head.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || head.len() <= digits || head[head.len() - digits - 1] != b'-' {
        return None;
    }
    let tid = parse_u32(&head[head.len() - digits..])?;
    let task = &head[..head.len() - digits - 1];
    // After the CPU: optional flags, then `secs.frac:`.
    let mut rest = trim_start(&line[cpu_close + 1..]);
    let token_end = rest
        .iter()
        .position(|b| *b == b' ' || *b == b'\t')
        .unwrap_or(rest.len());
    if !rest[..token_end].ends_with(b":") {
        // The flags column (`....`, `d..3`, `dNh.`; newer kernels print more).
        if token_end > 8 {
            return None;
        }
        rest = trim_start(&rest[token_end..]);
    }
    // The timestamp and the event name are a few bytes each: each read in one plain pass
    // (memchr's setup costs more on them; this is the parser's hottest path).
    let (ts_ns, colon) = timestamp(rest)?;
    let after = rest[colon + 1..].strip_prefix(b" ")?;
    let event_end = after.iter().position(|b| *b == b':' || *b == b' ')?;
    let event = &after[..event_end];
    if event.is_empty() || after[event_end] == b' ' {
        return None;
    }
    let args = after[event_end + 1..]
        .strip_prefix(b" ")
        .unwrap_or(&after[event_end + 1..]);
    Some(EventLine {
        task,
        tid,
        tgid,
        ts_ns,
        event,
        args,
    })
}

/// The CPU column: where the text before its `[` ends (blanks trimmed), and where its `]` is.
/// The column is `[` digits `]`, preceded (after blanks) by `)` or by the tid's digits. Task
/// names may hold brackets, so the first such `[` wins.
fn find_cpu(line: &[u8]) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(offset) = memchr::memchr(b'[', &line[from..]) {
        let open = from + offset;
        let digits = line[open + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let closes = digits > 0 && line.get(open + 1 + digits) == Some(&b']');
        let before = trim_end(&line[..open]);
        if closes && matches!(before.last(), Some(b')' | b'0'..=b'9')) {
            return Some((before.len(), open + 1 + digits));
        }
        from = open + 1;
    }
    None
}

/// `secs.frac:` at the start of `text` → (ns, exactly; the colon's index), in one pass. The
/// fraction has 1 to 9 digits (padded to nanoseconds), the seconds at most 19.
fn timestamp(text: &[u8]) -> Option<(u64, usize)> {
    let digits = |from: usize, most: usize| {
        let mut value = 0u64;
        let mut at = from;
        while let Some(b) = text.get(at).filter(|b| b.is_ascii_digit()) {
            if at - from == most {
                return None;
            }
            value = value * 10 + u64::from(b - b'0');
            at += 1;
        }
        (at > from).then_some((value, at))
    };
    let (secs, dot) = digits(0, 19)?;
    if text.get(dot) != Some(&b'.') {
        return None;
    }
    let (frac, colon) = digits(dot + 1, 9)?;
    if text.get(colon) != Some(&b':') {
        return None;
    }
    let nanos = frac * 10u64.pow(9 - (colon - dot - 1) as u32);
    Some((secs.checked_mul(1_000_000_000)?.checked_add(nanos)?, colon))
}

fn parse_u64(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    digits.iter().try_fold(0u64, |n, b| {
        b.is_ascii_digit().then(|| n * 10 + u64::from(b - b'0'))
    })
}

/// Parses ASCII digits as a `u32`.
pub(crate) fn parse_u32(digits: &[u8]) -> Option<u32> {
    parse_u64(digits).and_then(|n| u32::try_from(n).ok())
}

fn is_blank(b: &u8) -> bool {
    *b == b' ' || *b == b'\t'
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !is_blank(b))
        .unwrap_or(bytes.len());
    &bytes[start..]
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|b| !is_blank(b))
        .map_or(0, |p| p + 1);
    &bytes[..end]
}

/// Trims spaces and TABs on both sides.
pub(crate) fn trim(bytes: &[u8]) -> &[u8] {
    trim_start(trim_end(bytes))
}

#[cfg(test)]
mod tests;
