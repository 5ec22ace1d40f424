//! From a step as written to a typed [`FlowStep`]: exactly one action, selectors parsed,
//! durations bounded, keys known, input text held to what can be typed in single quotes; and
//! every flow of a pack, with what does not validate and where.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_saphyr::Spanned;

use crate::input::parse_duration;
use crate::pack::selector::Selector;
use crate::shell::ShellValue;

use super::doc::{FlowStepDoc, SwipeDoc, WaitDoc};
use super::{Action, Direction, Flow, FlowStep, Gesture, Key, Launch, SwipePath, Tap};

/// How long a wait looks for its node unless the step says otherwise.
pub(super) const DEFAULT_WAIT: Duration = Duration::from_secs(5);
/// How long a launch lets the app come up, and a traced step lets the screen settle inside
/// its trace: a fixed wait, because polling the device inside a measured window would load it.
const DEFAULT_SETTLE: Duration = Duration::from_secs(2);
/// Swipes `scroll-until` makes before giving up, unless it says.
const DEFAULT_MAX_SWIPES: u32 = 5;
/// The longest text an `input` step types.
const MAX_INPUT_CHARS: usize = 200;
/// The most steps a flow may have (each one holds the device for a dump, an input and a
/// screenshot).
pub(super) const MAX_STEPS: usize = 100;
/// The longest wait a step may ask for.
const MAX_TIMEOUT: Duration = Duration::from_secs(120);

/// Why a step does not validate: what is wrong and the fix.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct StepError {
    pub(crate) message: String,
    pub(crate) fix: &'static str,
}

fn error(message: impl Into<String>, fix: &'static str) -> StepError {
    StepError {
        message: message.into(),
        fix,
    }
}

/// A flow name: lower-case letters, digits and `-`, so it can name an evidence folder.
pub(crate) fn valid_flow_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 48
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn selector(key: &str, text: &str) -> Result<Selector, StepError> {
    Selector::parse(text).map_err(|e| {
        error(
            format!("`{key}`: {e}"),
            "write a selector like \"id:note_item_1\", \"text:Save\" or \"type:Button[2]\"",
        )
    })
}

fn duration(key: &str, text: &str) -> Result<Duration, StepError> {
    let d = parse_duration(text)
        .map_err(|e| error(format!("`{key}`: {e}"), "write it like 5s or 500ms"))?;
    if d > MAX_TIMEOUT {
        return Err(error(
            format!("`{key}: {text}` is longer than {} s", MAX_TIMEOUT.as_secs()),
            "a flow step waits at most two minutes",
        ));
    }
    Ok(d)
}

fn direction(text: Option<&str>) -> Result<Direction, StepError> {
    let text = text.unwrap_or("up");
    Direction::parse(text).ok_or_else(|| {
        error(
            format!(
                "`direction: {text}` is not one of {}",
                Direction::WORDS.join(", ")
            ),
            "say which way the finger moves: up, down, left or right",
        )
    })
}

/// `300vp` → 300.
fn distance(text: &str) -> Result<f64, StepError> {
    text.strip_suffix("vp")
        .and_then(|n| n.trim().parse::<f64>().ok())
        .filter(|n| n.is_finite() && *n > 0.0 && *n <= 10_000.0)
        .ok_or_else(|| {
            error(
                format!("`distance: {text}` is not a length in vp"),
                "write it like 300vp",
            )
        })
}

/// Validates one step. `first` says whether it is the flow's first.
pub(crate) fn step(doc: &FlowStepDoc, first: bool) -> Result<FlowStep, StepError> {
    one_action(doc)?;
    let (action, wait_timeout) = action(doc)?;
    if first != matches!(action, Action::Launch(_)) {
        return Err(if first {
            error(
                format!("the flow starts with `{}`, not `launch`", action.key()),
                "start every flow with `launch: cold` or `launch: warm`",
            )
        } else {
            error(
                "`launch` may only be the flow's first step",
                "start a second flow for a second launch",
            )
        });
    }
    let step_timeout = doc
        .timeout
        .as_deref()
        .map(|t| duration("timeout", t))
        .transpose()?;
    if step_timeout.is_some() && matches!(action, Action::Sleep(_)) {
        return Err(error(
            "`timeout` means nothing for `sleep`",
            "remove `timeout`",
        ));
    }
    if let Some(name) = &doc.name
        && (name.is_empty() || name.len() > 48 || name.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(error(
            format!("step name {name:?} is empty, too long or a number"),
            "name a step with a word, like `save`",
        ));
    }
    let default = match action {
        Action::WaitFor(_) | Action::WaitGone(_) | Action::ScrollUntil { .. } => DEFAULT_WAIT,
        _ => DEFAULT_SETTLE,
    };
    Ok(FlowStep {
        action,
        name: doc.name.clone(),
        timeout: wait_timeout.or(step_timeout).unwrap_or(default),
    })
}

/// A step has exactly one action key.
fn one_action(doc: &FlowStepDoc) -> Result<(), StepError> {
    let given = [
        doc.launch.is_some(),
        doc.click.is_some(),
        doc.double_click.is_some(),
        doc.long_click.is_some(),
        doc.wait_for.is_some(),
        doc.wait_gone.is_some(),
        doc.input.is_some(),
        doc.swipe.is_some(),
        doc.fling.is_some(),
        doc.scroll_until.is_some(),
        doc.press.is_some(),
        doc.sleep.is_some(),
    ];
    let keys = "launch, click, double-click, long-click, wait-for, wait-gone, input, swipe, fling, scroll-until, press or sleep";
    match given.iter().filter(|g| **g).count() {
        1 => Ok(()),
        0 => Err(error(
            format!("the step has no action (one of {keys})"),
            "give the step exactly one action key",
        )),
        _ => Err(error(
            "the step has more than one action",
            "split it into one step per action",
        )),
    }
}

/// The step's one action, and the timeout its own wait names (`wait-for: {target, timeout}`).
fn action(doc: &FlowStepDoc) -> Result<(Action, Option<Duration>), StepError> {
    let mut wait_timeout = None;
    let action = if let Some(launch) = &doc.launch {
        Action::Launch(Launch::parse(launch).ok_or_else(|| {
            error(
                format!("`launch: {launch}` is not cold or warm"),
                "write `launch: cold` or `launch: warm`",
            )
        })?)
    } else if let Some(s) = &doc.click {
        Action::Tap(Tap::Click, selector("click", s)?)
    } else if let Some(s) = &doc.double_click {
        Action::Tap(Tap::DoubleClick, selector("double-click", s)?)
    } else if let Some(s) = &doc.long_click {
        Action::Tap(Tap::LongClick, selector("long-click", s)?)
    } else if let Some(wait) = doc.wait_for.as_ref().or(doc.wait_gone.as_ref()) {
        let key = if doc.wait_for.is_some() {
            "wait-for"
        } else {
            "wait-gone"
        };
        let target = match wait {
            WaitDoc::Target(t) => selector(key, t)?,
            WaitDoc::Full(full) => {
                wait_timeout = full
                    .timeout
                    .as_deref()
                    .map(|t| duration("timeout", t))
                    .transpose()?;
                selector(key, &full.target)?
            }
        };
        if doc.wait_for.is_some() {
            Action::WaitFor(target)
        } else {
            Action::WaitGone(target)
        }
    } else if let Some(input) = &doc.input {
        Action::Input {
            target: selector("target", &input.target)?,
            text: input_text(&input.text)?,
        }
    } else if let Some(swipe) = doc.swipe.as_ref().or(doc.fling.as_ref()) {
        let gesture = if doc.swipe.is_some() {
            Gesture::Swipe
        } else {
            Gesture::Fling
        };
        Action::Move {
            gesture,
            path: swipe_path(swipe)?,
        }
    } else if let Some(scroll) = &doc.scroll_until {
        Action::ScrollUntil {
            target: selector("target", &scroll.target)?,
            on: selector("on", &scroll.on)?,
            max_swipes: match scroll.max_swipes {
                Some(n @ 1..=50) => n,
                None => DEFAULT_MAX_SWIPES,
                Some(n) => {
                    return Err(error(
                        format!("`max-swipes: {n}` is not between 1 and 50"),
                        "say how many swipes to try, at most 50",
                    ));
                }
            },
            direction: direction(scroll.direction.as_deref())?,
        }
    } else if let Some(key) = &doc.press {
        Action::Press(Key::parse(key).ok_or_else(|| {
            error(
                format!("`press: {key}` is not a key dwpipe knows"),
                "press back, home, power, enter, delete, tab, space, escape, menu, volume-up, volume-down or dpad-up/down/left/right",
            )
        })?)
    } else {
        let text = doc.sleep.as_deref().unwrap_or_default();
        Action::Sleep(duration("sleep", text)?)
    };
    Ok((action, wait_timeout))
}

fn swipe_path(doc: &SwipeDoc) -> Result<SwipePath, StepError> {
    match (&doc.on, &doc.from, &doc.to) {
        (Some(on), None, None) => Ok(SwipePath::On {
            on: selector("on", on)?,
            direction: direction(doc.direction.as_deref())?,
            distance_vp: doc.distance.as_deref().map(distance).transpose()?,
        }),
        (None, Some(from), Some(to)) if doc.direction.is_none() && doc.distance.is_none() => {
            Ok(SwipePath::Between {
                from: selector("from", from)?,
                to: selector("to", to)?,
            })
        }
        _ => Err(error(
            "a swipe is either `on` a node (with `direction`, `distance`) or `from` a node `to` another",
            "write `{ on: \"id:list\", direction: up, distance: 300vp }` or `{ from: \"id:a\", to: \"id:b\" }`",
        )),
    }
}

/// Input text: letters and digits of any script, space and `. , _ @ + -`, at most 200
/// characters; it reaches the device in single quotes, so nothing else may pass.
fn input_text(text: &str) -> Result<ShellValue, StepError> {
    let fix = "type letters, digits, spaces and . , _ @ + - only, at most 200 characters";
    if let Some(why) = crate::shell::input_text_refusal(text, MAX_INPUT_CHARS) {
        return Err(error(format!("input text {text:?}: {why}"), fix));
    }
    ShellValue::input_text(text, MAX_INPUT_CHARS).map_err(|e| error(e.to_string(), fix))
}

/// What does not validate: `(flow name, step index or None, error)`.
pub(crate) type FlowErrors = Vec<(String, Option<usize>, StepError)>;

/// Validates every flow, and says what does not.
pub(crate) fn flows(
    docs: &BTreeMap<String, Vec<Spanned<FlowStepDoc>>>,
) -> (BTreeMap<String, Flow>, FlowErrors) {
    let mut flows = BTreeMap::new();
    let mut errors = Vec::new();
    for (name, docs) in docs {
        if !valid_flow_name(name) {
            errors.push((
                name.clone(),
                None,
                error(
                    format!("flow name {name:?} is not lower-case letters, digits and `-`"),
                    "name a flow like `open-note`",
                ),
            ));
            continue;
        }
        if docs.is_empty() || docs.len() > MAX_STEPS {
            errors.push((
                name.clone(),
                None,
                if docs.is_empty() {
                    error("the flow has no steps", "start it with `launch: cold`")
                } else {
                    error(
                        format!("the flow has {} steps, more than {MAX_STEPS}", docs.len()),
                        "split it: a flow reaches one screen",
                    )
                },
            ));
            continue;
        }
        let mut steps = Vec::with_capacity(docs.len());
        let mut ok = true;
        for (i, doc) in docs.iter().enumerate() {
            match step(&doc.value, i == 0) {
                Ok(step) => {
                    if let Some(n) = &step.name
                        && steps.iter().any(|s: &FlowStep| s.name.as_ref() == Some(n))
                    {
                        errors.push((
                            name.clone(),
                            Some(i),
                            error(
                                format!("step name `{n}` is used twice"),
                                "give every step its own name",
                            ),
                        ));
                        ok = false;
                    }
                    steps.push(step);
                }
                Err(e) => {
                    errors.push((name.clone(), Some(i), e));
                    ok = false;
                }
            }
        }
        if ok {
            flows.insert(
                name.clone(),
                Flow {
                    name: name.clone(),
                    steps,
                },
            );
        }
    }
    (flows, errors)
}
