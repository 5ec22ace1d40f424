//! dwpipe's answers to an agent that asks (over ACP): a tool may act inside the workspace —
//! read, edit, delete, move, search — and nowhere else; a request that names no place, runs
//! commands or fetches from the network is denied, since dwpipe cannot tell where it acts.
//! What the agent's own configuration allows without asking never reaches dwpipe: this
//! policy decides only what the agent leaves to its client. Every answer is recorded.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

/// The tool kinds (ACP's `ToolKind`) allowed when every place they name is in the workspace.
const PLACED: [&str; 5] = ["read", "edit", "delete", "move", "search"];

/// The workspace, resolved once: symbolic links in it and in the paths asked about are
/// followed, so a link out of the workspace is outside.
#[derive(Clone, Debug, Default)]
pub(super) struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// The workspace at `path`.
    pub(super) fn new(path: &Path) -> Workspace {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
        Workspace {
            root: absolute.canonicalize().unwrap_or(absolute),
        }
    }

    /// Where `path` (absolute, or relative to the workspace) really is, if it can be told:
    /// walked one part at a time on the file system, as the kernel walks it — a link is
    /// followed where it stands, so `link/..` is the parent of the link's target, never the
    /// folder the link is in. The parts that do not exist yet (an edit that creates a file)
    /// are taken by name; a link that leads nowhere cannot be told.
    pub(super) fn resolve(&self, path: &str) -> Option<PathBuf> {
        if path.is_empty() || path.contains('\0') {
            return None;
        }
        // Walked from the path's own root: `/`, or on Windows its drive or share and `\`.
        let mut real = PathBuf::new();
        // The parts past the deepest one that exists: none of them is a link.
        let mut missing: Vec<std::ffi::OsString> = Vec::new();
        for part in self.root.join(path).components() {
            match part {
                Component::RootDir | Component::Prefix(_) => real.push(part.as_os_str()),
                Component::CurDir => {}
                Component::ParentDir => {
                    if missing.pop().is_none() {
                        real.pop();
                    }
                }
                Component::Normal(name) if missing.is_empty() => {
                    let next = real.join(name);
                    match std::fs::symlink_metadata(&next) {
                        Ok(_) => real = next.canonicalize().ok()?,
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                            missing.push(name.to_owned());
                        }
                        Err(_) => return None,
                    }
                }
                Component::Normal(name) => missing.push(name.to_owned()),
            }
        }
        real.extend(missing);
        Some(real)
    }

    /// Whether `path` is in the workspace.
    pub(super) fn contains(&self, path: &str) -> bool {
        self.resolve(path)
            .is_some_and(|real| real.starts_with(&self.root))
    }
}

/// dwpipe's answer to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Decision {
    /// Granted.
    Allow,
    /// Refused, and why.
    Deny(String),
}

/// The answer to a tool of `kind` that would act on `paths`.
pub(super) fn decide(workspace: &Workspace, kind: &str, paths: &[String]) -> Decision {
    if let Some(outside) = paths.iter().find(|path| !workspace.contains(path)) {
        return Decision::Deny(format!("{outside} is outside the workspace"));
    }
    if !PLACED.contains(&kind) {
        return Decision::Deny(format!(
            "a tool of kind `{kind}` is not one dwpipe grants (it grants read, edit, delete, move and search inside the workspace)"
        ));
    }
    if paths.is_empty() {
        return Decision::Deny("the request names no file: where it acts cannot be told".into());
    }
    Decision::Allow
}

/// One answer dwpipe gave the agent, as `agent-<n>.answers.jsonl` records it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct Answer {
    /// The agent's request (`session/request_permission`, `fs/write_text_file`, …).
    pub(super) method: String,
    /// The session it named.
    pub(super) session: Option<String>,
    /// Whether dwpipe opened that session (a subagent's is not).
    pub(super) own_session: bool,
    /// The tool's title and kind, for a permission.
    pub(super) tool: Option<String>,
    pub(super) kind: Option<String>,
    /// The places it named.
    pub(super) paths: Vec<String>,
    /// `allowed`, `denied`, or `unsupported` (a method dwpipe does not serve).
    pub(super) answer: &'static str,
    /// The option chosen, for a permission.
    pub(super) option: Option<String>,
    /// Why, when not allowed.
    pub(super) why: Option<String>,
}

// Its one test makes Unix symbolic links and file names.
#[cfg(all(test, unix))]
mod tests;
