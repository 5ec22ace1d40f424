//! Reading hdc's replies. hdc exits 0 whatever happens and device stderr arrives on stdout,
//! so every reply is classified by its text: `[Fail]…` lines with the lines of advice after
//! them, `Connect server failed` on stderr, the client's own log lines (`[W][time] …`, on
//! stdout), `[Empty]`, and dwpipe's own exit-status sentinel for shell commands.

use std::sync::LazyLock;

use regex::Regex;

/// Appended to every shell command whose status matters; hdc drops the device status.
pub const SENTINEL: &str = "__DWPIPE_RC=";

static FAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\[Fail\](?:\[(E[0-9A-F]{6})\])?[\s:]*(.*)$").expect("static regex")
});
/// A line of the client's own log (`PrintLogEx`): its level, its time (with or without
/// milliseconds), then its words; printed on stdout when a channel fails.
static CLIENT_LOG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\[([DIWEFA])\]\[\d{4}-\d{2}-\d{2}[ T][0-9:.]+\](?:\[[^\]]*\])*\s?(.*)$")
        .expect("static regex")
});
static TRANSFER_OK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^FileTransfer finish, Size:(\d+), File count = (\d+)").expect("static regex")
});
static INSTALL_CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"code:(\d+)\s*(?:error:\s*)?(.*)").expect("static regex"));

/// What hdc's client prints when it refuses its options (`-s` takes IP literals only; a
/// connect key longer than 32 characters; hdc's own spelling).
const CLIENT_REFUSALS: [&str; 2] = ["-s content IP incorrect", "Sizeo of of parament"];

/// What hdc itself (not the device) said went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HdcFailure {
    /// The client could not reach the hdc server.
    ServerUnreachable,
    /// The client reached something that did not answer as an hdc server it can use (another
    /// program on the port, a server of another release): it printed its own log lines, the
    /// words of its warnings here, and nothing else.
    ServerBroken(String),
    /// The device did not authorize this host: hdc's words and its advice, on one line.
    Unauthorized(String),
    /// The target is unknown to the server or not connected.
    DeviceNotFound(String),
    /// Any other `[Fail]` line.
    Fail {
        /// The `E…` code, when the line carries one.
        code: Option<String>,
        /// The message after the prefix.
        message: String,
    },
}

/// Removes carriage returns: hdc ends its own messages with `\r\n`.
pub(crate) fn normalize(text: &str) -> String {
    text.replace('\r', "")
}

/// Classifies hdc-level failures in a reply (`stdout` and `stderr` already normalized).
pub fn hdc_failure(stdout: &str, stderr: &str) -> Option<HdcFailure> {
    if stderr.contains("Connect server failed") || stdout.starts_with("Connect server failed") {
        return Some(HdcFailure::ServerUnreachable);
    }
    // hdc's client refusing its own options prints on stdout and exits 0 before any
    // command runs (`main.cpp`, `GetCommandlineOptions`): the server was never asked.
    if let Some(refusal) = stdout.lines().map(str::trim).find(|line| {
        CLIENT_REFUSALS
            .iter()
            .any(|refusal| line.starts_with(refusal))
    }) {
        return Some(HdcFailure::Fail {
            code: None,
            message: format!("hdc refused its options: {refusal}"),
        });
    }
    let Some(captures) = FAIL.captures(stdout) else {
        return client_log_only(stdout).map(HdcFailure::ServerBroken);
    };
    let code = captures.get(1).map(|m| m.as_str().to_owned());
    let first = captures[2].trim();
    let lower = first.to_lowercase();
    // hdc's advice follows on lines of their own (an unauthorized device's three lines).
    let after = &stdout[captures.get(0).map_or(0, |m| m.end())..];
    let advice = after
        .strip_prefix('\n')
        .unwrap_or(after)
        .lines()
        .map(str::trim)
        .take_while(|line| !line.is_empty() && !line.starts_with('['))
        .collect::<Vec<_>>();
    let message = std::iter::once(first)
        .chain(advice)
        .collect::<Vec<_>>()
        .join(" ");
    // The code stays in the words: it is what hdc's documentation is searched by.
    let coded = match &code {
        Some(code) => format!("[{code}] {message}"),
        None => message.clone(),
    };
    if code.as_deref() == Some("E000003") || lower.contains("unauthorized") {
        return Some(HdcFailure::Unauthorized(coded));
    }
    if code.as_deref() == Some("E001005")
        || lower.contains("device not found")
        || lower.contains("not match target")
        || lower.contains("need connect-key")
        || lower.contains("no any connected target")
    {
        return Some(HdcFailure::DeviceNotFound(coded));
    }
    Some(HdcFailure::Fail { code, message })
}

/// The words of the client's log lines at warning level or above (`; `-joined), when its log
/// is all the reply holds (a working channel prints its answer, `[Empty]` included, beside any
/// log line).
fn client_log_only(stdout: &str) -> Option<String> {
    let mut said: Vec<String> = Vec::new();
    for line in stdout.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let logged = CLIENT_LOG.captures(line)?;
        if matches!(&logged[1], "W" | "E" | "F" | "A") {
            said.push(logged[2].trim().to_owned());
        }
    }
    (!said.is_empty()).then(|| said.join("; "))
}

/// Splits a shell reply at the sentinel: `(output before it, status)`, or `None` when the
/// sentinel never arrived (the command did not run to its end on the device).
pub fn split_sentinel(stdout: &str) -> Option<(String, i32)> {
    let at = stdout.rfind(SENTINEL)?;
    let status_text = stdout[at + SENTINEL.len()..]
        .lines()
        .next()
        .unwrap_or("")
        .trim();
    let status = status_text.parse().ok()?;
    Some((stdout[..at].to_owned(), status))
}

/// A device in `hdc list targets -v`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The connect key (USB serial or `IP:port`).
    pub serial: String,
    /// `USB`, `TCP`, `UART`, … (empty when the line has none).
    pub transport: String,
    /// `Connected`, `Offline`, `Unauthorized`, `Ready`, `Unknown`.
    pub status: String,
    /// The device name column, when present.
    pub(crate) name: Option<String>,
}

impl Target {
    /// Only a connected device can be driven.
    pub fn is_connected(&self) -> bool {
        self.status.eq_ignore_ascii_case("connected")
    }
}

const TRANSPORTS: [&str; 5] = ["USB", "TCP", "UART", "BT", "BLE"];
const STATUSES: [&str; 5] = ["Connected", "Offline", "Unauthorized", "Ready", "Unknown"];

/// Parses `hdc list targets -v` (both the 4-column and the `…\thdc` layout) and the plain
/// `list targets` form. `[Empty]` means no device.
pub fn parse_targets(stdout: &str) -> Vec<Target> {
    stdout
        .lines()
        .filter_map(|line| {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            let (&serial, rest) = tokens.split_first()?;
            // No connect key starts with `-`: such a line is hdc talking about its options.
            if serial.starts_with('[') || serial.starts_with('-') || serial == "$" {
                return None;
            }
            let transport_at = rest.iter().position(|t| TRANSPORTS.contains(t));
            let status_at = rest
                .iter()
                .position(|t| STATUSES.iter().any(|s| s.eq_ignore_ascii_case(t)));
            let status = status_at.map_or("Connected", |i| rest[i]);
            let name = status_at
                .and_then(|i| rest.get(i + 1))
                .filter(|n| **n != "hdc")
                .map(|n| (*n).to_owned());
            Some(Target {
                serial: serial.to_owned(),
                transport: transport_at.map_or("", |i| rest[i]).to_owned(),
                status: status.to_owned(),
                name,
            })
        })
        .collect()
}

/// Whether a `file send`/`file recv` reply reports success, with the byte size.
pub(crate) fn transfer_size(stdout: &str) -> Option<u64> {
    TRANSFER_OK.captures(stdout)?.get(1)?.as_str().parse().ok()
}

/// The outcome of `install`/`uninstall` (`operation`), judged by what the bundle manager said
/// (hdc exits 0 either way, and `AppMod finish` ends every reply): `Ok` only when a reply line
/// says `msg:<operation> bundle successfully` and no line carries a failure marker (`[Fail]`,
/// `error`, `failed`, `code:N`); else the error's code and text. `uninstall bundle
/// successfully` is not an install's success, nor the other way round.
pub(crate) fn app_result(stdout: &str, operation: &str) -> Result<(), (Option<String>, String)> {
    let success = format!("{operation} bundle successfully");
    // What the bundle manager said: after the last `msg:` of an `[Info]App …` line (the HAP's
    // path before it is the user's, and may hold any word); any other line as it is.
    let said: Vec<&str> = stdout
        .lines()
        .map(|line| line.rsplit_once("msg:").map_or(line, |(_, msg)| msg).trim())
        .filter(|text| !text.is_empty())
        .collect();
    let failure = said.iter().find(|text| {
        text.starts_with("[Fail]")
            || text.contains("error")
            || text.contains("failed")
            || INSTALL_CODE.is_match(text)
    });
    let succeeded = said.iter().any(|text| text.starts_with(&success));
    match failure {
        None if succeeded => Ok(()),
        _ => {
            let message = failure
                .or_else(|| said.first())
                .map_or("no reply", |text| text)
                .to_owned();
            let code = INSTALL_CODE.captures(&message).map(|c| c[1].to_owned());
            Err((code, message))
        }
    }
}

#[cfg(test)]
mod tests;
