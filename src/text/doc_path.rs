//! A path as the documents dwpipe writes name it: the same bytes on every host. Reports,
//! pages, captures and the history are read back (verify-evidence rebuilds an audit and
//! compares it field by field) and moved between a Windows laptop and a Linux lab, so a path
//! inside them separates its parts with `/` (which Windows takes as well as `\`) and never
//! keeps the `\\?\` prefix Windows' canonical paths carry.

use std::path::Path;

/// `path` as documents write it: `/` between its parts, without a verbatim prefix.
pub(crate) fn doc_path(path: &Path) -> String {
    let text = path.to_string_lossy();
    if cfg!(windows) {
        windows_doc_path(&text)
    } else {
        // `\` is a character a Unix file name may hold, not a separator.
        text.into_owned()
    }
}

/// A Windows path's text as documents write it.
fn windows_doc_path(text: &str) -> String {
    let plain = if let Some(share) = text.strip_prefix(r"\\?\UNC\") {
        format!(r"\\{share}")
    } else {
        text.strip_prefix(r"\\?\").unwrap_or(text).to_owned()
    };
    plain.replace('\\', "/")
}

#[cfg(test)]
mod tests;
