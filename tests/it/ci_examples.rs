//! The example CI pipelines in `docs/ci/` work as shipped: each parses as YAML, every `dwpipe …`
//! line of their steps names a command and options this dwpipe has (checked against that
//! command's `--help`), and the nightly lab of each CI runs here, two nights in a row, every
//! job's steps in order against a fake-hdc lab of two hosts (one device failing), the
//! artifacts and the history's cache passed as the CI passes them.

use std::fs;
use std::path::Path;

use crate::support::ci::{Ci, JobRun};
use crate::support::{dwpipe, fake_hdc, no_sleeps};
use serde_json::Value;

/// Every string under a `run:` or `script:` key, anywhere in the document.
fn steps<'a>(value: &'a Value, under_step: bool, out: &mut Vec<&'a str>) {
    match value {
        Value::String(text) if under_step => out.push(text),
        Value::Array(items) => items.iter().for_each(|v| steps(v, under_step, out)),
        Value::Object(map) => {
            for (key, v) in map {
                steps(v, under_step || key == "run" || key == "script", out);
            }
        }
        _ => {}
    }
}

/// The `dwpipe` invocations of a step, as words (quotes dropped; `&&` and newlines split them).
fn invocations(step: &str) -> Vec<Vec<String>> {
    step.replace("&&", "\n")
        .replace("||", "\n")
        .replace(';', "\n")
        .lines()
        .filter_map(|line| {
            let words: Vec<String> = line
                .split_whitespace()
                .map(|w| w.trim_matches('"').to_owned())
                .collect();
            (words.first().map(String::as_str) == Some("dwpipe")).then_some(words)
        })
        .collect()
}

#[test]
fn the_example_pipelines_use_commands_and_options_that_exist() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci");
    let mut checked = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        let doc: Value = serde_saphyr::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not YAML: {e}", path.display()));
        let mut found = Vec::new();
        steps(&doc, false, &mut found);
        let calls: Vec<Vec<String>> = found.iter().flat_map(|s| invocations(s)).collect();
        assert!(!calls.is_empty(), "{}: no dwpipe step", path.display());
        for call in calls {
            // The command path: the words before the first option or argument that is not one.
            let mut command: Vec<&str> = vec![call[1].as_str()];
            if matches!(call[1].as_str(), "report" | "history")
                && let Some(sub) = call.iter().skip(2).find(|w| !w.starts_with('-'))
                && matches!(sub.as_str(), "merge" | "import")
            {
                command.push(sub);
            }
            let mut args = command.clone();
            args.push("--help");
            let (code, help, stderr) = dwpipe(&dir, &args);
            assert_eq!(
                code,
                0,
                "{}: `dwpipe {}` is no command: {stderr}",
                path.display(),
                command.join(" ")
            );
            for option in call.iter().filter(|w| w.starts_with("--")) {
                let option = option.split('=').next().unwrap();
                assert!(
                    help.contains(&format!("{option} ")) || help.contains(&format!("{option}\n")),
                    "{}: `dwpipe {}` has no {option}",
                    path.display(),
                    command.join(" ")
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} invocations checked");
}

/// A lab of two hosts for the nightly examples: `10.0.0.5` has LAB01, whose cold starts
/// pass the project's pack (≤ 740 ms), `10.0.0.6` has LAB02, 10 % slower, which fails it.
/// The CI, its project (the pack), and what to read the examples from.
fn nightly_lab(root: &Path) -> Ci {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let project = root.join("project");
    fs::create_dir_all(&project).unwrap();
    let pack = fs::read_to_string(repo.join("tests/fixtures/packs/cold-start.yaml"))
        .unwrap()
        .replace("≤ 1100ms", "≤ 740ms")
        .replace("expected: 1100", "expected: 740");
    fs::write(project.join("pack.yaml"), pack).unwrap();
    let device = |capture: &str, host: &str, serial: &str| {
        format!(
            "{host}:8710={}@{serial}",
            repo.join("device-fixtures").join(capture).display()
        )
    };
    let captures = [
        device("regress-base", "10.0.0.5", "LAB01"),
        device("regress-slower", "10.0.0.6", "LAB02"),
    ];
    let hdc = fake_hdc(root, "hdc", &captures, "");
    // The lab hosts' playbooks without the settling pauses a real phone needs.
    let playbooks = no_sleeps(root);
    Ci::new(root, &project, &hdc, &[("DWPIPE_PLAYBOOKS", playbooks)])
}

/// The job of `runs` named `name`.
fn job<'a>(runs: &'a [JobRun], name: &str) -> &'a JobRun {
    runs.iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no job `{name}`: {runs:?}"))
}

/// The audits a history holds.
fn audits_in(history: &Path) -> i64 {
    let conn = rusqlite::Connection::open(history).unwrap();
    conn.query_row("SELECT count(*) FROM runs", [], |row| row.get(0))
        .unwrap()
}

/// GitHub's nightly lab, two nights: each shard audits its host (host 2's device fails, its
/// job fails), the merge job merges (exit 1) and still records both shards in the history it
/// restored from the night before and saves again, and uploads the matrix.
#[test]
fn the_github_nightly_lab_runs_as_shipped_and_keeps_its_history() {
    let root = tempfile::tempdir().unwrap();
    let mut ci = nightly_lab(root.path());
    let text = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci/github-nightly-lab.yml"),
    )
    .unwrap();
    let workflow: Value = serde_saphyr::from_str(&text).unwrap();
    for night in 1..=2 {
        let runs = ci.github(&workflow, night);
        let said = || format!("night {night}: {runs:#?}");
        assert_eq!(
            job(&runs, "shard 10.0.0.5").step("Audit every device"),
            Some(0),
            "{}",
            said()
        );
        assert_eq!(
            job(&runs, "shard 10.0.0.6").step("Audit every device"),
            Some(1),
            "{}",
            said()
        );
        assert_eq!(
            job(&runs, "shard 10.0.0.6").step("upload-artifact"),
            Some(0),
            "{}",
            said()
        );
        let merge = job(&runs, "merge");
        assert_eq!(merge.step("Install dwpipe"), Some(0), "{}", said());
        assert_eq!(
            merge.step("One matrix"),
            Some(1),
            "a device failed: {}",
            said()
        );
        assert_eq!(merge.step("Record the shards"), Some(0), "{}", said());
        assert_eq!(merge.step("Keep the history"), Some(0), "{}", said());
        assert_eq!(merge.step("upload-artifact"), Some(0), "{}", said());
        let lab: Value =
            serde_json::from_slice(&fs::read(ci.artifact(night, "lab").join("lab.json")).unwrap())
                .unwrap();
        assert_eq!(lab["verdict"], "fail", "{lab}");
        assert_eq!(lab["devices"].as_array().unwrap().len(), 2, "{lab}");
        let history = ci
            .cached("lab-history-", "history.sqlite")
            .expect("a saved history");
        assert_eq!(
            audits_in(&history),
            2 * i64::from(night),
            "the nights add up"
        );
    }
}

/// GitLab's nightly lab, two nights: the shards' artifacts reach the merge job, which installs
/// dwpipe if the runner lacks it, records both shards in the cached history before it fails
/// with the merge's exit, and keeps the matrix and the history.
#[test]
fn the_gitlab_nightly_lab_runs_as_shipped_and_keeps_its_history() {
    let root = tempfile::tempdir().unwrap();
    let mut ci = nightly_lab(root.path());
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci/gitlab-ci.yml"))
            .unwrap();
    let pipeline: Value = serde_saphyr::from_str(&text).unwrap();
    for night in 1..=2 {
        let runs = ci.gitlab(&pipeline, night, "schedule");
        let said = || format!("night {night}: {runs:#?}");
        assert!(!runs.iter().any(|r| r.name == "release-gate"), "{}", said());
        assert!(!job(&runs, "lab-shard 10.0.0.5").failed, "{}", said());
        assert!(job(&runs, "lab-shard 10.0.0.6").failed, "{}", said());
        let merge = job(&runs, "lab-merge");
        assert!(
            merge
                .steps
                .iter()
                .any(|(line, _)| line.contains("command -v dwpipe")),
            "the merge job installs dwpipe: {}",
            said()
        );
        assert_eq!(
            merge.step("exit $merged"),
            Some(1),
            "a device failed: {}",
            said()
        );
        let lab: Value = serde_json::from_slice(
            &fs::read(ci.gitlab_artifact(night, "lab-merge", "lab/lab.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(lab["verdict"], "fail", "{lab}");
        let history = ci
            .cached("lab-history", "history.sqlite")
            .expect("a saved history");
        assert_eq!(
            audits_in(&history),
            2 * i64::from(night),
            "the nights add up"
        );
    }
}
