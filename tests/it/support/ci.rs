//! A CI on this machine, as much of GitHub Actions and GitLab CI as the examples in `docs/ci/`
//! use: jobs in their order (GitHub's `needs`, GitLab's stages), a matrix expanded, each job in
//! a fresh workspace holding the project, its steps run by bash with `dwpipe` on PATH and
//! `hdc` a fake-hdc serving the lab's hosts; the CI's settings (GitHub's `vars` and `secrets`,
//! GitLab's CI/CD variables) and `env:` (GitHub's workflow, job and step) given to the steps;
//! step and job conditions (`if: always()`, `when: always`) as the CI reads them; artifacts
//! passed from job to job. A construct it does not know fails the test: an example never runs
//! here on a guess.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::copy_tree;

/// What one job did: each step's exit code (`None`: skipped), and whether it failed.
#[derive(Debug)]
pub(crate) struct JobRun {
    /// The job, with its matrix value (`shard lab-host-1`).
    pub(crate) name: String,
    /// Each step by its name (or its first line), with its exit code.
    pub(crate) steps: Vec<(String, Option<i32>)>,
    /// Whether a step failed.
    pub(crate) failed: bool,
}

impl JobRun {
    /// The exit code of the step whose name or command holds `text` (`None`: skipped).
    #[track_caller]
    pub(crate) fn step(&self, text: &str) -> Option<i32> {
        self.steps
            .iter()
            .find(|(name, _)| name.contains(text))
            .unwrap_or_else(|| panic!("{}: no step `{text}`: {:?}", self.name, self.steps))
            .1
    }
}

/// The CI: where the project and the artifacts are, the runners' environment, the CI's settings.
pub(crate) struct Ci {
    root: PathBuf,
    project: PathBuf,
    env: Vec<(String, String)>,
    /// The CI's settings: GitHub's `vars` and `secrets` (one namespace here), GitLab's CI/CD
    /// variables.
    settings: Vec<(String, String)>,
    /// The devices' state folder (fake-hdc's transcript positions): a new night starts over.
    state: PathBuf,
}

impl Ci {
    /// A CI in `root` checking out `project`, whose runners find `dwpipe` on PATH and `hdc`
    /// in `hdc` (and any of `env`).
    pub(crate) fn new(root: &Path, project: &Path, hdc: &Path, env: &[(&str, String)]) -> Ci {
        let bin = root.join("bin");
        fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_dwpipe"), bin.join("dwpipe")).unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut all = vec![
            ("PATH".to_owned(), path),
            ("DWPIPE_HDC".to_owned(), hdc.display().to_string()),
            // The lab's hosts' lock files, apart from other tests' phones of the same serial.
            (
                "DWPIPE_LEASES".to_owned(),
                root.join("leases").display().to_string(),
            ),
        ];
        all.extend(env.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        Ci {
            root: root.to_owned(),
            project: project.to_owned(),
            env: all,
            settings: Vec::new(),
            state: root.join("state"),
        }
    }

    /// A setting of the CI (a repository variable or secret, a CI/CD variable).
    pub(crate) fn setting(&mut self, name: &str, value: &str) {
        self.settings.push((name.to_owned(), value.to_owned()));
    }

    /// Sets a variable of the runners' environment from now on (`DWPIPE_HDC`: the lab's
    /// devices change between nights).
    pub(crate) fn set_env(&mut self, name: &str, value: &str) {
        self.env.retain(|(k, _)| k != name);
        self.env.push((name.to_owned(), value.to_owned()));
    }

    fn artifacts(&self, night: u32) -> PathBuf {
        self.root.join(format!("artifacts/{night}"))
    }

    /// An artifact of a night, by its name (GitHub's), or a GitLab job's (`lab-merge`).
    pub(crate) fn artifact(&self, night: u32, name: &str) -> PathBuf {
        self.artifacts(night).join(name)
    }

    /// What a GitLab job of a night kept, at its path (`lab-merge`, `lab/lab.json`).
    pub(crate) fn gitlab_artifact(&self, night: u32, job: &str, path: &str) -> PathBuf {
        self.artifact(night + 100, job).join(path)
    }

    /// A fresh workspace for a job of `night`, with the project checked out when `checkout`.
    fn workspace(&self, night: u32, job: &str, checkout: bool) -> PathBuf {
        let dir = self
            .root
            .join(format!("work/{night}/{}", job.replace(' ', "-")));
        fs::create_dir_all(&dir).unwrap();
        if checkout {
            copy_tree(&self.project, &dir);
        }
        dir
    }

    /// Runs `script` with bash (`-e -o pipefail`, as both CIs do) in `dir` with `vars`.
    fn bash(&self, dir: &Path, script: &str, vars: &[(String, String)]) -> i32 {
        let output = Command::new("bash")
            .args([
                "--noprofile",
                "--norc",
                "-e",
                "-o",
                "pipefail",
                "-c",
                script,
            ])
            .current_dir(dir)
            .envs(self.env.iter().cloned())
            .envs(vars.iter().cloned())
            .env_remove("CI")
            .output()
            .unwrap();
        let log = dir.join("step.log");
        let mut text = fs::read_to_string(&log).unwrap_or_default();
        let _ = write!(
            text,
            "$ {script}\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        fs::write(log, text).unwrap();
        output.status.code().unwrap_or(-1)
    }

    /// One night of a GitHub Actions workflow: every job in the order of its `needs`.
    #[track_caller]
    pub(crate) fn github(&mut self, workflow: &Value, night: u32) -> Vec<JobRun> {
        let _ = fs::remove_dir_all(&self.state);
        let jobs = workflow["jobs"].as_object().unwrap();
        let mut runs: Vec<JobRun> = Vec::new();
        let mut done: BTreeMap<String, bool> = BTreeMap::new();
        while done.len() < jobs.len() {
            let (id, job) = jobs
                .iter()
                .find(|(id, job)| {
                    !done.contains_key(*id) && needs(job).iter().all(|n| done.contains_key(n))
                })
                .expect("a job whose needs are met");
            let needed_failed = needs(job).iter().any(|n| done[n]);
            let runs_anyway = match job.get("if").and_then(Value::as_str) {
                None => false,
                Some("always()") => true,
                Some(other) => panic!("job `if: {other}` is not understood here"),
            };
            let hosts: Vec<Option<String>> = match job["strategy"]["matrix"]["host"].as_array() {
                Some(hosts) => hosts
                    .iter()
                    .map(|h| Some(h.as_str().unwrap().to_owned()))
                    .collect(),
                None => vec![None],
            };
            let mut failed = false;
            for host in hosts {
                let name = host
                    .as_ref()
                    .map_or_else(|| id.clone(), |h| format!("{id} {h}"));
                if needed_failed && !runs_anyway {
                    runs.push(JobRun {
                        name,
                        steps: Vec::new(),
                        failed: true,
                    });
                    failed = true;
                    continue;
                }
                let run = self.github_job(workflow, job, &name, host.as_deref(), night);
                failed |= run.failed;
                runs.push(run);
            }
            done.insert(id.clone(), failed);
        }
        runs
    }

    #[track_caller]
    fn github_job(
        &mut self,
        workflow: &Value,
        job: &Value,
        name: &str,
        host: Option<&str>,
        night: u32,
    ) -> JobRun {
        let dir = self.workspace(night, name, false);
        let settings = self.settings.clone();
        let expand = |text: &str| -> String {
            let mut out = String::new();
            let mut rest = text;
            while let Some(start) = rest.find("${{") {
                let end = rest[start..]
                    .find("}}")
                    .unwrap_or_else(|| panic!("an unclosed expression: {text}"));
                out.push_str(&rest[..start]);
                let expression = rest[start + 3..start + end].trim();
                let setting = expression
                    .strip_prefix("vars.")
                    .or_else(|| expression.strip_prefix("secrets."));
                out.push_str(&match (expression, setting) {
                    ("matrix.host", _) => host.unwrap_or("").to_owned(),
                    ("github.run_id", _) => night.to_string(),
                    // An unset variable or secret is empty, as GitHub has it.
                    (_, Some(setting)) => settings
                        .iter()
                        .find(|(k, _)| k == setting)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default(),
                    _ => panic!("an expression not understood here: {text}"),
                });
                rest = &rest[start + end + 2..];
            }
            out.push_str(rest);
            out
        };
        let env_of = |node: &Value| -> Vec<(String, String)> {
            node["env"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), expand(v.as_str().expect("an env value"))))
                .collect()
        };
        let job_env: Vec<(String, String)> =
            env_of(workflow).into_iter().chain(env_of(job)).collect();
        let mut run = JobRun {
            name: name.to_owned(),
            steps: Vec::new(),
            failed: false,
        };
        for step in job["steps"].as_array().unwrap() {
            let label = step["name"]
                .as_str()
                .or_else(|| step["uses"].as_str())
                .or_else(|| step["run"].as_str())
                .unwrap()
                .to_owned();
            let runs = match step.get("if").and_then(Value::as_str) {
                None => !run.failed,
                Some("always()") => true,
                Some(other) => panic!("step `if: {other}` is not understood here"),
            };
            if !runs {
                run.steps.push((label, None));
                continue;
            }
            let with = |key: &str| step["with"][key].as_str().map(expand);
            let code = match (step["uses"].as_str(), step["run"].as_str()) {
                (Some("actions/checkout@v4"), _) => {
                    copy_tree(&self.project, &dir);
                    0
                }
                (Some("actions/upload-artifact@v4"), _) => {
                    let source = dir.join(with("path").unwrap());
                    if source.is_dir() {
                        copy_tree(&source, &self.artifact(night, &with("name").unwrap()));
                    }
                    0
                }
                (Some("actions/download-artifact@v4"), _) => {
                    assert!(with("name").is_none(), "download of every artifact only");
                    if let Ok(entries) = fs::read_dir(self.artifacts(night)) {
                        for entry in entries {
                            let entry = entry.unwrap();
                            copy_tree(&entry.path(), &dir.join(entry.file_name()));
                        }
                    }
                    0
                }
                (Some(other), _) => panic!("`uses: {other}` is not understood here"),
                (None, Some(script)) => {
                    let vars: Vec<(String, String)> =
                        job_env.iter().cloned().chain(env_of(step)).collect();
                    self.bash(&dir, &expand(script), &vars)
                }
                (None, None) => panic!("a step that neither uses nor runs"),
            };
            run.failed |= code != 0;
            run.steps.push((label, Some(code)));
        }
        run
    }

    /// One night of a GitLab pipeline started by `source` (`schedule`): its stages in order,
    /// the jobs whose rules admit the source.
    #[track_caller]
    pub(crate) fn gitlab(&mut self, pipeline: &Value, night: u32, source: &str) -> Vec<JobRun> {
        let _ = fs::remove_dir_all(&self.state);
        let stages: Vec<&str> = pipeline["stages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        let mut runs = Vec::new();
        let mut failed_before = false;
        let mut artifacts: Vec<String> = Vec::new();
        for stage in stages {
            let mut failed_here = false;
            // Artifacts reach the jobs of later stages only.
            let earlier = artifacts.clone();
            let jobs =
                pipeline.as_object().unwrap().iter().filter(|(_, job)| {
                    job["stage"].as_str() == Some(stage) && admitted(job, source)
                });
            for (id, job) in jobs {
                let always = match job.get("when").and_then(Value::as_str) {
                    None | Some("on_success") => false,
                    Some("always") => true,
                    Some(other) => panic!("`when: {other}` is not understood here"),
                };
                let matrix: Vec<Vec<(String, String)>> =
                    match job["parallel"]["matrix"].as_array() {
                        Some(rows) => rows
                            .iter()
                            .flat_map(|row| {
                                let (var, values) = row.as_object().unwrap().iter().next().unwrap();
                                values.as_array().unwrap().iter().map(move |v| {
                                    vec![(var.clone(), v.as_str().unwrap().to_owned())]
                                })
                            })
                            .collect(),
                        None => vec![Vec::new()],
                    };
                for vars in matrix {
                    let name = std::iter::once(id.as_str())
                        .chain(vars.iter().map(|(_, v)| v.as_str()))
                        .collect::<Vec<_>>()
                        .join(" ");
                    if failed_before && !always {
                        runs.push(JobRun {
                            name,
                            steps: Vec::new(),
                            failed: true,
                        });
                        continue;
                    }
                    let run = self.gitlab_job(job, &name, &vars, night, &earlier);
                    artifacts.push(name.clone());
                    failed_here |= run.failed;
                    runs.push(run);
                }
            }
            failed_before |= failed_here;
        }
        runs
    }

    #[track_caller]
    fn gitlab_job(
        &mut self,
        job: &Value,
        name: &str,
        vars: &[(String, String)],
        night: u32,
        artifacts: &[String],
    ) -> JobRun {
        let dir = self.workspace(night + 100, name, true);
        let expand = |text: &str| {
            vars.iter()
                .fold(text.to_owned(), |t, (k, v)| t.replace(&format!("${k}"), v))
        };
        assert!(job["cache"].is_null(), "`cache:` is not understood here");
        // Artifacts of the earlier stages, at their paths.
        for saved in artifacts {
            let kept = self.artifact(night + 100, saved);
            if kept.is_dir() {
                copy_tree(&kept, &dir);
            }
        }
        let lines: Vec<String> = ["before_script", "script"]
            .iter()
            .flat_map(|k| job[*k].as_array().cloned().unwrap_or_default())
            .map(|line| line.as_str().unwrap().to_owned())
            .collect();
        // GitLab runs the lines as one script in one shell: the first that fails ends it. Its
        // CI/CD variables are every job's environment.
        let variables: Vec<(String, String)> = self
            .settings
            .iter()
            .cloned()
            .chain(vars.iter().cloned())
            .collect();
        let code = self.bash(&dir, &lines.join("\n"), &variables);
        let failed = code != 0;
        let when_ok = |when: Option<&str>| match when {
            None | Some("on_success") => !failed,
            Some("always") => true,
            Some(other) => panic!("`when: {other}` is not understood here"),
        };
        if when_ok(job["artifacts"]["when"].as_str()) {
            let kept = self.artifact(night + 100, name);
            for path in job["artifacts"]["paths"].as_array().into_iter().flatten() {
                let path = expand(path.as_str().unwrap());
                if dir.join(&path).exists() {
                    copy_path(&dir.join(&path), &kept.join(&path));
                }
            }
        }
        JobRun {
            name: name.to_owned(),
            steps: lines.into_iter().map(|l| (l, Some(code))).collect(),
            failed,
        }
    }
}

/// The jobs a GitHub job needs.
fn needs(job: &Value) -> Vec<String> {
    match &job["needs"] {
        Value::String(one) => vec![one.clone()],
        Value::Array(many) => many
            .iter()
            .map(|n| n.as_str().unwrap().to_owned())
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a GitLab job's `rules` admit a pipeline of `source`
/// (`if: $CI_PIPELINE_SOURCE == "…"` only).
#[track_caller]
fn admitted(job: &Value, source: &str) -> bool {
    let Some(rules) = job["rules"].as_array() else {
        return true;
    };
    rules.iter().any(|rule| {
        let condition = rule["if"].as_str().expect("a rule with `if:`");
        let wanted = condition
            .strip_prefix("$CI_PIPELINE_SOURCE == \"")
            .and_then(|rest| rest.strip_suffix('"'))
            .unwrap_or_else(|| panic!("rule `{condition}` is not understood here"));
        wanted == source
    })
}

/// Copies a file or a folder to `to`.
fn copy_path(from: &Path, to: &Path) {
    if from.is_dir() {
        copy_tree(from, to);
    } else {
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(from, to).unwrap();
    }
}
