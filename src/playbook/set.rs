//! Every playbook dwpipe measures with: the embedded ones, a folder overriding them by file
//! name, or the copy an audit kept as evidence; each validated like a pack.

use super::embedded::EMBEDDED;
use super::model::{ProbePlaybook, Session};
use super::parse::{ProbeDoc, SessionDoc, invalid, probe, session};
use crate::diagnostic::Diagnostic;
use crate::input::{parse_yaml, read_text};
use crate::pack::CATALOG;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Largest playbook file (the shipped ones are a few hundred bytes).
pub(super) const MAX_PLAYBOOK_BYTES: u64 = 1024 * 1024;

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
