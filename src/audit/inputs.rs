//! What an audit is measured with, kept as evidence under `evidence/<device>/` beside the
//! readings: who the device said it was (`device.yaml`), the playbooks it ran (`playbooks/`),
//! an outside auditor's report (`auditor-report.json`), a copy of the lock (`pack.lock.json`),
//! and, once it ended, where its readings came from (`source.json`) and when it held the
//! device under which run's name (`times.json`). The audit writes them;
//! `verify-evidence` reads them back, so the report is rebuilt from files alone wherever its
//! folder travels.

use std::path::Path;

use crate::device::{Device, DeviceInfo, Source};
use crate::diagnostic::{Diagnostic, chain};
use crate::gate::{CheckInput, parse_auditor_report};
use crate::hash::sha256_hex;
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::output::write_atomic;
use crate::playbook::Playbooks;

use super::error::AuditError;
use super::keep::relative;
use super::model::{EvidenceFile, Inputs, Times};
use super::plan::AuditSpec;
use super::state::{DeviceState, DeviceStates};

const DEVICE: &str = "device.yaml";
const PLAYBOOKS: &str = "playbooks";
const AUDITOR: &str = "auditor-report.json";
const LOCK: &str = crate::pack::LOCK_FILE;
const SOURCE: &str = super::evidence::SOURCE_RECORD;
const TIMES: &str = "times.json";

/// Asks the device for its state and keeps the reply as the evidence file `name` in the
/// device's folder `root`.
pub(super) async fn read_state(
    device: &impl Device,
    root: &Path,
    out: &Path,
    name: &str,
) -> Result<(EvidenceFile, DeviceState), AuditError> {
    let reply = device
        .shell(&crate::device::state_command())
        .await
        .map_err(|source| AuditError::Device { run: 0, source })?;
    let file = write(root, out, name, reply.output.as_bytes())?;
    Ok((file, super::state::parse(&reply.output)))
}

/// Writes `bytes` as the evidence file `name` in `root`, named relative to `out`.
pub(super) fn write(
    root: &Path,
    out: &Path,
    name: &str,
    bytes: &[u8],
) -> Result<EvidenceFile, AuditError> {
    let path = root.join(name);
    write_atomic(&path, bytes).map_err(|e| AuditError::Keep {
        path: e.path,
        source: e.source,
    })?;
    Ok(EvidenceFile {
        path: relative(&path, out),
        sha256: sha256_hex(bytes),
    })
}

/// Writes the inputs of an audit into its device's evidence folder `root` (paths recorded
/// relative to `out`, the audit's folder).
pub(super) fn keep(
    root: &Path,
    out: &Path,
    info: &DeviceInfo,
    spec: &AuditSpec<'_>,
) -> Result<Inputs, AuditError> {
    let write = |name: &str, bytes: &[u8]| write(root, out, name, bytes);
    let identity = serde_saphyr::to_string(info).map_err(|e| AuditError::Keep {
        path: root.join(DEVICE),
        source: std::io::Error::other(e),
    })?;
    let device = write(DEVICE, identity.as_bytes())?;
    let mut files: Vec<&(String, String)> = spec.playbooks.files.iter().collect();
    files.sort();
    let playbooks = files
        .into_iter()
        .map(|(name, text)| write(&format!("{PLAYBOOKS}/{name}"), text.as_bytes()))
        .collect::<Result<_, _>>()?;
    let auditor_report = spec
        .auditor
        .map(|auditor| write(AUDITOR, &auditor.bytes))
        .transpose()?;
    let lock = match spec.frozen {
        Some(frozen) => {
            // The lock and its spec, as `freeze` writes them; the lock is hashed as evidence.
            let (lock, _spec) = frozen.write(root).map_err(|e| AuditError::Keep {
                path: root.join(LOCK),
                source: std::io::Error::other(chain(&e)),
            })?;
            let bytes = std::fs::read(&lock).map_err(|source| AuditError::Keep {
                path: lock.clone(),
                source,
            })?;
            Some(EvidenceFile {
                path: relative(&lock, out),
                sha256: sha256_hex(&bytes),
            })
        }
        None => None,
    };
    Ok(Inputs {
        device,
        playbooks,
        auditor_report,
        runs: spec.runs,
        strict: spec.strict,
        installed: spec.installed.to_vec(),
        lock,
        source: None,
        state_before: None,
        state_after: None,
        times: None,
        require: spec.require.clone(),
    })
}

/// Keeps when the audit held its device, and its run's name, once it ended.
pub(super) fn keep_times(
    root: &Path,
    out: &Path,
    times: &Times,
) -> Result<EvidenceFile, AuditError> {
    let json = serde_json::to_string_pretty(times).expect("times always serialize") + "\n";
    write(root, out, TIMES, json.as_bytes())
}

/// Keeps where the readings came from, once the audit ended, in its device's evidence folder.
pub(super) fn keep_source(
    root: &Path,
    out: &Path,
    source: &Source,
) -> Result<EvidenceFile, AuditError> {
    let json = serde_json::to_string_pretty(source).expect("a source always serializes") + "\n";
    write(root, out, SOURCE, json.as_bytes())
}

/// The inputs an audit kept, read back.
pub(super) struct Kept {
    /// Who the device said it was.
    pub(super) info: DeviceInfo,
    /// The playbooks it ran.
    pub(super) playbooks: Playbooks,
    /// The outside auditor's checks.
    pub(super) auditor: Vec<CheckInput>,
    /// The files, hashed now, with the recorded facts of `recorded`.
    pub(super) inputs: Inputs,
    /// Where the readings came from, as kept (audits before format 4 kept no record).
    pub(super) source: Option<Source>,
    /// The device's state, as kept (audits before it was read kept none).
    pub(super) states: Option<DeviceStates>,
    /// When it held the device, as kept (audits before they were kept, none).
    pub(super) times: Option<Times>,
}

/// Reads back the inputs kept in `root` (paths relative to `out`); `recorded` gives the
/// facts no file holds (`--runs`, `--strict`).
pub(super) fn read_kept(root: &Path, out: &Path, recorded: &Inputs) -> Result<Kept, Diagnostic> {
    let unreadable = |path: &Path, why: String| {
        Diagnostic::error(
            "E_EVIDENCE_MISSING",
            format!("`{}` cannot be read: {why}", path.display()),
        )
        .fix("verify the audit folder as `dwpipe audit` wrote it")
    };
    let read = |path: &Path| -> Result<(EvidenceFile, Vec<u8>), Diagnostic> {
        inside(path, out)?;
        let bytes = read_bounded(path, MAX_REPORT_BYTES, "evidence")
            .map_err(|e| unreadable(path, chain(&e)))?;
        let file = EvidenceFile {
            path: relative(path, out),
            sha256: sha256_hex(&bytes),
        };
        Ok((file, bytes))
    };
    let device_path = root.join(DEVICE);
    let (device, bytes) = read(&device_path)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| unreadable(&device_path, "it is not UTF-8".to_owned()))?;
    let info: DeviceInfo = crate::input::parse_yaml(&device_path, &text)?;
    let dir = root.join(PLAYBOOKS);
    let mut playbooks = Vec::new();
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let entry = entry.map_err(|e| unreadable(&dir, e.to_string()))?;
        if entry.file_type().is_dir() {
            continue;
        }
        playbooks.push(read(entry.path())?.0);
    }
    playbooks.sort_by(|a, b| a.path.cmp(&b.path));
    let auditor_path = root.join(AUDITOR);
    let (auditor_report, auditor) = if auditor_path.exists() || recorded.auditor_report.is_some() {
        let (file, bytes) = read(&auditor_path)?;
        let checks = parse_auditor_report(&auditor_path, bytes)?.report.checks();
        (Some(file), checks)
    } else {
        (None, Vec::new())
    };
    // The lock copy and the source record: read when the audit kept them (or the folder
    // holds them now), so one added or taken away is a difference too.
    let optional =
        |name: &str, recorded: bool| -> Result<Option<(EvidenceFile, Vec<u8>)>, Diagnostic> {
            let path = root.join(name);
            if recorded || path.exists() {
                read(&path).map(Some)
            } else {
                Ok(None)
            }
        };
    let lock = optional(LOCK, recorded.lock.is_some())?.map(|(file, _)| file);
    let (source_file, source) = match optional(SOURCE, recorded.source.is_some())? {
        Some((file, bytes)) => {
            let path = root.join(SOURCE);
            let text = String::from_utf8(bytes)
                .map_err(|_| unreadable(&path, "it is not UTF-8".to_owned()))?;
            let source: Source = crate::input::parse_json(&path, &text)?;
            (Some(file), Some(source))
        }
        None => (None, None),
    };
    let (times_file, times) = match optional(TIMES, recorded.times.is_some())? {
        Some((file, bytes)) => {
            let path = root.join(TIMES);
            let text = String::from_utf8(bytes)
                .map_err(|_| unreadable(&path, "it is not UTF-8".to_owned()))?;
            let times: Times = crate::input::parse_json(&path, &text)?;
            (Some(file), Some(times))
        }
        None => (None, None),
    };
    let state = |name: &str, recorded: bool| -> Result<_, Diagnostic> {
        Ok(match optional(name, recorded)? {
            Some((file, bytes)) => (
                Some(file),
                Some(super::state::parse(&String::from_utf8_lossy(&bytes))),
            ),
            None => (None, None),
        })
    };
    let (state_before, before) = state(super::state::BEFORE, recorded.state_before.is_some())?;
    let (state_after, after) = state(super::state::AFTER, recorded.state_after.is_some())?;
    let states = before.map(|before| DeviceStates {
        before,
        after,
        ..DeviceStates::default()
    });
    Ok(Kept {
        info,
        playbooks: Playbooks::load_kept(&dir)?,
        auditor,
        inputs: Inputs {
            device,
            playbooks,
            auditor_report,
            runs: recorded.runs,
            strict: recorded.strict,
            installed: recorded.installed.clone(),
            lock,
            source: source_file,
            state_before,
            state_after,
            times: times_file,
            require: recorded.require.clone(),
        },
        source,
        states,
        times,
    })
}

/// Refuses a file that is a symlink or resolves outside the audit folder `out`.
pub(super) fn inside(path: &Path, out: &Path) -> Result<(), Diagnostic> {
    let escapes = Diagnostic::error(
        "E_EVIDENCE_PATH_ESCAPE",
        format!("`{}` leaves the audit folder", path.display()),
    )
    .fix("evidence is read only from inside the audit's folder, as `dwpipe audit` wrote it");
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match (std::fs::canonicalize(path), std::fs::canonicalize(out)) {
        _ if is_link => Err(escapes),
        (Ok(real), Ok(base)) if !real.starts_with(&base) => Err(escapes),
        _ => Ok(()),
    }
}
