//! The example CI pipelines in `docs/ci/` work as shipped: each parses as YAML, every `dwpipe …`
//! line of their steps names a command and options this dwpipe has (checked against that
//! command's `--help`), and the nightly lab of each CI runs here, two nights in a row, every
//! job's steps in order against a fake-hdc lab of two hosts (one device failing), the
//! artifacts and the history's cache passed as the CI passes them.

use std::fs;
use std::path::Path;

use crate::support::ci::{Ci, JobRun};
use crate::support::pg::Database;
use crate::support::{Ran, Test, fake_hdc, no_sleeps};
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
            let Ran { stdout: help, .. } = Test::new(&dir).args(&args).status(0).run();
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

/// A lab of two hosts for the nightly examples, its history in a PostgreSQL database of its own
/// (the lab's server, given to the CI as its settings): `10.0.0.5` has LAB01, `10.0.0.6` has
/// LAB02. Before night [`SLOWER_FROM`] both phones start the app within the project's pack
/// (≤ 740 ms); from it on, both 10 % slower (a release that regressed): both fail, and the
/// history finds where the series shifted.
struct NightlyLab {
    ci: Ci,
    history: Database,
    /// The fake-hdc serving the slower phones.
    slower: String,
}

/// The night the lab's phones get slower.
const SLOWER_FROM: u32 = 6;
/// Nights the examples run: enough on each side of the shift for a significant change point.
const NIGHTS: u32 = 10;

fn nightly_lab(root: &Path) -> Option<NightlyLab> {
    let history = crate::support::pg::server()?.database();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let project = root.join("project");
    fs::create_dir_all(&project).unwrap();
    let pack = fs::read_to_string(repo.join("tests/fixtures/packs/cold-start.yaml"))
        .unwrap()
        .replace("≤ 1100ms", "≤ 740ms")
        .replace("expected: 1100", "expected: 740");
    fs::write(project.join("pack.yaml"), pack).unwrap();
    let lab = |capture: &str, name: &str| {
        let device = |host: &str, serial: &str| {
            format!(
                "{host}:8710={}@{serial}",
                repo.join("device-fixtures").join(capture).display()
            )
        };
        let captures = [device("10.0.0.5", "LAB01"), device("10.0.0.6", "LAB02")];
        fake_hdc(root, name, &captures, "")
    };
    let hdc = lab("regress-base", "hdc");
    let slower = lab("regress-slower", "hdc-slower").display().to_string();
    // The lab hosts' playbooks without the settling pauses a real phone needs.
    let playbooks = no_sleeps(root);
    let ci = Ci::new(root, &project, &hdc, &[("DWPIPE_PLAYBOOKS", playbooks)]);
    Some(NightlyLab {
        ci,
        history,
        slower,
    })
}

impl NightlyLab {
    /// Before `night`: from [`SLOWER_FROM`] on, the phones are the slower ones.
    fn night(&mut self, night: u32) {
        if night == SLOWER_FROM {
            self.ci.set_env("DWPIPE_HDC", &self.slower);
        }
    }

    /// The audits the lab's history holds.
    fn audits(&self) -> i64 {
        self.history
            .connect()
            .query_one("SELECT count(*) FROM runs", &[])
            .unwrap()
            .get(0)
    }

    /// What a night's merge listed as the lab's shifts (`P-01 on ALN-AL00: changed from the
    /// audit of …`): none before the phones got slower; on the last night one, the cold start,
    /// from an audit of the first slower night (its jobs working in `work/<slower_workspace>/`).
    fn check_shifts(&self, night: u32, changes: &Path, slower_workspace: u32) {
        let text = fs::read_to_string(changes).unwrap();
        let shifts: Vec<&str> = text
            .lines()
            .filter(|line| line.contains(": changed from the audit of"))
            .map(str::trim)
            .collect();
        if night < SLOWER_FROM {
            assert!(shifts.is_empty(), "night {night}: {shifts:?}");
        }
        if night == NIGHTS {
            assert_eq!(shifts.len(), 1, "night {night}: {shifts:?}");
            assert!(
                shifts[0].starts_with("P-01 on ALN-AL00")
                    && shifts[0].contains(&format!("/work/{slower_workspace}/")),
                "night {night}: {shifts:?}"
            );
        }
    }
}

/// The job of `runs` named `name`.
fn job<'a>(runs: &'a [JobRun], name: &str) -> &'a JobRun {
    runs.iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no job `{name}`: {runs:?}"))
}

/// The lease a shard's audit of `serial` recorded, from the folder the shard kept.
#[track_caller]
fn lease(shard: &Path, serial: &str) -> dwpipe::device::lease::LeaseRecord {
    let report: dwpipe::schema::AuditReport =
        crate::support::read(shard.join(serial).join("audit-1.json"));
    report.lease.expect("the audit records its lease")
}

/// GitHub's nightly lab, ten nights: each shard audits its host, leasing each phone in the
/// lab's history and recording its audit there; the merge job merges (exit 1 once the phones
/// are slower) and lists where the lab shifted — nothing before the phones got slower, the
/// cold start from the night they did once the history has enough nights on both sides.
#[test]
fn the_github_nightly_lab_records_into_postgresql_and_finds_the_shift() {
    let root = tempfile::tempdir().unwrap();
    let Some(mut lab) = nightly_lab(root.path()) else {
        return;
    };
    lab.ci.setting("DWPIPE_HISTORY", &lab.history.url);
    lab.ci
        .setting("DWPIPE_HISTORY_PASSWORD", lab.history.password());
    let text = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci/github-nightly-lab.yml"),
    )
    .unwrap();
    let workflow: Value = serde_saphyr::from_str(&text).unwrap();
    for night in 1..=NIGHTS {
        lab.night(night);
        let runs = lab.ci.github(&workflow, night);
        let said = || format!("night {night}: {runs:#?}");
        let audited = i32::from(night >= SLOWER_FROM);
        for shard in ["shard 10.0.0.5", "shard 10.0.0.6"] {
            assert_eq!(
                job(&runs, shard).step("Audit every device"),
                Some(audited),
                "{}",
                said()
            );
        }
        assert_eq!(
            lease(&lab.ci.artifact(night, "lab-10.0.0.5"), "LAB01").store,
            "postgres"
        );
        let merge = job(&runs, "merge");
        assert_eq!(merge.step("Install dwpipe"), Some(0), "{}", said());
        assert_eq!(merge.step("One matrix"), Some(audited), "{}", said());
        assert_eq!(merge.step("Where the lab shifted"), Some(0), "{}", said());
        assert_eq!(merge.step("upload-artifact"), Some(0), "{}", said());
        assert_eq!(lab.audits(), 2 * i64::from(night), "the nights add up");
        lab.check_shifts(
            night,
            &lab.ci.artifact(night, "lab").join("changes.txt"),
            SLOWER_FROM,
        );
    }
}

/// GitLab's nightly lab, ten nights: the same lab through GitLab's stages, its CI/CD variables
/// naming the lab's history; the merge job fails with the merge's exit once the phones are
/// slower, after listing the shifts.
#[test]
fn the_gitlab_nightly_lab_records_into_postgresql_and_finds_the_shift() {
    let root = tempfile::tempdir().unwrap();
    let Some(mut lab) = nightly_lab(root.path()) else {
        return;
    };
    lab.ci.setting("DWPIPE_HISTORY", &lab.history.url);
    lab.ci.setting("PGPASSWORD", lab.history.password());
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci/gitlab-ci.yml"))
            .unwrap();
    let pipeline: Value = serde_saphyr::from_str(&text).unwrap();
    for night in 1..=NIGHTS {
        lab.night(night);
        let runs = lab.ci.gitlab(&pipeline, night, "schedule");
        let said = || format!("night {night}: {runs:#?}");
        let slower = night >= SLOWER_FROM;
        assert!(!runs.iter().any(|r| r.name == "release-gate"), "{}", said());
        assert_eq!(
            job(&runs, "lab-shard 10.0.0.5").failed,
            slower,
            "{}",
            said()
        );
        assert_eq!(
            job(&runs, "lab-shard 10.0.0.6").failed,
            slower,
            "{}",
            said()
        );
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
            Some(i32::from(slower)),
            "{}",
            said()
        );
        let kept = |path: &str| lab.ci.gitlab_artifact(night, "lab-merge", path);
        let matrix: dwpipe::schema::LabReport = crate::support::read(kept("lab/lab.json"));
        assert_eq!(
            matrix.verdict.as_str(),
            if slower { "fail" } else { "pass" },
            "{matrix:?}"
        );
        assert_eq!(lab.audits(), 2 * i64::from(night), "the nights add up");
        // (GitLab's jobs of night n work in `work/<n + 100>/`.)
        lab.check_shifts(night, &kept("lab/changes.txt"), SLOWER_FROM + 100);
    }
}
