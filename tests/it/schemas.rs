//! The documents' JSON Schemas: `docs/schema/` holds what `dwpipe schema NAME` generates from
//! the types, and every document the binary writes — a delivery's (deliver.json, run.json, a
//! review, a verification, its audit), a lab's, an A/B lab's (ab-lab.json, ab.json,
//! compare.json, both arms' audits), an attestation's predicate, and what `verify-evidence`,
//! `freeze` (and a refused one), `probes` and `runs` print under `--json` — declares no field
//! its schema does not, and validates under a JSON Schema validator that is not dwpipe's (the
//! `jsonschema` package of `bash .ci/attest-deps`).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::attestation::key;
use crate::support::delivery::{FIXING_AGENT, SPACING, deliver, project, run_dir};
use crate::support::{Test, fake_hdc, frozen_fixture, no_sleeps, repo};

/// Every schema `dwpipe schema` lists.
fn names() -> Vec<String> {
    let listed = Test::new(&repo()).args(["schema"]).run().stdout;
    listed
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// The schema `name`, as the binary generates it.
fn generated(name: &str) -> String {
    Test::new(&repo()).args(["schema", name]).run().stdout
}

#[test]
fn the_schemas_under_docs_are_the_ones_the_types_make() {
    let names = names();
    assert!(names.len() >= 10, "{names:?}");
    for name in &names {
        let path = repo().join(format!("docs/schema/{name}.schema.json"));
        let kept = fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == generated(name),
            "{} is not what the types make: run `dwpipe schema {name} > {}`",
            path.display(),
            path.display()
        );
    }
    let kept: Vec<String> = fs::read_dir(repo().join("docs/schema"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for file in kept {
        let name = file.trim_end_matches(".schema.json");
        assert!(
            names.iter().any(|n| n == name),
            "docs/schema/{file} is no document's schema"
        );
    }
    Test::new(&repo())
        .args(["schema", "pack"])
        .status(2)
        .stderr_contains("one of: audit, lab")
        .run();
}

/// The documents a delivery of the bundled example wrote: its deliver.json, run.json, review
/// receipt, first verification and its audit.
fn a_delivery(documents: &mut Vec<(&'static str, PathBuf)>) -> tempfile::TempDir {
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let (code, summary, stderr) = deliver(dir.path(), &[]);
    assert_eq!(code, 0, "{stderr}");
    let run = run_dir(&summary, dir.path());
    documents.extend([
        ("deliver", run.join("deliver.json")),
        ("run", run.join("run.json")),
        ("verify", run.join("verify-1.json")),
        ("audit", only(&run.join("audit-round-1"), "audit-1.json")),
        (
            "review",
            only(&dir.path().join(".dwpipe/reviews"), "review-1.json"),
        ),
    ]);
    dir
}

/// What `args` print under `--json` in `dir` (ending `code`), kept as `dir/<name>.out.json`.
fn printed(
    documents: &mut Vec<(&'static str, PathBuf)>,
    name: &'static str,
    dir: &Path,
    args: &[&str],
    code: i32,
) {
    let out = Test::new(dir).args(args).status(code).run().stdout;
    let kept = dir.join(format!("{name}.out.json"));
    fs::write(&kept, out).unwrap();
    documents.push((name, kept));
}

/// What the commands print under `--json` besides the documents: `verify-evidence`, `freeze`
/// (and a refused one's diagnostics), `probes`, `runs`.
fn the_printed(documents: &mut Vec<(&'static str, PathBuf)>, audit: &Path, delivered: &Path) {
    let audit = audit.to_str().unwrap();
    printed(
        documents,
        "verification",
        delivered,
        &["verify-evidence", audit, "--json"],
        0,
    );
    let scratch = delivered.join("printed");
    fs::create_dir_all(&scratch).unwrap();
    let pack = repo().join("examples/notes/pack.yaml");
    let pack = pack.to_str().unwrap();
    printed(
        documents,
        "freeze",
        &scratch,
        &["freeze", pack, "--json"],
        0,
    );
    fs::write(scratch.join("bad.yaml"), "version: 1\ncriteria: 7\n").unwrap();
    printed(
        documents,
        "diagnostics",
        &scratch,
        &["freeze", "bad.yaml", "--json"],
        2,
    );
    printed(documents, "probes", &scratch, &["probes", "--json"], 0);
    printed(documents, "runs", delivered, &["runs", "--json"], 0);
}

/// The one file called `name` under `folder`.
fn only(folder: &Path, name: &str) -> PathBuf {
    let found: Vec<PathBuf> = walkdir::WalkDir::new(folder)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.file_name().is_some_and(|n| n == name))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{name} under {}: {found:?}",
        folder.display()
    );
    found.into_iter().next().unwrap()
}

/// The documents an A/B session over a lab of two phones wrote, and a lab's of the same two.
fn a_lab(documents: &mut Vec<(&'static str, PathBuf)>) -> tempfile::TempDir {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let phones: Vec<String> = (1..=2)
        .map(|i| {
            let phone = repo().join(format!("device-fixtures/ab-phone-{i}"));
            format!("10.0.0.1:8710={}", phone.display())
        })
        .collect();
    let hdc = fake_hdc(dir.path(), "hdc", &phones, "");
    let hdc = hdc.to_str().unwrap();
    let playbooks = no_sleeps(dir.path());
    let hap = |v: &str| crate::ab::hap(v);
    let (baseline, candidate) = (hap("1.0"), hap("1.1"));
    let lab = [
        "--hdc",
        hdc,
        "audit",
        "--pack",
        "pack.lock.json",
        "--devices",
        "all",
        "--server",
        "10.0.0.1:8710",
        "--playbooks",
        &playbooks,
    ];
    Test::new(dir.path())
        .args(lab)
        .args(["--out", "lab", "--runs", "2"])
        .status_in(&[0, 1])
        .run();
    Test::new(dir.path())
        .args(lab)
        .args(["--baseline-hap", &baseline, "--candidate-hap", &candidate])
        .args(["--runs", "4", "--max-runs", "4", "--out", "ab"])
        .status_in(&[0, 1])
        .run();
    documents.push(("lab", dir.path().join("lab/lab.json")));
    documents.push(("ab-lab", dir.path().join("ab/ab-lab.json")));
    for found in walkdir::WalkDir::new(dir.path().join("ab")) {
        let path = found.unwrap().into_path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let schema = match name.as_str() {
            "ab.json" => "ab",
            "compare.json" => "compare",
            n if n.starts_with("audit-") && n.ends_with(".json") => "audit",
            _ => continue,
        };
        documents.push((schema, path));
    }
    for found in walkdir::WalkDir::new(dir.path().join("lab")) {
        let path = found.unwrap().into_path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("audit-") && name.ends_with(".json") {
            documents.push(("audit", path));
        }
    }
    dir
}

/// An attestation of a replay (`--allow-replay`): its second line's predicate, kept as a file.
fn an_attestation(documents: &mut Vec<(&'static str, PathBuf)>, audit: &Path, dir: &Path) {
    let (private, _) = key(dir, "k", false);
    let hap = repo().join("device-fixtures/haps/notes-1.0.hap");
    let out = dir.join("a.intoto.jsonl");
    Test::new(dir)
        .args([
            "attest",
            audit.to_str().unwrap(),
            "--key",
            private.to_str().unwrap(),
        ])
        .args(["--subject", hap.to_str().unwrap(), "--allow-replay"])
        .args(["--out", out.to_str().unwrap()])
        .status_in(&[0, 1])
        .run();
    let payloads = crate::support::attestation::payloads(&out);
    let statement: Value = serde_json::from_slice(&payloads[1]).unwrap();
    let predicate = dir.join("predicate.json");
    fs::write(&predicate, statement["predicate"].to_string()).unwrap();
    documents.push(("dwpipe-verdict-v1", predicate));
}

#[test]
fn every_document_the_binary_writes_is_what_its_schema_declares() {
    let mut documents = Vec::new();
    let delivered = a_delivery(&mut documents);
    let _lab = a_lab(&mut documents);
    let audit = documents
        .iter()
        .find(|(s, _)| *s == "audit")
        .unwrap()
        .1
        .clone();
    an_attestation(&mut documents, &audit, delivered.path());
    the_printed(&mut documents, &audit, delivered.path());
    let kinds: std::collections::BTreeSet<&str> = documents.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        kinds.len(),
        names().len(),
        "a document of every schema: {kinds:?}"
    );
    // Each schema made once, however many documents it holds.
    let schemas: std::collections::BTreeMap<&str, Value> = kinds
        .iter()
        .map(|name| (*name, serde_json::from_str(&generated(name)).unwrap()))
        .collect();
    let mut undeclared = Vec::new();
    for (name, path) in &documents {
        let schema = &schemas[name];
        let value: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
        let at = path.display().to_string();
        undeclared.extend(Walk { schema }.undeclared(schema, &value, &at));
    }
    assert!(
        undeclared.is_empty(),
        "fields written that their schema does not declare:\n{}",
        undeclared.join("\n")
    );
    validated(&documents);
}

/// The documents validated by `integrations/schema/validate.py` (jsonschema), when CI's
/// virtual environment is there.
fn validated(documents: &[(&str, PathBuf)]) {
    let Some(python) = crate::support::attestation::attest_python("jsonschema validation") else {
        return;
    };
    let out = std::process::Command::new(&python)
        .arg(repo().join("integrations/schema/validate.py"))
        .arg(repo().join("docs/schema"))
        .args(
            documents
                .iter()
                .map(|(name, path)| format!("{name}={}", path.display())),
        )
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        said.lines().filter(|l| l.starts_with("valid ")).count(),
        documents.len()
    );
}

/// A walk of a document along its schema, naming every object key no schema declares.
struct Walk<'s> {
    schema: &'s Value,
}

impl Walk<'_> {
    /// The keys of `value` (and below) that `node` does not declare; `[]` when it fits.
    fn undeclared(&self, node: &Value, value: &Value, at: &str) -> Vec<String> {
        if let Some(reference) = node["$ref"].as_str() {
            let name = reference.trim_start_matches("#/$defs/");
            return self.undeclared(&self.schema["$defs"][name], value, at);
        }
        for combined in ["anyOf", "oneOf"] {
            if let Some(options) = node[combined].as_array() {
                // The option the value fits best: the one declaring the most of it.
                return options
                    .iter()
                    .map(|o| self.undeclared(o, value, at))
                    .min_by_key(Vec::len)
                    .unwrap_or_default();
            }
        }
        let mut found = Vec::new();
        if let Some(all) = node["allOf"].as_array() {
            for part in all {
                found.extend(self.undeclared(part, value, at));
            }
        }
        match value {
            Value::Object(fields) => {
                let properties = node["properties"].as_object();
                for (name, field) in fields {
                    let here = format!("{at}.{name}");
                    match (
                        properties.and_then(|p| p.get(name)),
                        node.get("additionalProperties"),
                    ) {
                        (Some(declared), _) => {
                            found.extend(self.undeclared(declared, field, &here));
                        }
                        (None, Some(Value::Bool(true)) | None) if properties.is_none() => {}
                        (None, Some(map @ Value::Object(_))) => {
                            found.extend(self.undeclared(map, field, &here));
                        }
                        (None, _) => found.push(here),
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item) = node.get("items") {
                    for (i, each) in items.iter().enumerate() {
                        found.extend(self.undeclared(item, each, &format!("{at}[{i}]")));
                    }
                }
            }
            _ => {}
        }
        found
    }
}

#[test]
fn a_field_its_schema_does_not_declare_is_named() {
    let schema: Value = serde_json::from_str(&generated("run")).unwrap();
    let run = serde_json::json!({
        "format-version": 1,
        "pack-sha256": "ab",
        "target": { "kind": "device", "serial": "S", "server": null, "extra": 1 },
        "workspace": "/w",
        "surprise": true,
    });
    let mut found = Walk { schema: &schema }.undeclared(&schema, &run, "run");
    found.sort();
    assert_eq!(found, ["run.surprise", "run.target.extra"]);
}
