//! What a delivery knows of the build it audits, for the history: the app's `versionName`
//! (from `AppScope/app.json5`) and the workspace's commit (read from `.git`, no git needed).
//! Either is left out when it cannot be read: the history records what is known.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::{Recorder, Store};

static VERSION_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"["']?versionName["']?\s*:\s*["']([^"'\n]{1,64})["']"#).expect("a valid pattern")
});

/// A recorder into `store` with what `workspace` says of its build.
pub(crate) fn build_facts(workspace: &Path, store: Store) -> Recorder {
    Recorder {
        store,
        app_version: version_name(workspace),
        commit: commit(workspace),
    }
}

fn version_name(workspace: &Path) -> Option<String> {
    let text = std::fs::read_to_string(workspace.join("AppScope/app.json5")).ok()?;
    Some(VERSION_NAME.captures(&text)?[1].to_owned())
}

/// HEAD's commit: detached, a loose ref, or a packed one.
fn commit(workspace: &Path) -> Option<String> {
    let git = workspace.join(".git");
    let head = std::fs::read_to_string(git.join("HEAD")).ok()?;
    let head = head.trim();
    let sha = match head.strip_prefix("ref: ") {
        None => head.to_owned(),
        Some(name) => match std::fs::read_to_string(git.join(name)) {
            Ok(sha) => sha.trim().to_owned(),
            Err(_) => std::fs::read_to_string(git.join("packed-refs"))
                .ok()?
                .lines()
                .find_map(|l| l.strip_suffix(name)?.strip_suffix(' ').map(str::to_owned))?,
        },
    };
    (sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())).then_some(sha)
}

#[cfg(test)]
mod tests;
