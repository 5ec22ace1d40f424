//! The trace level threshold of OpenHarmony 6.0 and later (API 20+): `hitrace --trace_level`
//! persists `persist.hitrace.level.threshold` (Info by default, `hitrace.para`), and markers
//! below it are never written — an app's Debug trace points would be missing from every trace,
//! read as "not in the trace". Before each trace dwpipe reads it (`hitrace --get_level`), lowers
//! it to Debug for the trace when it is above, and sets it back after; what was said is kept
//! beside the trace (`<trace>.level`). A threshold that cannot be read or lowered stops the
//! visit with hitrace's words: its traces' readings are unverified, never read from a trace
//! that may lack markers. (hitrace_cmd.cpp, `GetTraceLevel`/`SetTraceLevel`, 6.0-Release.)

use std::path::Path;

use crate::device::Device;
use crate::playbook::Values;

use super::evidence::{Files, LEVEL_FIRST_API, StepFailure, level_file};
use super::keep::{device_or_step, keep_said};

/// The levels, as `--get_level` names them and `--trace_level` takes them.
const LEVELS: [(&str, &str); 4] = [
    ("Debug", "D"),
    ("Info", "I"),
    ("Critical", "C"),
    ("Commercial", "M"),
];

/// A threshold lowered for one trace: the level to set back.
#[derive(Debug)]
pub(super) struct Lowered {
    letter: &'static str,
    name: &'static str,
    file: String,
    said: String,
}

/// Reads the threshold before the trace `trace` on a phone of `api_level`, and lowers it to
/// Debug when it is above; keeps what was said as `<trace>.level`. `None`: nothing to set back
/// (a release before 6.0, or already Debug).
pub(super) async fn lower(
    device: &impl Device,
    (dir, files): (&Path, &mut Files),
    api_level: Option<u32>,
    trace: &str,
) -> Result<Option<Lowered>, StepFailure> {
    if api_level.is_none_or(|api| api < LEVEL_FIRST_API) {
        return Ok(None);
    }
    let fail = |reason: String| StepFailure::Step { reason };
    let file = level_file(trace);
    let asked = shell(device, "hitrace --get_level").await?;
    let Some((name, letter)) = threshold(&asked) else {
        return Err(fail(format!(
            "`hitrace --get_level` did not say the trace level threshold (`{}`): on OpenHarmony 6.0 and later, markers below it are not written, so the trace cannot be read",
            crate::text::one_line(&asked, 160)
        )));
    };
    let mut said = format!("$ hitrace --get_level\n{asked}");
    if letter == "D" {
        keep_said(dir, files, &file, &said)?;
        return Ok(None);
    }
    let set = shell(device, "hitrace --trace_level D").await?;
    said.push_str("$ hitrace --trace_level D\n");
    said.push_str(&set);
    keep_said(dir, files, &file, &said)?;
    if !set.contains("success to set trace level") {
        return Err(fail(format!(
            "the trace level threshold is {name} and could not be lowered to Debug (`{}`): markers below {name} would be missing from the trace",
            crate::text::one_line(&set, 160)
        )));
    }
    Ok(Some(Lowered {
        letter,
        name,
        file,
        said,
    }))
}

/// Sets the threshold back after its trace, and says so beside the trace.
pub(super) async fn restore(
    device: &impl Device,
    (dir, files): (&Path, &mut Files),
    lowered: Lowered,
) -> Result<(), StepFailure> {
    let command = format!("hitrace --trace_level {}", lowered.letter);
    let set = shell(device, &command).await?;
    let mut said = lowered.said;
    said.push_str("$ ");
    said.push_str(&command);
    said.push('\n');
    said.push_str(&set);
    keep_said(dir, files, &lowered.file, &said)?;
    if set.contains("success to set trace level") {
        Ok(())
    } else {
        Err(StepFailure::Step {
            reason: format!(
                "the trace level threshold could not be set back to {} after the trace (`{}`): the phone is left at Debug",
                lowered.name,
                crate::text::one_line(&set, 160)
            ),
        })
    }
}

/// The threshold `--get_level` printed: `2026/12/06 10:00:00 the current trace level threshold
/// is Info` → (`Info`, `I`).
fn threshold(said: &str) -> Option<(&'static str, &'static str)> {
    let (_, after) = said.split_once("the current trace level threshold is ")?;
    let word = after.split_whitespace().next()?;
    LEVELS.iter().copied().find(|(name, _)| *name == word)
}

/// What the device printed; the tool is judged by its words, never its status.
async fn shell(device: &impl Device, command: &str) -> Result<String, StepFailure> {
    let command = Values::default()
        .command(command)
        .map_err(|e| StepFailure::Step {
            reason: e.to_string(),
        })?;
    let reply = device.shell(&command).await.map_err(device_or_step)?;
    Ok(reply.output)
}

#[cfg(test)]
mod tests;
