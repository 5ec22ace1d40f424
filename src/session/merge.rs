//! `dwpipe report merge`: the matrices of lab shards (a CI matrix splits a lab across hosts)
//! joined into one. Shards must have audited the same lock and need the same number of
//! devices, and a device may appear in one shard only. Nothing is taken at a shard's word:
//! each device's audit is rebuilt from its evidence, the matrix and its JUnit XML are made
//! again from those audits, and a shard whose `lab.json` says otherwise is refused with what
//! differs.

use std::path::{Component, Path, PathBuf};

use crate::compare::{Refusing, held_to_evidence, read_audit};
use crate::diagnostic::{Diagnostic, chain};
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::output::relative_to;
use crate::report::junit_lab;
use crate::schema::{
    AuditReport, Column, DeviceVerdict, LabDevice, LabReport, RowHead, UnreachableServer, files,
};

/// A shard: its folder and its `lab.json`.
struct Shard {
    dir: PathBuf,
    report: LabReport,
}

/// How a device's audit that its evidence does not give is refused.
const MERGING: Refusing = Refusing {
    unverified: "E_MERGE_UNVERIFIED",
    tampered: "E_MERGE_TAMPERED",
    fix: "merge the --out folders of `dwpipe audit --devices …` runs as they wrote them, each device's audit with its evidence (`dwpipe verify-evidence AUDIT` names every difference)",
};

fn invalid(path: &Path, message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error("E_MERGE_INVALID", format!("{}: {message}", path.display()))
        .fix("pass the --out folders of `dwpipe audit --devices …` runs (each holds lab.json)")
}

fn tampered(path: &Path, message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error("E_MERGE_TAMPERED", format!("{}: {message}", path.display())).fix(MERGING.fix)
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
    if report.need == Some(0) {
        // `--need` takes 1 or more: a lab that needs no passing device was written by hand.
        return Err(invalid(
            &json,
            "it needs 0 devices to pass; `--need` is 1 or more",
        ));
    }
    Ok(Shard {
        dir: dir.to_owned(),
        report,
    })
}

/// A hash as people compare it: its first 12 characters.
fn short(sha: &str) -> String {
    sha.chars().take(12).collect()
}

fn need_words(need: Option<u32>) -> String {
    need.map_or_else(|| "no --need".to_owned(), |n| format!("--need {n}"))
}

/// The shard's claims that do not join: another lock, other criteria, another `--need`.
fn joinable(shard: &Shard, first: &LabReport) -> Result<(), Diagnostic> {
    let json = shard.dir.join(files::LAB);
    if shard.report.pack_sha256 != first.pack_sha256 {
        return Err(Diagnostic::error(
            "E_MERGE_PACK_MISMATCH",
            format!(
                "{} audited pack {}, the first shard {}",
                json.display(),
                short(&shard.report.pack_sha256),
                short(&first.pack_sha256)
            ),
        )
        .fix("merge only shards of one lock"));
    }
    if shard
        .report
        .rows
        .iter()
        .map(|r| &r.criterion_id)
        .ne(first.rows.iter().map(|r| &r.criterion_id))
    {
        return Err(invalid(&json, "its criteria differ from the first shard's"));
    }
    if shard.report.need != first.need {
        // `--need` is a count over the whole lab: shards that disagree on it were not one
        // lab, and picking either number would pass or fail the others' devices.
        return Err(invalid(
            &json,
            format!(
                "it was audited with {}, the first shard with {}",
                need_words(shard.report.need),
                need_words(first.need)
            ),
        ));
    }
    Ok(())
}

/// The audit a shard names for a device, read and held to its evidence; the heads of the
/// criteria of the lock it was judged by.
fn audit_of(
    shard: &Shard,
    serial: &str,
    named: &str,
    pack: &str,
) -> Result<(AuditReport, Vec<RowHead>), Diagnostic> {
    let json = shard.dir.join(files::LAB);
    // A device's audit is in its own folder of the shard: a path out of it could name any
    // audit at all.
    let inside = Path::new(named)
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    if !inside {
        return Err(tampered(
            &json,
            format!("device {serial}'s report `{named}` is not in the shard's folder"),
        ));
    }
    let path = shard.dir.join(named);
    let report = read_audit(&path, "E_MERGE_INVALID")?;
    let frozen = held_to_evidence(&path, &report, &MERGING)?;
    if frozen.lock.sha256 != pack {
        return Err(tampered(
            &path,
            format!(
                "it was judged by pack {}, its lab by {}",
                short(&frozen.lock.sha256),
                short(pack)
            ),
        ));
    }
    let audited = report.device.as_ref().map(|d| d.serial.as_str());
    if audited != Some(serial) {
        return Err(tampered(
            &path,
            format!(
                "it is the audit of {}, the lab names it device {serial}'s",
                audited.unwrap_or("no device")
            ),
        ));
    }
    Ok((report, RowHead::of(&frozen)))
}

/// Every audit in the shard's folder is one its `lab.json` names: a device left out of the
/// matrix is a device whose verdict was dropped.
fn all_listed(shard: &Shard) -> Result<(), Diagnostic> {
    let Ok(entries) = std::fs::read_dir(&shard.dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let audit = format!("{name}/{}", files::DEVICE_AUDIT);
        let listed = shard
            .report
            .devices
            .iter()
            .any(|d| d.report.as_deref() == Some(audit.as_str()));
        if !listed && entry.path().join(files::DEVICE_AUDIT).is_file() {
            return Err(tampered(
                &shard.dir.join(files::LAB),
                format!("the shard holds `{audit}`, which its matrix does not list"),
            ));
        }
    }
    Ok(())
}

/// A shard's device as a column of the matrix its audit makes.
fn column<'a>(device: &'a LabDevice, audit: &'a Option<(AuditReport, String)>) -> Column<'a> {
    Column {
        serial: &device.serial,
        server: device.server.clone(),
        outcome: match audit {
            Some((report, path)) => Ok((report, path.clone())),
            // Without an audit a device is no pass: what kept it from one, at its word.
            None => Err(device.error.clone().unwrap_or_default()),
        },
        absent: audit.is_none() && device.verdict == DeviceVerdict::NotMeasured,
    }
}

/// Where the shard's matrix differs from the one its audits make.
fn differences(given: &LabReport, rebuilt: &LabReport) -> Vec<String> {
    let mut found = Vec::new();
    for (said, made) in given.devices.iter().zip(&rebuilt.devices) {
        if said.fold != made.fold {
            found.push(format!(
                "device {} is `{}`, its audit found it `{}`",
                said.serial,
                said.fold.as_deref().unwrap_or("not folding"),
                made.fold.as_deref().unwrap_or("not folding")
            ));
        }
        if said.verdict != made.verdict {
            found.push(format!(
                "device {} is `{}`, its audit gives `{}`",
                said.serial,
                said.verdict.as_str(),
                made.verdict.as_str()
            ));
        }
    }
    for (said, made) in given.rows.iter().zip(&rebuilt.rows) {
        for ((result, remade), device) in said.results.iter().zip(&made.results).zip(&given.devices)
        {
            if result != remade {
                found.push(format!(
                    "{} on {} is `{}`, its audit gives `{}`",
                    said.criterion_id,
                    device.serial,
                    result.as_str(),
                    remade.as_str()
                ));
            }
        }
    }
    if given.verdict != rebuilt.verdict {
        found.push(format!(
            "the lab is `{}`, its devices give `{}`",
            given.verdict.as_str(),
            rebuilt.verdict.as_str()
        ));
    }
    found
}

/// The merged matrix and its JUnit XML; `out` is the existing folder they will be written to
/// (device report links are rewritten relative to it).
pub(crate) fn merge(dirs: &[PathBuf], out: &Path) -> Result<(LabReport, String), Diagnostic> {
    let shards = dirs
        .iter()
        .map(|d| load(d))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = shards.first().map(|s| &s.report) else {
        return Err(Diagnostic::error("E_MERGE_INVALID", "nothing to merge")
            .fix("pass two or more lab folders"));
    };
    let (pack, need) = (first.pack_sha256.clone(), first.need);
    // A device is a column once; a foldable audited folded in one shard and expanded in
    // another is a column each (the state its rebuilt audit read, once rebuilt below).
    let mut columns_seen: Vec<String> = Vec::new();
    for shard in &shards {
        joinable(shard, first)?;
        for device in &shard.report.devices {
            let column = device.name();
            if columns_seen.contains(&column) {
                return Err(Diagnostic::error(
                    "E_MERGE_DUPLICATE_DEVICE",
                    format!(
                        "device {column} is in more than one shard ({})",
                        shard.dir.join(files::LAB).display()
                    ),
                )
                .fix("give each shard its own devices (one foldable may be audited in each fold state, a shard each)"));
            }
            columns_seen.push(column);
        }
    }
    // Each device's audit, rebuilt; the criteria are its lock's (a lab none of whose devices
    // has an audit keeps its shards' rows, every cell of them without a report).
    let mut audits: Vec<Vec<Option<(AuditReport, String)>>> = Vec::new();
    let mut heads: Option<Vec<RowHead>> = None;
    for shard in &shards {
        let mut here = Vec::new();
        for device in &shard.report.devices {
            here.push(match &device.report {
                Some(named) => {
                    let (report, lock_heads) = audit_of(shard, &device.serial, named, &pack)?;
                    heads.get_or_insert(lock_heads);
                    Some((report, relative_to(&shard.dir.join(named), out)))
                }
                None => None,
            });
        }
        all_listed(shard)?;
        audits.push(here);
    }
    let heads = heads.unwrap_or_else(|| {
        first
            .rows
            .iter()
            .map(|r| RowHead {
                id: r.criterion_id.clone(),
                dimension: r.dimension.clone(),
                weight: r.weight.clone(),
            })
            .collect()
    });
    let mut columns: Vec<Column<'_>> = Vec::new();
    let mut unreachable: Vec<UnreachableServer> = Vec::new();
    for (shard, audits) in shards.iter().zip(&audits) {
        let mine: Vec<Column<'_>> = shard
            .report
            .devices
            .iter()
            .zip(audits)
            .map(|(device, audit)| column(device, audit))
            .collect();
        let rebuilt = LabReport::of(
            (&pack, &heads),
            &mine,
            shard.report.unreachable.clone(),
            need,
        );
        let found = differences(&shard.report, &rebuilt);
        if !found.is_empty() {
            let shown: Vec<&str> = found.iter().take(5).map(String::as_str).collect();
            return Err(tampered(
                &shard.dir.join(files::LAB),
                format!(
                    "it is not what its devices' audits give: {} difference(s): {}{}",
                    found.len(),
                    shown.join("; "),
                    if found.len() > shown.len() {
                        "; …"
                    } else {
                        ""
                    }
                ),
            ));
        }
        columns.extend(mine);
        unreachable.extend(shard.report.unreachable.iter().cloned());
    }
    let junit = junit_lab(&columns, &unreachable);
    let merged = LabReport::of((&pack, &heads), &columns, unreachable.clone(), need);
    Ok((merged, junit))
}
