//! What a host program (hdc above all) wrote, as text. hdc passes the phone's output through
//! as the phone wrote it (UTF-8), and writes its own messages (a host path it could not open)
//! in the host's encoding: on a Chinese Windows, the ANSI code page 936 (GBK), where a file
//! name such as `C:\用户\…` is not UTF-8. So each line is read as UTF-8 when it is UTF-8, else,
//! on Windows, in the ANSI code page Windows decodes it with; anything left undecodable is
//! U+FFFD. Never a panic, whatever the bytes.

use std::borrow::Cow;

/// `bytes` as text, line by line: UTF-8 where it is, else the host's code page.
pub(crate) fn host_text(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut text = String::with_capacity(bytes.len());
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        match std::str::from_utf8(line) {
            Ok(line) => text.push_str(line),
            Err(_) => text.push_str(&in_code_page(line)),
        }
    }
    Cow::Owned(text)
}

/// A line that is not UTF-8, in the host's ANSI code page.
#[cfg(windows)]
fn in_code_page(line: &[u8]) -> String {
    // SAFETY: GetACP takes nothing and cannot fail.
    #[expect(unsafe_code, reason = "std has no binding for the ANSI code page")]
    let code_page = unsafe { windows_sys::Win32::Globalization::GetACP() };
    windows::decode(code_page, line).unwrap_or_else(|| String::from_utf8_lossy(line).into_owned())
}

/// A line that is not UTF-8: Unix hosts write UTF-8, so what is not is shown as U+FFFD.
#[cfg(not(windows))]
fn in_code_page(line: &[u8]) -> String {
    String::from_utf8_lossy(line).into_owned()
}

#[cfg(windows)]
pub(super) mod windows {
    //! Windows' own decoder of a code page.
    #![expect(unsafe_code, reason = "std has no binding for MultiByteToWideChar")]

    use windows_sys::Win32::Globalization::MultiByteToWideChar;

    /// `bytes` in `code_page`, as Windows decodes them (`None` when it refuses).
    pub(crate) fn decode(code_page: u32, bytes: &[u8]) -> Option<String> {
        if bytes.is_empty() {
            return Some(String::new());
        }
        let length = i32::try_from(bytes.len()).ok()?;
        // SAFETY: the input is `bytes` with its length; a null output asks for the size.
        let wide = unsafe {
            MultiByteToWideChar(
                code_page,
                0,
                bytes.as_ptr(),
                length,
                std::ptr::null_mut(),
                0,
            )
        };
        let mut units = vec![0u16; usize::try_from(wide).ok().filter(|n| *n > 0)?];
        // SAFETY: the output buffer holds exactly the units the first call asked for.
        let written = unsafe {
            MultiByteToWideChar(
                code_page,
                0,
                bytes.as_ptr(),
                length,
                units.as_mut_ptr(),
                wide,
            )
        };
        units.truncate(usize::try_from(written).ok().filter(|n| *n > 0)?);
        Some(String::from_utf16_lossy(&units))
    }
}

#[cfg(test)]
mod tests;
