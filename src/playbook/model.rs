//! A playbook as dwpipe runs it: each probe's sessions and their steps, and every playbook
//! loaded (the embedded ones, a folder overriding them by file name, a kept copy).

use std::time::Duration;

use crate::probe::Extractor;

/// How one probe is measured.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ProbePlaybook {
    /// Probe id.
    pub(crate) probe: String,
    /// The session gathering its evidence.
    pub(crate) session: String,
    /// The extractor reading it.
    pub(crate) extract: Extractor,
    /// Default number of runs.
    pub(crate) runs: u32,
    /// Largest tolerated spread between runs, as a fraction of the aggregate.
    pub(crate) tolerance: f64,
    /// How far two readings may differ and still be the same (in the probe's unit).
    pub(crate) resolution: f64,
}

/// One device step. Templates keep their `{placeholders}` until a run fills them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Run a command; it must exit 0. Its reply is kept as evidence under `save`, or its
    /// trimmed output becomes the placeholder `set` (digits only).
    Shell {
        /// The command template.
        template: String,
        /// Evidence file name for the reply.
        save: Option<String>,
        /// Placeholder to set from the reply.
        set: Option<String>,
        /// Its own call limit, for a command that outlasts the per-call one (a test suite):
        /// past it, the app is stopped on the device and the step fails.
        within: Option<Duration>,
    },
    /// Pull a device file into the evidence as `save`.
    Pull {
        /// The remote path template.
        template: String,
        /// Evidence file name.
        save: String,
    },
    /// Wait a fixed time: inside a traced window, where a poll would load the device being
    /// measured.
    Sleep(Duration),
    /// Poll until the app's window is focused and shown, for at most `within` (the fixed
    /// wait it replaced): the session goes on either way, and its evidence says which.
    Ready {
        /// The ceiling.
        within: Duration,
    },
    /// Capture the screen as PNG (`uitest screenCap`) into the evidence as `save`.
    Screenshot {
        /// Evidence file name.
        save: String,
    },
    /// Dump the layout of the screen (`uitest dumpLayout`) into the evidence as `save`.
    Dump {
        /// Evidence file name.
        save: String,
    },
}

/// A session: the steps of one evidence-gathering visit to the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Session {
    /// Its name.
    pub(crate) name: String,
    /// How it brings up the launch screen (`aa start` and a settle); a flow replaces these.
    pub(crate) start: Vec<Step>,
    /// What it gathers once the app shows the screen.
    pub(crate) steps: Vec<Step>,
    /// SHA-256 of its playbook file: a capture names the sessions it was recorded with by it.
    pub(crate) sha256: String,
}

impl Session {
    /// Its steps on the launch screen: the start, then what it gathers.
    pub(crate) fn standalone(&self) -> impl Iterator<Item = &Step> {
        self.start.iter().chain(&self.steps)
    }

    /// Whether it sends the app home on purpose (`uitest uiInput keyEvent Home`, the
    /// background sessions): its end is not held to the app having the focus.
    pub(crate) fn leaves_app(&self) -> bool {
        self.standalone().any(|step| match step {
            Step::Shell { template, .. } => template.contains("keyEvent Home"),
            _ => false,
        })
    }

    /// Its fixed wait inside a trace (a cold start's), if any: the window's ceiling.
    pub(crate) fn traced_wait(&self) -> Option<Duration> {
        let mut tracing = false;
        self.standalone().find_map(|step| match step {
            Step::Sleep(wait) if tracing => Some(*wait),
            other => {
                other.follow_trace(&mut tracing);
                None
            }
        })
    }
}

impl Step {
    /// Keeps `tracing` (whether a trace is being recorded) up to date past this step.
    pub(crate) fn follow_trace(&self, tracing: &mut bool) {
        if let Step::Shell { template, .. } = self {
            follow_trace(template, tracing);
        }
    }
}

/// How many samples a session's SmartPerf step asks for (`SP_daemon … -N 5`), when it has
/// one: SmartPerf may print fewer (stopped early, another SmartPerf started), and a reading
/// of fewer samples than asked is not the one the playbook describes.
pub(crate) fn smartperf_samples<'s>(steps: impl IntoIterator<Item = &'s Step>) -> Option<u32> {
    steps.into_iter().find_map(|step| match step {
        Step::Shell { template, .. } if template.contains("SP_daemon") => {
            let mut words = template.split_whitespace();
            words.by_ref().find(|w| *w == "-N")?;
            words.next()?.parse().ok()
        }
        _ => None,
    })
}

/// Keeps `tracing` up to date past a shell command: `hitrace … --trace_begin` starts a trace,
/// `--trace_finish` ends it.
pub(crate) fn follow_trace(template: &str, tracing: &mut bool) {
    if template.contains("--trace_begin") {
        *tracing = true;
    } else if template.contains("--trace_finish") {
        *tracing = false;
    }
}
