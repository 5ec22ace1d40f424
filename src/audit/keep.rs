//! Keeping a visit's files as evidence: replies written under their evidence name, device
//! files pulled under a temporary name and renamed once whole, every file hashed for the
//! report; and which failures stop the audit (the device) and which only stop the visit (a
//! command on a healthy device).

use std::path::Path;

use crate::device::{Device, DeviceError, judge};
use crate::diagnostic::chain;
use crate::input::hash_file;
use crate::playbook::Values;

use super::error::AuditError;
use super::evidence::{Files, StepFailure};
use super::model::EvidenceFile;

/// Writes `bytes` as the visit's evidence file `name` in `dir`, and names it in `files`.
pub(super) fn keep_file(
    dir: &Path,
    files: &mut Files,
    name: &str,
    bytes: &[u8],
) -> Result<(), crate::output::WriteError> {
    let path = dir.join(name);
    crate::output::write_atomic(&path, bytes)?;
    files.insert(name.to_owned(), path);
    Ok(())
}

/// Keeps what the device said as the visit's evidence file `name`: a file that cannot be
/// written fails the step, with why.
pub(super) fn keep_said(
    dir: &Path,
    files: &mut Files,
    name: &str,
    said: &str,
) -> Result<(), StepFailure> {
    keep_file(dir, files, name, said.as_bytes())
        .map_err(|e| StepFailure::Step { reason: chain(&e) })
}

/// Pulls a device file into the evidence as `save`, under a temporary name first: hdc writes
/// the file itself, and an interrupted pull must not leave a half file under the evidence name.
pub(super) async fn pull(
    device: &impl Device,
    values: &Values,
    template: &str,
    save: &str,
    dir: &Path,
    files: &mut Files,
) -> Result<(), StepFailure> {
    let fail = |reason: String| StepFailure::Step { reason };
    let remote = values
        .remote_path(template)
        .map_err(|e| fail(e.to_string()))?;
    let path = dir.join(save);
    let partial = dir.join(format!(".{save}.partial"));
    // hdc writes the file itself, following a link: none may stand there.
    crate::lock_file::unplanted(&partial).map_err(|e| fail(e.to_string()))?;
    if let Err(e) = device.pull(&remote, &partial).await {
        let _ = std::fs::remove_file(&partial);
        return Err(device_or_step(e));
    }
    std::fs::rename(&partial, &path)
        .map_err(|e| fail(format!("cannot keep `{}`: {e}", path.display())))?;
    files.insert(save.to_owned(), path);
    Ok(())
}

/// Removes the device file `template` names before the step that writes it (`rm -f`).
pub(super) async fn remove_remote(
    device: &impl Device,
    values: &Values,
    template: &str,
) -> Result<(), StepFailure> {
    let fail = |reason: String| StepFailure::Step { reason };
    let remote = values
        .remote_path(template)
        .map_err(|e| fail(e.to_string()))?;
    judged(device, values, &format!("rm -f {}", remote.as_str()))
        .await
        .map(drop)
}

/// Keeps the device's clock (the boot clock hitrace stamps events with: the start of the `cat`
/// that reads `/proc/self/stat`, which the hdc shell may read on every release, unlike
/// `/proc/uptime`) as `name`, just before a trace begins: the trace pulled later must end
/// after it.
pub(super) async fn keep_clock(
    device: &impl Device,
    values: &Values,
    dir: &Path,
    files: &mut Files,
    name: &str,
) -> Result<(), StepFailure> {
    let clock = judged(device, values, crate::device::clock_command().as_str()).await?;
    keep_said(dir, files, name, &clock)
}

/// Runs the command `template` fills and returns its output; a reply its tool does not call
/// a success (its status, or its own failure text: `aa` and uitest print theirs with
/// status 0) fails the step, naming the command.
pub(super) async fn judged(
    device: &impl Device,
    values: &Values,
    template: &str,
) -> Result<String, StepFailure> {
    let fail = |reason: String| StepFailure::Step { reason };
    let command = values.command(template).map_err(|e| fail(e.to_string()))?;
    let reply = device.shell(&command).await.map_err(device_or_step)?;
    judge(command.as_str(), &reply).map_err(|r| fail(format!("`{command}` {r}")))?;
    Ok(reply.output)
}

/// Device-level failures stop the audit; a command that failed on a healthy device only
/// leaves its criteria unverified.
pub(super) fn device_or_step(error: DeviceError) -> StepFailure {
    match error {
        DeviceError::HdcFailed { .. }
        | DeviceError::Transfer { .. }
        | DeviceError::App { .. }
        | DeviceError::Capture(_) => StepFailure::Step {
            reason: chain(&error),
        },
        other => StepFailure::Device(other),
    }
}

/// Every file of a session with its SHA-256, paths relative to the audit's folder.
pub(super) fn hash_files(files: &Files, out: &Path) -> Result<Vec<EvidenceFile>, AuditError> {
    files
        .values()
        .map(|path| {
            let sha256 =
                hash_file(path, "an evidence file").map_err(|source| AuditError::Evidence {
                    path: path.clone(),
                    source,
                })?;
            Ok(EvidenceFile {
                path: relative(path, out),
                sha256,
            })
        })
        .collect()
}

/// `path` relative to `base` (as is when it is not under it).
pub(super) fn relative(path: &Path, base: &Path) -> String {
    crate::text::doc_path(path.strip_prefix(base).unwrap_or(path))
}
