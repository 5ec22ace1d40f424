//! The line a lock file's holder writes over its first bytes, for whoever waits: fixed-width,
//! so that the file never needs truncating.

/// The bytes a holder's line takes (padded with spaces, then a newline).
pub(super) const HOLDER_BYTES: usize = 255;

/// `holder` as the bytes written: one line, cut to [`HOLDER_BYTES`], padded, a newline.
pub(super) fn holder_line(holder: &str) -> Vec<u8> {
    let mut line: String = crate::text::one_line(holder, HOLDER_BYTES).into_owned();
    while line.len() > HOLDER_BYTES {
        line.pop();
    }
    let mut bytes = format!("{line:<HOLDER_BYTES$}").into_bytes();
    bytes.push(b'\n');
    bytes
}

/// What a holder wrote, from the file's first bytes: its first line, trimmed (`None` when
/// empty).
pub(super) fn first_line(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let line = text.lines().next().unwrap_or("").trim();
    (!line.is_empty()).then(|| crate::text::one_line(line, crate::text::LINE).into_owned())
}
