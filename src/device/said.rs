//! What the device's own tools said, judged by their words. `aa` exits 0 whatever happens,
//! `hitrace --trace_finish -o` exits 0 having written nothing, uitest prints its refusal of a
//! coordinate with status 0: a device tool's exit status is never enough. Each tool dwpipe
//! sends a command to has one row here: the line that says it worked (when it prints one)
//! and the texts that say it did not, as its printer writes them
//! (`research/device-tools.md` names each source).

use std::fmt;

use super::ShellReply;
use crate::text::one_line;

/// How much of a line a refusal quotes.
const SAID: usize = 200;

/// How a failure text is found in a reply.
#[derive(Clone, Copy, Debug)]
enum Marker {
    /// A line that starts with it (after leading blanks).
    LineStarts(&'static str),
    /// Anywhere in a line.
    Within(&'static str),
}

/// One tool's row: how its commands start, the line that says it worked, and the texts that
/// say it did not.
struct Texts {
    starts: &'static str,
    success: Option<&'static str>,
    failures: &'static [Marker],
    /// Whether its exit status says anything: not where its reader judges every word of the
    /// reply (the CPU's reads: `cat` exits 1 on the `/proc/stat` a 4.1 phone refuses, and its
    /// reader quotes the refusal and still reads the share of one core).
    status: bool,
}

use Marker::{LineStarts, Within};

/// Every tool's texts. aa: `ability_runtime/tools/aa` (`STRING_START_ABILITY_OK/NG`,
/// `STRING_FORCE_STOP_OK/NG`, `main.cpp` exits 0 after printing); hitrace:
/// `hitrace_cmd.cpp` `ConsoleLog("error: …")`; uitest: `ui_input.cpp`, `server_main.cpp`;
/// hidumper: `sa_dumper.cpp`, the dumpers' refusals, `memory_info.cpp`.
const TABLE: &[Texts] = &[
    Texts {
        starts: "aa start ",
        success: Some("start ability successfully."),
        failures: &[LineStarts("error:")],
        status: true,
    },
    Texts {
        starts: "aa force-stop ",
        success: Some("force stop process successfully."),
        failures: &[LineStarts("error:")],
        status: true,
    },
    Texts {
        starts: "aa test ",
        success: None,
        failures: &[],
        status: true,
    },
    Texts {
        starts: "hitrace ",
        success: None,
        failures: &[LineStarts("error:")],
        status: true,
    },
    Texts {
        starts: "uitest uiInput ",
        success: None,
        failures: &[
            Within("Please confirm that the coordinate"),
            Within("The number of parameters is incorrect"),
            Within("Invalid display id"),
            LineStarts("Illegal argument"),
        ],
        status: true,
    },
    Texts {
        starts: "uitest screenCap ",
        success: None,
        failures: &[
            LineStarts("ScreenCap failed"),
            LineStarts("Illegal argument"),
        ],
        status: true,
    },
    Texts {
        starts: "uitest dumpLayout ",
        success: None,
        failures: &[
            LineStarts("DumpLayout failed"),
            LineStarts("Illegal argument"),
        ],
        status: true,
    },
    Texts {
        starts: "hidumper ",
        success: None,
        failures: &[
            Within("The arguments are illegal"),
            LineStarts("hidumper: No such process"),
            LineStarts("hidumper: option pid missed"),
        ],
        status: true,
    },
    Texts {
        starts: "cat /proc/self/stat /proc/",
        success: None,
        failures: &[],
        status: false,
    },
];

/// The row of the tool `command` starts with (`aa test` has one with no texts: its report is
/// judged whole by the hypium parser).
fn row(command: &str) -> Option<&'static Texts> {
    TABLE.iter().find(|t| command.starts_with(t.starts))
}

/// Why a reply is not the tool's success.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A non-zero exit status.
    Status {
        /// The status.
        status: i32,
        /// The reply's first line, bounded.
        first_line: String,
    },
    /// A line the tool prints when it failed.
    Said {
        /// That line, bounded.
        line: String,
    },
    /// The tool did not print its success line.
    NoSuccess {
        /// The line it prints when it worked.
        expected: &'static str,
        /// What it printed first instead, bounded.
        first_line: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Status { status, first_line } if first_line.is_empty() => {
                write!(f, "exited {status}")
            }
            Refusal::Status { status, first_line } => write!(f, "exited {status}: {first_line}"),
            Refusal::Said { line } => write!(f, "said `{line}`"),
            Refusal::NoSuccess {
                expected,
                first_line,
            } if first_line.is_empty() => {
                write!(f, "printed nothing, not `{expected}`")
            }
            Refusal::NoSuccess {
                expected,
                first_line,
            } => write!(f, "said `{first_line}`, not `{expected}`"),
        }
    }
}

/// Judges what `command` answered: its status, then the tool's failure texts (any line), then
/// the tool's success line when it prints one.
pub fn judge(command: &str, reply: &ShellReply) -> Result<(), Refusal> {
    let first_line = || {
        one_line(
            reply
                .output
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim(),
            SAID,
        )
        .into_owned()
    };
    let texts = row(command);
    if let Some(texts) = texts {
        for line in reply.output.lines() {
            let trimmed = line.trim();
            let failed = texts.failures.iter().any(|m| match m {
                LineStarts(s) => trimmed.starts_with(s),
                Within(s) => trimmed.contains(s),
            });
            if failed {
                return Err(Refusal::Said {
                    line: one_line(trimmed, SAID).into_owned(),
                });
            }
        }
    }
    if reply.status != 0 && texts.is_none_or(|t| t.status) {
        return Err(Refusal::Status {
            status: reply.status,
            first_line: first_line(),
        });
    }
    match texts.and_then(|t| t.success) {
        Some(expected) if !reply.output.lines().any(|l| l.trim() == expected) => {
            Err(Refusal::NoSuccess {
                expected,
                first_line: first_line(),
            })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
