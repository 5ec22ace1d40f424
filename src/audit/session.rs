//! One visit of a session on the device: its steps run in order, replies and pulled files
//! saved into the evidence folder (pulled files under a temporary name first), and the files
//! hashed for the report.

use std::path::Path;

use crate::device::{Device, DeviceError};
use crate::diagnostic::chain;
use crate::input::hash_file;
use crate::playbook::{READY, Step, Values};
use crate::shell::ShellValue;

use super::extract::Files;
use super::model::{AuditError, EvidenceFile};

/// Why a session stopped: the device itself, or one step on a healthy device.
pub(super) enum StepFailure {
    /// The device failed: the audit stops.
    Device(DeviceError),
    /// A step failed: the files gathered before it are kept, the probes that needed more are
    /// unverified with the reason.
    Step { reason: String },
}

/// Runs session steps, saving replies and pulled files into `dir` and naming them in `files`.
pub(super) async fn gather<'s>(
    device: &impl Device,
    steps: impl IntoIterator<Item = &'s Step>,
    values: &mut Values,
    dir: &Path,
    files: &mut Files,
) -> Result<(), StepFailure> {
    std::fs::create_dir_all(dir).map_err(|e| StepFailure::Step {
        reason: format!("cannot create `{}`: {e}", dir.display()),
    })?;
    for step in steps {
        let fail = |reason: String| StepFailure::Step { reason };
        match step {
            Step::Sleep(duration) => device.pause(*duration).await.map_err(device_or_step)?,
            Step::Ready { within } => {
                super::ready::window(device, values, *within, dir, READY, files).await?;
            }
            Step::Shell {
                template,
                save,
                set,
            } => {
                let command = values.command(template).map_err(|e| fail(e.to_string()))?;
                let reply = device.shell(&command).await.map_err(device_or_step)?;
                if let Some(name) = save {
                    keep_file(dir, files, name, reply.output.as_bytes())
                        .map_err(|e| fail(chain(&e)))?;
                }
                if reply.status != 0 {
                    return Err(fail(format!(
                        "`{command}` exited {}: {}",
                        reply.status,
                        reply.output.lines().next().unwrap_or("")
                    )));
                }
                if let Some(name) = set {
                    let value = ShellValue::number(name_kind(name), &reply.output)
                        .map_err(|e| fail(e.to_string()))?;
                    values.set(name, value);
                }
            }
            Step::Screenshot { save } => {
                // uitest writes a PNG (snapshot_display's default is JPEG, which blurs edges).
                let remote = format!("/data/local/tmp/dwpipe-{{run}}-{save}");
                let command = values
                    .command(&format!("uitest screenCap -p {remote}"))
                    .map_err(|e| fail(e.to_string()))?;
                let reply = device.shell(&command).await.map_err(device_or_step)?;
                if reply.status != 0 {
                    return Err(fail(format!("`{command}` exited {}", reply.status)));
                }
                pull(device, values, &remote, save, dir, files).await?;
            }
            Step::Pull { template, save } => {
                pull(device, values, template, save, dir, files).await?;
            }
        }
    }
    Ok(())
}

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
    if let Err(e) = device.pull(&remote, &partial).await {
        let _ = std::fs::remove_file(&partial);
        return Err(device_or_step(e));
    }
    std::fs::rename(&partial, &path)
        .map_err(|e| fail(format!("cannot keep `{}`: {e}", path.display())))?;
    files.insert(save.to_owned(), path);
    Ok(())
}

fn name_kind(name: &str) -> &'static str {
    if name == "pid" { "pid" } else { "value" }
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
    path.strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}
