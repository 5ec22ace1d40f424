//! `dwpipe report merge`: the matrices of lab shards (a CI matrix splits a lab across hosts)
//! joined into one. Shards must have audited the same lock, and a device may appear in one
//! shard only; the verdict is recomputed over every device.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::diagnostic::{Diagnostic, chain};
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::output::relative_to;

use crate::schema::{LabDevice, LabReport, LabVerdict, files, verdict_of};

/// A shard: its folder, its `lab.json`, its `lab-junit.xml`.
struct Shard {
    dir: PathBuf,
    report: LabReport,
    junit: String,
}

fn invalid(path: &Path, message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error("E_MERGE_INVALID", format!("{}: {message}", path.display()))
        .fix("pass the --out folders of `dwpipe audit --devices …` runs (each holds lab.json)")
}

fn load(dir: &Path) -> Result<Shard, Diagnostic> {
    let json = dir.join(files::LAB);
    let bytes = read_bounded(&json, MAX_REPORT_BYTES, "a lab report")
        .map_err(|e| invalid(&json, chain(&e)))?;
    let report: LabReport = serde_json::from_slice(&bytes).map_err(|e| invalid(&json, e))?;
    if report.format_version != crate::format::LAB
        || report
            .rows
            .iter()
            .any(|r| r.results.len() != report.devices.len())
    {
        return Err(invalid(
            &json,
            "not a lab report of format 1 with one result per device",
        ));
    }
    let xml = dir.join(files::LAB_JUNIT);
    let bytes = read_bounded(&xml, MAX_REPORT_BYTES, "a JUnit report")
        .map_err(|e| invalid(&xml, chain(&e)))?;
    let junit = String::from_utf8(bytes).map_err(|_| invalid(&xml, "not UTF-8"))?;
    Ok(Shard {
        dir: dir.to_owned(),
        report,
        junit,
    })
}

/// A hash as people compare it: its first 12 characters.
fn short(sha: &str) -> String {
    sha.chars().take(12).collect()
}

static ROOT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"<testsuites name="dwpipe" tests="(\d+)" failures="(\d+)" skipped="(\d+)" errors="(\d+)">\n"#)
        .expect("static regex")
});

/// The merged matrix and its JUnit XML; `out` is the existing folder they will be written to
/// (device report links are rewritten relative to it).
pub(crate) fn merge(dirs: &[PathBuf], out: &Path) -> Result<(LabReport, String), Diagnostic> {
    let shards = dirs
        .iter()
        .map(|d| load(d))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = shards.first() else {
        return Err(Diagnostic::error("E_MERGE_INVALID", "nothing to merge")
            .fix("pass two or more lab folders"));
    };
    let pack = first.report.pack_sha256.clone();
    let criteria: Vec<String> = first
        .report
        .rows
        .iter()
        .map(|r| r.criterion_id.clone())
        .collect();
    let mut merged = LabReport {
        format_version: crate::format::LAB,
        pack_sha256: pack.clone(),
        verdict: LabVerdict::Incomplete,
        devices: Vec::new(),
        rows: Vec::new(),
        unreachable: Vec::new(),
    };
    let (mut totals, mut suites) = ([0u64; 4], String::new());
    for shard in shards {
        let json = shard.dir.join(files::LAB);
        if shard.report.pack_sha256 != pack {
            return Err(Diagnostic::error(
                "E_MERGE_PACK_MISMATCH",
                format!(
                    "{} audited pack {}, the first shard {}",
                    json.display(),
                    short(&shard.report.pack_sha256),
                    short(&pack)
                ),
            )
            .fix("merge only shards of one lock"));
        }
        if shard
            .report
            .rows
            .iter()
            .map(|r| &r.criterion_id)
            .ne(criteria.iter())
        {
            return Err(invalid(&json, "its criteria differ from the first shard's"));
        }
        let Some(root) = ROOT.captures(&shard.junit) else {
            return Err(invalid(
                &shard.dir.join("lab-junit.xml"),
                "not a dwpipe lab JUnit report",
            ));
        };
        for (total, group) in totals.iter_mut().zip(1..) {
            *total += root[group].parse::<u64>().unwrap_or(0);
        }
        let body_start = root.get(0).map_or(0, |m| m.end());
        let body_end = shard
            .junit
            .rfind("</testsuites>")
            .unwrap_or(body_start)
            .max(body_start);
        suites.push_str(&shard.junit[body_start..body_end]);
        let shard_devices = shard.report.devices.len();
        for device in shard.report.devices {
            if merged.devices.iter().any(|d| d.serial == device.serial) {
                return Err(Diagnostic::error(
                    "E_MERGE_DUPLICATE_DEVICE",
                    format!(
                        "device {} is in more than one shard ({})",
                        device.serial,
                        json.display()
                    ),
                )
                .fix("give each shard its own devices"));
            }
            let report = device
                .report
                .as_ref()
                .map(|r| relative_to(&shard.dir.join(r), out));
            merged.devices.push(LabDevice { report, ..device });
        }
        for (index, mut row) in shard.report.rows.into_iter().enumerate() {
            // A shard written before cells had details has none: each of its cells is bare.
            row.details.resize(shard_devices, None);
            match merged.rows.get_mut(index) {
                Some(merged_row) => {
                    merged_row.results.extend(row.results);
                    merged_row.details.extend(row.details);
                }
                None => merged.rows.push(row),
            }
        }
        merged.unreachable.extend(shard.report.unreachable);
    }
    merged.verdict = verdict_of(&merged.devices, &merged.unreachable);
    let [tests, failures, skipped, errors] = totals;
    let junit = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dwpipe\" tests=\"{tests}\" failures=\"{failures}\" skipped=\"{skipped}\" errors=\"{errors}\">\n{suites}</testsuites>\n"
    );
    Ok((merged, junit))
}
