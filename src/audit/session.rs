//! One visit of a session on the device: its steps run in order, replies and pulled files
//! kept in the evidence folder.

use std::path::Path;
use std::time::Duration;

use crate::device::{Device, DeviceError, judge};
use crate::diagnostic::chain;
use crate::playbook::{READY, Step, Values};
use crate::shell::{ShellCommand, ShellValue};

use super::capture::{Capture, Pairing, Shot, both, capture};
use super::evidence::{Files, StepFailure};
use super::extract::clock_file;
use super::flow::EndedOn;
use super::gesture;
use super::keep::{device_or_step, keep_clock, keep_file, pull, remove_remote};
use super::window::Windows;

/// What a session's visit knows besides its steps.
#[derive(Clone, Copy)]
pub(super) struct Around<'x> {
    /// Whether the device still takes a screenshot and a dump side by side.
    pub(super) pairing: &'x Pairing,
    /// Where the scroll's swipes go, in words, when the display's size is known.
    pub(super) placed: Option<&'x str>,
    /// After a flow, what the flow kept of the screen it ended on: a screenshot or dump step
    /// takes the flow's own (copied under the step's name) rather than capturing the same
    /// screen again.
    pub(super) ended_on: Option<&'x EndedOn>,
    /// How long a wait inside a trace lasts, from what earlier runs showed (its ceiling, the
    /// playbook's `sleep`, otherwise).
    pub(super) windows: Option<&'x Windows>,
    /// The phone's API level: from 6.0 a trace's level threshold is read and lowered.
    pub(super) api_level: Option<u32>,
}

/// Runs session steps, saving replies and pulled files into `dir` and naming them in `files`.
/// A trace level threshold lowered for a trace (6.0+) is set back however the steps end.
pub(super) async fn gather<'s>(
    device: &impl Device,
    steps: impl IntoIterator<Item = &'s Step>,
    values: &mut Values,
    dir: &Path,
    files: &mut Files,
    around: Around<'_>,
) -> Result<(), StepFailure> {
    let mut lowered = None;
    let gathered = gather_steps(
        device,
        steps,
        values,
        (dir, &mut *files),
        around,
        &mut lowered,
    )
    .await;
    match lowered {
        Some(lowered) => {
            let restored = super::trace_level::restore(device, (dir, files), lowered).await;
            gathered.and(restored)
        }
        None => gathered,
    }
}

async fn gather_steps<'s>(
    device: &impl Device,
    steps: impl IntoIterator<Item = &'s Step>,
    values: &mut Values,
    (dir, files): (&Path, &mut Files),
    around: Around<'_>,
    lowered: &mut Option<super::trace_level::Lowered>,
) -> Result<(), StepFailure> {
    let Around {
        pairing,
        placed,
        ended_on,
        windows,
        api_level,
    } = around;
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
    // Between `--trace_begin` and `--trace_finish`: a `sleep` there is the window's ceiling.
    let mut tracing = false;
    // The capture step taken together with the one before it.
    let mut paired = false;
    for (index, step) in steps.iter().enumerate() {
        let fail = |reason: String| StepFailure::Step { reason };
        let later = &steps[index + 1..];
        step.follow_trace(&mut tracing);
        match step {
            Step::Sleep(ceiling) => {
                let wait = match windows {
                    Some(windows) if tracing => windows.session_wait(*ceiling),
                    _ => *ceiling,
                };
                device.pause(wait).await.map_err(device_or_step)?;
            }
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
                    *lowered =
                        super::trace_level::lower(device, (dir, &mut *files), api_level, trace)
                            .await?;
                    keep_clock(device, values, dir, files, &clock_file(trace)).await?;
                }
                let command = values.command(template).map_err(|e| fail(e.to_string()))?;
                let reply = shell_within(device, values, &command, *within).await?;
                if let Some(name) = save {
                    keep_file(dir, files, name, reply.output.as_bytes())
                        .map_err(|e| fail(chain(&e)))?;
                }
                judge(command.as_str(), &reply).map_err(|r| fail(format!("`{command}` {r}")))?;
                if template.contains("--trace_finish")
                    && let Some(done) = lowered.take()
                {
                    super::trace_level::restore(device, (dir, &mut *files), done).await?;
                }
                if let Some(name) = set {
                    let value = ShellValue::number(name_kind(name), &reply.output)
                        .map_err(|e| fail(e.to_string()))?;
                    values.set(name, value);
                }
            }
            Step::Screenshot { .. } | Step::Dump { .. } => {
                if std::mem::take(&mut paired) {
                    continue;
                }
                match Capturing::of(step, ended_on, api_level) {
                    Some(Capturing::Reused { kept, save }) => reuse(files, kept, save, dir)?,
                    Some(Capturing::Taken(one)) => {
                        // A dump and a screenshot one after the other are of one screen: taken
                        // side by side.
                        let next = later.first();
                        match next.and_then(|s| Capturing::of(s, ended_on, api_level)) {
                            Some(Capturing::Taken(other)) if other.shot != one.shot => {
                                paired = true;
                                let (screen, layout) = if one.shot == Shot::Screen {
                                    (one, other)
                                } else {
                                    (other, one)
                                };
                                let pair = (&screen, &layout);
                                both(device, values, pairing, pair, dir, files).await?;
                            }
                            _ => capture(device, values, &one, dir, files).await?,
                        }
                    }
                    None => {}
                }
            }
            Step::Pull { template, save } => {
                pull(device, values, template, save, dir, files).await?;
            }
        }
    }
    Ok(())
}

/// What a screenshot or dump step of a session does.
enum Capturing<'s> {
    /// Takes it on the device.
    Taken(Capture<'s>),
    /// Keeps the flow's own capture `kept` of the screen it ended on as `save`.
    Reused { kept: &'s str, save: &'s str },
}

impl<'s> Capturing<'s> {
    /// What `step` does on a phone of `api_level`, if it is a capture.
    fn of(
        step: &'s Step,
        ended_on: Option<&'s EndedOn>,
        api_level: Option<u32>,
    ) -> Option<Capturing<'s>> {
        let (shot, save, kept) = match step {
            Step::Screenshot { save } => (
                Shot::Screen,
                save,
                ended_on.and_then(|e| e.screen.as_deref()),
            ),
            Step::Dump { save } => (
                Shot::Layout,
                save,
                ended_on.and_then(|e| e.layout.as_deref()),
            ),
            _ => return None,
        };
        Some(match kept {
            Some(kept) => Capturing::Reused { kept, save },
            None => Capturing::Taken(Capture {
                shot,
                remote: format!("/data/local/tmp/dwpipe-{{run}}-{save}"),
                save,
                named: Capture::names_window(api_level),
            }),
        })
    }
}

/// Keeps the flow's capture `kept` again as `save`: a file of its own, so every reader finds
/// the session's evidence under the session's names (copied on disk, whatever its size, under
/// a temporary name first, as a pull is).
fn reuse(files: &mut Files, kept: &str, save: &str, dir: &Path) -> Result<(), StepFailure> {
    let fail = |reason: String| StepFailure::Step { reason };
    let from = files
        .get(kept)
        .ok_or_else(|| fail(format!("the flow kept no `{kept}`")))?;
    let path = dir.join(save);
    let partial = dir.join(format!(".{save}.partial"));
    crate::lock_file::unplanted(&partial).map_err(|e| fail(e.to_string()))?;
    std::fs::copy(from, &partial)
        .and_then(|_| std::fs::rename(&partial, &path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            fail(format!(
                "cannot keep `{}` as `{}`: {e}",
                from.display(),
                path.display()
            ))
        })?;
    files.insert(save.to_owned(), path);
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

/// Runs a shell step's command, within its own limit when it has one.
async fn shell_within(
    device: &impl Device,
    values: &Values,
    command: &ShellCommand,
    within: Option<Duration>,
) -> Result<crate::device::ShellReply, StepFailure> {
    match within {
        None => device.shell(command).await,
        Some(limit) => match device.shell_limited(command, limit).await {
            Err(DeviceError::Timeout { .. }) => {
                return Err(StepFailure::Step {
                    reason: stop_overrun(device, values, command, limit).await,
                });
            }
            other => other,
        },
    }
    .map_err(device_or_step)
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
