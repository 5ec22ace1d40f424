//! One visit of a session on the device: its steps run in order, replies and pulled files
//! kept in the evidence folder.

use std::path::Path;

use crate::device::Device;
use crate::diagnostic::chain;
use crate::playbook::{READY, Step, Values};
use crate::shell::ShellValue;

use super::evidence::{Files, StepFailure};
use super::keep::{device_or_step, keep_file, pull};

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

fn name_kind(name: &str) -> &'static str {
    if name == "pid" { "pid" } else { "value" }
}
