//! Playbooks: how each probe is measured on a device. A probe playbook names the session
//! that gathers its evidence, the extractor that reads it, the default number of runs, the
//! spread tolerated between runs and the resolution of a reading. A session is a list of
//! device steps (`shell`, `pull`, `sleep`, `ready`, `screenshot`); probes that share a session share its evidence,
//! so one layout dump and one screenshot serve every layout and accessibility criterion of
//! a run.
//!
//! The playbooks in `playbooks/` are embedded in the binary; `--playbooks DIR` overrides any
//! of them by file name. Both are validated like a pack: unknown keys are errors.

mod embedded;
mod parse;
mod values;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diagnostic::Diagnostic;
use crate::input::{parse_yaml, read_text};

/// Largest playbook file (the shipped ones are a few hundred bytes).
const MAX_PLAYBOOK_BYTES: u64 = 1024 * 1024;
use crate::pack::CATALOG;
use crate::probe::Extractor;

use embedded::EMBEDDED;
use parse::{ProbeDoc, SessionDoc, invalid, probe, session};

pub(crate) use parse::{FAILED_STEP, READY};

pub(crate) use values::Values;

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

/// Keeps `tracing` up to date past a shell command: `hitrace … --trace_begin` starts a trace,
/// `--trace_finish` ends it.
pub(crate) fn follow_trace(template: &str, tracing: &mut bool) {
    if template.contains("--trace_begin") {
        *tracing = true;
    } else if template.contains("--trace_finish") {
        *tracing = false;
    }
}

/// Every playbook, validated.
#[derive(Clone, Debug)]
pub struct Playbooks {
    /// Probe playbooks by probe id.
    pub(crate) probes: BTreeMap<String, ProbePlaybook>,
    /// Sessions by name.
    pub(crate) sessions: BTreeMap<String, Session>,
    /// Every file's text by file name (`perf.frames.yaml`, `sessions/ui.yaml`), as loaded: an
    /// audit keeps them as evidence of how it measured.
    pub(crate) files: Vec<(String, String)>,
}

impl Playbooks {
    /// The embedded playbooks, with files of `overrides` (if given) taking their place.
    pub fn load(overrides: Option<&Path>) -> Result<Playbooks, Diagnostic> {
        let mut texts: Vec<(String, PathBuf, String)> = EMBEDDED
            .iter()
            .map(|(name, text)| {
                (
                    (*name).to_owned(),
                    PathBuf::from("playbooks").join(name),
                    (*text).to_owned(),
                )
            })
            .collect();
        if let Some(dir) = overrides {
            for (name, path, text) in &mut texts {
                let candidate = dir.join(name.as_str());
                if candidate.is_file() {
                    *text = read_text(&candidate, MAX_PLAYBOOK_BYTES, "a playbook")
                        .map_err(|e| invalid(name, crate::diagnostic::chain(&e)))?;
                    *path = candidate;
                }
            }
        }
        Playbooks::from_texts(texts)
    }

    /// The playbooks an audit kept in `dir` (the files the embedded set has, and only those),
    /// as `verify-evidence` reads them back. A file the audit never kept is a probe added
    /// after it: its embedded text stands in (no criterion of the audit's lock can use it,
    /// and a kept file that went missing still shows, as the audit's own list of kept files
    /// is held against the folder).
    pub(crate) fn load_kept(dir: &Path) -> Result<Playbooks, Diagnostic> {
        let texts = EMBEDDED
            .iter()
            .map(|(name, embedded)| {
                let path = dir.join(name);
                if !path.exists() {
                    return Ok((
                        (*name).to_owned(),
                        PathBuf::from("playbooks").join(name),
                        (*embedded).to_owned(),
                    ));
                }
                let text = read_text(&path, MAX_PLAYBOOK_BYTES, "a playbook")
                    .map_err(|e| invalid(name, crate::diagnostic::chain(&e)))?;
                Ok(((*name).to_owned(), path, text))
            })
            .collect::<Result<_, Diagnostic>>()?;
        Playbooks::from_texts(texts)
    }

    /// Validates playbook files given as (file name, path for messages, text).
    fn from_texts(texts: Vec<(String, PathBuf, String)>) -> Result<Playbooks, Diagnostic> {
        let mut playbooks = Playbooks {
            probes: BTreeMap::new(),
            sessions: BTreeMap::new(),
            files: Vec::new(),
        };
        for (name, path, text) in texts {
            if name.starts_with("sessions/") {
                let doc: SessionDoc = parse_yaml(&path, &text)?;
                let mut session = session(&name, doc)?;
                session.sha256 = crate::hash::sha256_hex(text.as_bytes());
                playbooks.sessions.insert(session.name.clone(), session);
            } else {
                let doc: ProbeDoc = parse_yaml(&path, &text)?;
                let probe = probe(&name, doc)?;
                playbooks.probes.insert(probe.probe.clone(), probe);
            }
            playbooks.files.push((name, text));
        }
        for kind in CATALOG {
            let probe = playbooks
                .probes
                .get(kind.id)
                .ok_or_else(|| invalid(kind.id, "the probe has no playbook"))?;
            if !playbooks.sessions.contains_key(&probe.session) {
                return Err(invalid(
                    kind.id,
                    format!("session `{}` does not exist", probe.session),
                ));
            }
        }
        Ok(playbooks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_playbooks_cover_the_catalog() {
        let playbooks = Playbooks::load(None).unwrap();
        assert_eq!(playbooks.probes.len(), CATALOG.len());
        assert_eq!(playbooks.probes["perf.cold-start"].runs, 3);
        assert_eq!(playbooks.probes["perf.cold-start"].tolerance, 0.25);
        let ui = &playbooks.sessions["ui"];
        assert!(
            ui.steps
                .iter()
                .any(|s| matches!(s, Step::Screenshot { save } if save == crate::probe::Evidence::Screen.as_str()))
        );
        // A dump the engine knows as one: after a flow, the flow's own may serve.
        assert!(ui.steps.iter().any(
            |s| matches!(s, Step::Dump { save } if save == crate::probe::Evidence::Layout.as_str())
        ));
        let users: Vec<&str> = playbooks
            .probes
            .values()
            .filter(|p| p.session == "ui")
            .map(|p| p.probe.as_str())
            .collect();
        assert_eq!(
            users.len(),
            7,
            "one ui session serves layout and accessibility probes: {users:?}"
        );
    }

    #[test]
    fn overrides_are_validated_like_packs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("perf.memory.yaml"), "probe: perf.memory\nsession: memory\nextract: memory\nruns: 5\ntolerance: 10%\nresolution: 1\n").unwrap();
        assert_eq!(
            Playbooks::load(Some(dir.path())).unwrap().probes["perf.memory"].runs,
            5
        );
        let rows = [
            (
                "perf.memory.yaml",
                "probe: perf.memory\nsession: memory\nextract: memory\nruns: 5\ntolerance: 10%\nresolution: 1\nretries: 2\n",
                "retries",
            ),
            (
                "perf.memory.yaml",
                "probe: perf.memory\nsession: nowhere\nextract: memory\nruns: 1\ntolerance: 10%\nresolution: 1\n",
                "does not exist",
            ),
            (
                "perf.memory.yaml",
                "probe: perf.memory\nsession: memory\nextract: guess\nruns: 1\ntolerance: 10%\nresolution: 1\n",
                "unknown extractor",
            ),
            (
                "perf.memory.yaml",
                "probe: perf.memory\nsession: memory\nextract: memory\nruns: 1\ntolerance: ten\nresolution: 1\n",
                "percentage",
            ),
            (
                "sessions/memory.yaml",
                "session: memory\nsteps:\n  - shell: rm -rf \"/\"\n",
                "double quotes",
            ),
            (
                "sessions/memory.yaml",
                "session: memory\nsteps:\n  - shell: echo {secret}\n",
                "placeholder",
            ),
            (
                "sessions/memory.yaml",
                "session: memory\nsteps:\n  - pull: /data/local/tmp/x\n",
                "needs `save`",
            ),
            (
                "sessions/memory.yaml",
                "session: memory\nsteps:\n  - shell: ls\n    save: ../x\n",
                "plain file name",
            ),
            (
                "sessions/memory.yaml",
                "session: memory\nsteps:\n  - shell: ls\n    sleep: 1s\n",
                "exactly one",
            ),
            (
                "sessions/ui.yaml",
                "session: ui\nsteps:\n  - dump: layout.json\n    screenshot: screen.png\n",
                "exactly one of shell, pull, sleep, ready, screenshot or dump",
            ),
            (
                "sessions/ui.yaml",
                "session: ui\nsteps:\n  - dump: layout.json\n  - screenshot: layout.json\n",
                "`screenshot: layout.json` is not a new plain file name",
            ),
            (
                "sessions/ui.yaml",
                "session: ui\nsteps:\n  - dump: ../layout.json\n",
                "`dump: ../layout.json` is not a new plain file name",
            ),
            (
                "sessions/memory.yaml",
                "session: memory\nsteps:\n  - ready: window\n",
                "needs `within`",
            ),
            (
                "sessions/memory.yaml",
                "session: memory\nsteps:\n  - ready: file\n    within: 1s\n",
                "can say `window`",
            ),
            (
                "sessions/memory.yaml",
                "session: memory\nsteps:\n  - ready: window\n    within: 2m\n",
                "at most 60 s",
            ),
            (
                "sessions/memory.yaml",
                "session: memory\nsteps:\n  - pull: /data/local/tmp/x\n    save: x\n    within: 1s\n",
                "belongs to `ready` and `shell` steps",
            ),
            (
                "sessions/hypium.yaml",
                "session: hypium\nsteps:\n  - shell: aa test -b {bundle} -m {module}_test -s timeout 60000\n    within: 30s\n",
                "shorter than the suite's own per-case limit (60000 ms)",
            ),
            (
                "sessions/cold-start.yaml",
                "session: cold-start\nsteps:\n  - shell: hitrace -b 65536 app --trace_begin\n  - shell: aa start -b {bundle} -a {ability}\n  - ready: window\n    within: 3s\n  - shell: hitrace --trace_finish -o /data/local/tmp/x.ftrace\n",
                "inside a traced window",
            ),
        ];
        for (name, text, expected) in rows {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
            std::fs::write(dir.path().join(name), text).unwrap();
            let error = Playbooks::load(Some(dir.path())).unwrap_err().to_string();
            assert!(error.contains(expected), "{name}: {error}");
        }
    }
}
