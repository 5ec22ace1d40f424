//! One visit of a session on the device: its steps run in order, replies and pulled files
//! kept in the evidence folder.

use std::path::Path;
use std::time::Duration;

use crate::device::{Device, DeviceError, judge};
use crate::diagnostic::chain;
use crate::playbook::{READY, Step, Values};
use crate::shell::{ShellCommand, ShellValue};

use super::evidence::{Files, StepFailure};
use super::extract::clock_file;
use super::gesture;
use super::keep::{device_or_step, judged, keep_clock, keep_file, pull, remove_remote};

/// Runs session steps, saving replies and pulled files into `dir` and naming them in `files`.
pub(super) async fn gather<'s>(
    device: &impl Device,
    steps: impl IntoIterator<Item = &'s Step>,
    values: &mut Values,
    dir: &Path,
    files: &mut Files,
    placed: Option<&str>,
) -> Result<(), StepFailure> {
    std::fs::create_dir_all(dir).map_err(|e| StepFailure::Step {
        reason: format!("cannot create `{}`: {e}", dir.display()),
    })?;
    let steps: Vec<&Step> = steps.into_iter().collect();
    // What the visit pulls is removed from the device first, before any traced window: the
    // tools reuse a path without truncating it, and `hitrace --trace_finish -o` exits 0
    // having written nothing, so an earlier audit's file could be pulled as this one's.
    for remote in pulled(&steps) {
        remove_remote(device, values, remote).await?;
    }
    for (index, step) in steps.iter().enumerate() {
        let fail = |reason: String| StepFailure::Step { reason };
        let later = &steps[index + 1..];
        match step {
            Step::Sleep(duration) => device.pause(*duration).await.map_err(device_or_step)?,
            Step::Ready { within } => {
                super::ready::window(device, values, *within, dir, READY, files).await?;
            }
            Step::Shell {
                template,
                save,
                set,
                within,
            } => {
                if gesture::uses(template) && !files.contains_key(gesture::FILE) {
                    let said = placed.ok_or_else(|| fail(gesture::UNKNOWN.to_owned()))?;
                    keep_file(dir, files, gesture::FILE, said.as_bytes())
                        .map_err(|e| fail(chain(&e)))?;
                }
                if let Some(trace) = traced(later).filter(|_| template.contains("--trace_begin")) {
                    keep_clock(device, values, dir, files, &clock_file(trace)).await?;
                }
                let command = values.command(template).map_err(|e| fail(e.to_string()))?;
                let reply = match within {
                    None => device.shell(&command).await,
                    Some(limit) => match device.shell_limited(&command, *limit).await {
                        Err(DeviceError::Timeout { .. }) => {
                            return Err(fail(stop_overrun(device, values, &command, *limit).await));
                        }
                        other => other,
                    },
                }
                .map_err(device_or_step)?;
                if let Some(name) = save {
                    keep_file(dir, files, name, reply.output.as_bytes())
                        .map_err(|e| fail(chain(&e)))?;
                }
                judge(command.as_str(), &reply).map_err(|r| fail(format!("`{command}` {r}")))?;
                if let Some(name) = set {
                    let value = ShellValue::number(name_kind(name), &reply.output)
                        .map_err(|e| fail(e.to_string()))?;
                    values.set(name, value);
                }
            }
            Step::Screenshot { save } => {
                // uitest writes a PNG (snapshot_display's default is JPEG, which blurs edges).
                let remote = format!("/data/local/tmp/dwpipe-{{run}}-{save}");
                remove_remote(device, values, &remote).await?;
                judged(device, values, &format!("uitest screenCap -p {remote}")).await?;
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

/// The device paths the `steps` pull.
fn pulled<'a>(steps: &'a [&'a Step]) -> impl Iterator<Item = &'a str> {
    steps.iter().filter_map(|step| match step {
        Step::Pull { template, .. } => Some(template.as_str()),
        _ => None,
    })
}

/// The evidence name of the next trace the `steps` pull.
fn traced<'a>(steps: &'a [&'a Step]) -> Option<&'a str> {
    steps.iter().find_map(|step| match step {
        Step::Pull { save, .. } if save.ends_with(".ftrace") => Some(save.as_str()),
        _ => None,
    })
}

/// A command ran past its own limit (a test suite that never ends): the app it runs in is
/// stopped on the device too, where it would run on otherwise, and the step fails saying so.
async fn stop_overrun(
    device: &impl Device,
    values: &Values,
    command: &ShellCommand,
    limit: Duration,
) -> String {
    let overran = format!("`{command}` ran past its limit of {} s", limit.as_secs());
    let stopped = match values.command(STOP_APP) {
        Ok(stop) => match device.shell(&stop).await {
            Ok(reply) => match judge(stop.as_str(), &reply) {
                Ok(()) => format!("stopped on the device (`{stop}`)"),
                Err(refusal) => format!("`{stop}` {refusal}: it may still run on the device"),
            },
            Err(e) => format!(
                "`{stop}` failed ({}): it may still run on the device",
                chain(&e)
            ),
        },
        Err(e) => format!("not stopped: {e}"),
    };
    format!("{overran}; {stopped}")
}

/// Stops the app, and with it a test run inside its process.
const STOP_APP: &str = "aa force-stop {bundle}";
