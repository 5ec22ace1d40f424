//! Playbooks: how each probe is measured on a device. A probe playbook names the session
//! that gathers its evidence, the extractor that reads it, the default number of runs, the
//! spread tolerated between runs and the resolution of a reading. A session is a list of
//! device steps (`shell`, `pull`, `sleep`, `screenshot`); probes that share a session share its evidence,
//! so one layout dump and one screenshot serve every layout and accessibility criterion of
//! a run.
//!
//! The playbooks in `playbooks/` are embedded in the binary; `--playbooks DIR` overrides any
//! of them by file name. Both are validated like a pack: unknown keys are errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::diagnostic::Diagnostic;
use crate::input::parse_duration;
use crate::input::parse_yaml;
use crate::pack::CATALOG;
use crate::probe::Extractor;
use crate::shell::{ShellCommand, ShellValue, UnsafeValue};

/// The embedded playbooks, by file name.
const EMBEDDED: &[(&str, &str)] = &[
    (
        "perf.cold-start.yaml",
        include_str!("../../playbooks/perf.cold-start.yaml"),
    ),
    (
        "perf.frames.yaml",
        include_str!("../../playbooks/perf.frames.yaml"),
    ),
    (
        "perf.memory.yaml",
        include_str!("../../playbooks/perf.memory.yaml"),
    ),
    (
        "layout.gap.yaml",
        include_str!("../../playbooks/layout.gap.yaml"),
    ),
    (
        "layout.size.yaml",
        include_str!("../../playbooks/layout.size.yaml"),
    ),
    (
        "layout.align.yaml",
        include_str!("../../playbooks/layout.align.yaml"),
    ),
    (
        "a11y.touch-target.yaml",
        include_str!("../../playbooks/a11y.touch-target.yaml"),
    ),
    (
        "a11y.contrast.yaml",
        include_str!("../../playbooks/a11y.contrast.yaml"),
    ),
    (
        "a11y.labels.yaml",
        include_str!("../../playbooks/a11y.labels.yaml"),
    ),
    (
        "test.hypium.yaml",
        include_str!("../../playbooks/test.hypium.yaml"),
    ),
    (
        "sessions/cold-start.yaml",
        include_str!("../../playbooks/sessions/cold-start.yaml"),
    ),
    (
        "sessions/scroll.yaml",
        include_str!("../../playbooks/sessions/scroll.yaml"),
    ),
    (
        "sessions/memory.yaml",
        include_str!("../../playbooks/sessions/memory.yaml"),
    ),
    (
        "sessions/ui.yaml",
        include_str!("../../playbooks/sessions/ui.yaml"),
    ),
    (
        "sessions/hypium.yaml",
        include_str!("../../playbooks/sessions/hypium.yaml"),
    ),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ProbeDoc {
    probe: String,
    session: String,
    extract: String,
    runs: u32,
    tolerance: String,
    resolution: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct SessionDoc {
    session: String,
    steps: Vec<StepDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct StepDoc {
    #[serde(default)]
    shell: Option<String>,
    #[serde(default)]
    pull: Option<String>,
    #[serde(default)]
    sleep: Option<String>,
    #[serde(default)]
    screenshot: Option<String>,
    #[serde(default)]
    save: Option<String>,
    #[serde(default)]
    set: Option<String>,
}

/// How one probe is measured.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbePlaybook {
    /// Probe id.
    pub probe: String,
    /// The session gathering its evidence.
    pub session: String,
    /// The extractor reading it.
    pub extract: Extractor,
    /// Default number of runs.
    pub runs: u32,
    /// Largest tolerated spread between runs, as a fraction of the aggregate.
    pub tolerance: f64,
    /// How far two readings may differ and still be the same (in the probe's unit).
    pub resolution: f64,
}

/// One device step. Templates keep their `{placeholders}` until a run fills them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Run a command; it must exit 0. Its reply is kept as evidence under `save`, or its
    /// trimmed output becomes the placeholder `set` (digits only).
    Shell {
        /// The command template.
        template: String,
        /// Evidence file name for the reply.
        save: Option<String>,
        /// Placeholder to set from the reply.
        set: Option<String>,
    },
    /// Pull a device file into the evidence as `save`.
    Pull {
        /// The remote path template.
        template: String,
        /// Evidence file name.
        save: String,
    },
    /// Wait.
    Sleep(Duration),
    /// Capture the screen as PNG (`uitest screenCap`) into the evidence as `save`.
    Screenshot {
        /// Evidence file name.
        save: String,
    },
}

/// A session: the steps of one evidence-gathering visit to the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// Its name.
    pub name: String,
    /// Its steps.
    pub steps: Vec<Step>,
}

/// Every playbook, validated.
#[derive(Clone, Debug)]
pub struct Playbooks {
    /// Probe playbooks by probe id.
    pub probes: BTreeMap<String, ProbePlaybook>,
    /// Sessions by name.
    pub sessions: BTreeMap<String, Session>,
}

/// The values a run substitutes into step templates.
#[derive(Clone, Debug, Default)]
pub struct Values(BTreeMap<String, ShellValue>);

impl Values {
    /// Sets a placeholder.
    pub fn set(&mut self, name: &str, value: ShellValue) {
        self.0.insert(name.to_owned(), value);
    }

    /// Fills a step template; every placeholder must have a validated value.
    pub fn command(&self, template: &str) -> Result<ShellCommand, UnsafeValue> {
        let values: Vec<(&str, &ShellValue)> =
            self.0.iter().map(|(k, v)| (k.as_str(), v)).collect();
        ShellCommand::render(template, &values)
    }

    /// Fills a remote-path template and validates the result as a remote path.
    pub fn remote_path(&self, template: &str) -> Result<ShellValue, UnsafeValue> {
        ShellValue::remote_path(self.command(template)?.as_str())
    }
}

fn is_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
        && !name.starts_with('.')
}

fn invalid(file: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error("E_PLAYBOOK_INVALID", format!("{file}: {}", message.into()))
        .fix("see the embedded playbooks in playbooks/ for the format")
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
                    *text = std::fs::read_to_string(&candidate).map_err(|e| {
                        invalid(name, format!("cannot read `{}`: {e}", candidate.display()))
                    })?;
                    *path = candidate;
                }
            }
        }
        let mut playbooks = Playbooks {
            probes: BTreeMap::new(),
            sessions: BTreeMap::new(),
        };
        for (name, path, text) in &texts {
            if name.starts_with("sessions/") {
                let doc: SessionDoc = parse_yaml(path, text)?;
                let session = session(name, doc)?;
                playbooks.sessions.insert(session.name.clone(), session);
            } else {
                let doc: ProbeDoc = parse_yaml(path, text)?;
                let probe = probe(name, doc)?;
                playbooks.probes.insert(probe.probe.clone(), probe);
            }
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

fn probe(file: &str, doc: ProbeDoc) -> Result<ProbePlaybook, Diagnostic> {
    if !CATALOG.iter().any(|k| k.id == doc.probe) {
        return Err(invalid(file, format!("unknown probe `{}`", doc.probe)));
    }
    let extract = Extractor::parse(&doc.extract).ok_or_else(|| {
        invalid(
            file,
            format!(
                "unknown extractor `{}` (known: {})",
                doc.extract,
                Extractor::WORDS.join(", ")
            ),
        )
    })?;
    if doc.runs == 0 || doc.runs > 100 {
        return Err(invalid(file, "runs must be between 1 and 100"));
    }
    let tolerance = doc
        .tolerance
        .strip_suffix('%')
        .and_then(|t| t.trim().parse::<f64>().ok())
        .filter(|t| t.is_finite() && *t >= 0.0)
        .ok_or_else(|| {
            invalid(
                file,
                format!("tolerance `{}` is not a percentage like 20%", doc.tolerance),
            )
        })?;
    if !(doc.resolution.is_finite() && doc.resolution >= 0.0) {
        return Err(invalid(file, "resolution must be a non-negative number"));
    }
    Ok(ProbePlaybook {
        probe: doc.probe,
        session: doc.session,
        extract,
        runs: doc.runs,
        tolerance: tolerance / 100.0,
        resolution: doc.resolution,
    })
}

fn session(file: &str, doc: SessionDoc) -> Result<Session, Diagnostic> {
    let mut steps = Vec::with_capacity(doc.steps.len());
    let mut saved: Vec<String> = Vec::new();
    for (i, step) in doc.steps.into_iter().enumerate() {
        let at = |message: String| invalid(file, format!("step {}: {message}", i + 1));
        if let Some(name) = step.save.as_ref().filter(|n| !is_file_name(n)) {
            return Err(at(format!("`save: {name}` is not a plain file name")));
        }
        if let Some(name) = &step.save {
            if saved.contains(name) {
                return Err(at(format!("`save: {name}` is used twice")));
            }
            saved.push(name.clone());
        }
        // Templates are checked now with stand-in values, so a bad template fails at load.
        let check = |template: &str| {
            let placeholders = ["bundle", "ability", "module", "run", "pid"];
            let sample = ShellValue::number("sample", "1").expect("digits");
            let values: Vec<(&str, &ShellValue)> =
                placeholders.iter().map(|p| (*p, &sample)).collect();
            ShellCommand::render(template, &values).map_err(|e| at(e.to_string()))
        };
        if let Some(save) = step.screenshot {
            if step.shell.is_some()
                || step.pull.is_some()
                || step.sleep.is_some()
                || step.save.is_some()
                || step.set.is_some()
            {
                return Err(at(
                    "a step is exactly one of shell, pull, sleep or screenshot".to_owned(),
                ));
            }
            if !is_file_name(&save) || saved.contains(&save) {
                return Err(at(format!(
                    "`screenshot: {save}` is not a new plain file name"
                )));
            }
            saved.push(save.clone());
            steps.push(Step::Screenshot { save });
            continue;
        }
        let parsed = match (step.shell, step.pull, step.sleep) {
            (Some(template), None, None) => {
                check(&template)?;
                if let Some(set) = step.set.as_ref().filter(|s| s.as_str() != "pid") {
                    return Err(at(format!("`set: {set}`: only `pid` can be set")));
                }
                Step::Shell {
                    template,
                    save: step.save,
                    set: step.set,
                }
            }
            (None, Some(template), None) => {
                check(&template)?;
                let save = step
                    .save
                    .ok_or_else(|| at("a pull needs `save`".to_owned()))?;
                if step.set.is_some() {
                    return Err(at("`set` belongs to shell steps".to_owned()));
                }
                Step::Pull { template, save }
            }
            (None, None, Some(duration)) if step.save.is_none() && step.set.is_none() => {
                Step::Sleep(parse_duration(&duration).map_err(at)?)
            }
            _ => {
                return Err(at(
                    "a step is exactly one of shell, pull or sleep".to_owned()
                ));
            }
        };
        steps.push(parsed);
    }
    Ok(Session {
        name: doc.session,
        steps,
    })
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
                .any(|s| matches!(s, Step::Screenshot { save } if save == "screen.png"))
        );
        let users: Vec<&str> = playbooks
            .probes
            .values()
            .filter(|p| p.session == "ui")
            .map(|p| p.probe.as_str())
            .collect();
        assert_eq!(
            users.len(),
            6,
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
