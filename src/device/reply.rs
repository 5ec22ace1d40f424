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
mod tests {
    use super::*;

    #[test]
    fn failures_are_read_from_text() {
        let rows: Vec<(&str, &str, Option<HdcFailure>)> = vec![
            (
                "[Fail][E001005] Device not found or connected\n",
                "",
                Some(HdcFailure::DeviceNotFound(
                    "[E001005] Device not found or connected".into(),
                )),
            ),
            (
                "[Fail]Not match target founded, check connect-key please\n",
                "",
                Some(HdcFailure::DeviceNotFound(
                    "Not match target founded, check connect-key please".into(),
                )),
            ),
            (
                "[Fail]Device not founded or connected.\n",
                "",
                Some(HdcFailure::DeviceNotFound(
                    "Device not founded or connected.".into(),
                )),
            ),
            (
                "[Fail][E005005] Error create directory: x, path:/y\n",
                "",
                Some(HdcFailure::Fail {
                    code: Some("E005005".into()),
                    message: "Error create directory: x, path:/y".into(),
                }),
            ),
            (
                "",
                "Connect server failed\n",
                Some(HdcFailure::ServerUnreachable),
            ),
            ("12 \n", "", None),
            ("log line mentioning [Fail] mid-line\n", "", None),
            // As OpenHarmony's real client printed them (tests/it/real_hdc), `\r` removed:
            // an unauthorized device, with hdc's advice on the lines after its code…
            (
                "[Fail][E000003]:The device unauthorized.\nThe user denied the access for the device.\nPlease execute 'hdc kill' and redo your command,\nthen check for a confirmation dialog on your device.\n",
                "",
                Some(HdcFailure::Unauthorized(
                    "[E000003] The device unauthorized. The user denied the access for the device. Please execute 'hdc kill' and redo your command, then check for a confirmation dialog on your device.".into(),
                )),
            ),
            // …a channel still being established…
            (
                "[Fail][E000004]:The communication channel is being established. Please wait for several seconds and try again.\n",
                "",
                Some(HdcFailure::Fail {
                    code: Some("E000004".into()),
                    message: "The communication channel is being established. Please wait for several seconds and try again.".into(),
                }),
            ),
            // …the client's own log when what answered is not an hdc server (its hello one
            // byte long), and that log beside a working answer.
            (
                "[W][2026-12-04 13:26:26] PreHandshake buf too short, bytesIO:1 need:44\n[W][2026-12-04 13:26:26] ReadStream childRet:-10000 channelId:3006643192 keepAlive:0\n",
                "",
                Some(HdcFailure::ServerBroken(
                    "PreHandshake buf too short, bytesIO:1 need:44; ReadStream childRet:-10000 channelId:3006643192 keepAlive:0".into(),
                )),
            ),
            (
                "[I][2024-05-28 20:15:45.120] HdcFile::TransferSummary success\nFileTransfer finish, Size:6, File count = 1, time:6ms rate:1.00kB/s\n",
                "",
                None,
            ),
            ("[Empty]\thdc\n", "", None),
        ];
        for (stdout, stderr, expected) in rows {
            assert_eq!(hdc_failure(stdout, stderr), expected, "{stdout:?}");
        }
    }

    #[test]
    fn the_sentinel_carries_the_device_status() {
        assert_eq!(
            split_sentinel("ALN-AL00 \n__DWPIPE_RC=0\n"),
            Some(("ALN-AL00 \n".into(), 0))
        );
        assert_eq!(
            split_sentinel("no newline__DWPIPE_RC=127\n"),
            Some(("no newline".into(), 127))
        );
        assert_eq!(
            split_sentinel("[Fail][E001005] Device not found or connected\n"),
            None
        );
        assert_eq!(split_sentinel("__DWPIPE_RC=\n"), None);
        assert_eq!(normalize("a\r\nb\r\n"), "a\nb\n");
    }

    #[test]
    fn targets_in_every_known_layout() {
        let old = "127.0.0.1:5555\t\t  TCP\t  Connected\t  localhost\nFMR0223C13000649\t\tUSB\t  Connected\t  unknown...\n";
        let targets = parse_targets(old);
        assert_eq!(targets.len(), 2);
        assert_eq!(targets[1].serial, "FMR0223C13000649");
        assert_eq!(targets[1].transport, "USB");
        assert!(targets[1].is_connected());
        let current = "connect-key1\t\tUSB\tConnected\tlocalhost\thdc\n127.0.0.1:5555\t\tTCP\tOffline\tlocalhost\thdc\n";
        let targets = parse_targets(current);
        assert_eq!(targets[1].status, "Offline");
        assert_eq!(targets[0].name.as_deref(), Some("localhost"));
        assert!(parse_targets("[Empty]\r\thdc\n").is_empty());
        assert!(parse_targets("[Empty]\n").is_empty());
        let plain = parse_targets("127.0.0.1:5555\nFMR0223C13000649\n");
        assert_eq!(plain.len(), 2);
        assert!(plain[0].is_connected());
    }

    #[test]
    fn transfers_by_their_sentence() {
        assert_eq!(
            transfer_size(
                "[I][2024-05-28 20:15:45] HdcFile::TransferSummary success\nFileTransfer finish, Size:71792, File count = 1, time:12ms rate:5982.67kB/s\n"
            ),
            Some(71792)
        );
        assert_eq!(
            transfer_size("[Fail]Error opening file: no such file or directory, path:/x\n"),
            None
        );
    }

    /// Install and uninstall replies as the bundle manager words them (docs, awesomehdc and a
    /// FAQ capture), and the shapes that are not a success whatever else they say.
    #[test]
    fn installs_are_judged_by_what_the_bundle_manager_said() {
        let ok = "[Info]App install path:/a.hap, queuesize:0, msg:install bundle successfully.\nAppMod finish\n";
        let ok_old = "[Info]App install path:D:\\example.hap msg:install bundle successfully.\nAppMod finish\n";
        let removed = "[Info]App uninstall path:, queuesize:0, msg:uninstall bundle successfully.\nAppMod finish\n";
        let downgrade = "[Info]App install path:xxx.hap, queuesize:0, msg:error: failed to install bundle. code:9568263 error: install version downgrade.\nAppMod finish\n";
        let both = "[Fail] install error\n[Info]App install path:/a.hap, queuesize:0, msg:install bundle successfully.\nAppMod finish\n";
        let after = "[Info]App install path:/a.hap, queuesize:0, msg:install bundle successfully.\nerror: failed to install bundle. code:9568329\nAppMod finish\n";
        let odd_path = "[Info]App install path:/home/error/failed.hap, queuesize:0, msg:install bundle successfully.\nAppMod finish\n";
        // The real client's 3.2.0f form: no `queuesize`, the bundle manager's newlines blanks.
        let real = "[Info]App install path:/work/haps/notes-1.0.hap msg:install bundle successfully. \nAppMod finish\n";
        let real_refused = "[Info]App install path:/work/haps/notes-1.0.hap msg:error: failed to install bundle. code:9568263 error: install version downgrade. \nAppMod finish\n";
        // (reply, operation, Ok or the failure's code)
        type Row<'a> = (&'a str, &'a str, Result<(), Option<&'a str>>);
        let rows: [Row<'_>; 11] = [
            (real, "install", Ok(())),
            (real_refused, "install", Err(Some("9568263"))),
            (ok, "install", Ok(())),
            (ok_old, "install", Ok(())),
            (removed, "uninstall", Ok(())),
            (odd_path, "install", Ok(())),
            (removed, "install", Err(None)),
            (ok, "uninstall", Err(None)),
            (downgrade, "install", Err(Some("9568263"))),
            (both, "install", Err(None)),
            (after, "install", Err(Some("9568329"))),
        ];
        for (reply, operation, expected) in rows {
            let judged = app_result(reply, operation).map_err(|(code, _)| code);
            assert_eq!(
                judged,
                expected.map_err(|c| c.map(str::to_owned)),
                "{operation}: {reply:?}"
            );
        }
        assert_eq!(app_result("", "install").unwrap_err().1, "no reply");
    }
}
