//! A probe reference checked against the catalog: the probe, its validated arguments, the unit
//! it produces for them, and whether an assertion can hold that unit.

use crate::assertion::{Assertion, Decimal, Expectation, common_scale};

use super::catalog::{Arg, ArgKind, CATALOG, ProbeKind};
use super::points::{TraceName, section_value};
use super::probe::{ProbeArgError, ProbeArgs};
use super::schema::ProbeDoc;
use super::selector::Selector;

/// A probe from the catalog, with its validated arguments and the unit it produces for them.
#[derive(Clone, Debug)]
pub struct MeasuredBy {
    /// The catalog entry.
    pub(crate) kind: &'static ProbeKind,
    /// The unit it produces (`None`: a count or a word).
    pub(crate) unit: Option<&'static str>,
    /// Its arguments.
    pub args: ProbeArgs,
}

impl MeasuredBy {
    /// How it measures, in words, with the flow it runs after (`…, after flow `open-note`,
    /// step 2`).
    pub(crate) fn method(&self) -> String {
        if let Some(point) = &self.args.point {
            let at = match (&self.args.flow, self.args.step, self.args.range) {
                (Some(flow), Some(step), _) => {
                    format!("in the trace of flow `{flow}`, step {}", step.index + 1)
                }
                (Some(flow), None, Some((first, last))) => format!(
                    "in one trace of flow `{flow}` from step {} to step {}",
                    first + 1,
                    last + 1
                ),
                _ => "in the cold start's trace".to_owned(),
            };
            return format!(
                "hitrace of the app's own trace points: {}, {at}",
                point.describe()
            );
        }
        match (&self.args.flow, self.args.step) {
            (Some(flow), Some(step)) => format!(
                "{}, after flow `{flow}`, step {}",
                self.kind.method,
                step.index + 1
            ),
            (Some(flow), None) => format!("{}, after flow `{flow}`", self.kind.method),
            _ => self.kind.method.to_owned(),
        }
    }

    /// Why `assertion` cannot hold what this probe produces: its unit does not convert to the
    /// probe's, it gives a unit to a bare count, or it bounds a pass/fail result by a number.
    pub(crate) fn mismatch(&self, assertion: &Assertion) -> Option<String> {
        let numeric = matches!(
            assertion.expectation,
            Expectation::Range { .. } | Expectation::Gte(_) | Expectation::Lte(_)
        );
        if self.kind.id == "test.hypium" {
            return numeric.then(|| format!("`{}` produces pass/fail, not a number", self.kind.id));
        }
        if self.kind.id == "layout.text" {
            return (numeric || assertion.unit.is_some())
                .then(|| format!("`{}` produces text, not a number", self.kind.id));
        }
        let probe_unit = self.unit.map(crate::assertion::Unit::parse);
        match (probe_unit.as_ref(), assertion.unit.as_ref()) {
            (Some(p), Some(d)) => common_scale(
                Decimal::new(1, 0),
                Some(p),
                Some(d),
                Some(Decimal::new(1, 0)),
            )
            .err()
            .map(|_| {
                format!(
                    "`{}` measures in {p}, the assertion is in {d}",
                    self.kind.id
                )
            }),
            (None, Some(d)) => Some(format!(
                "`{}` produces a bare count, the assertion is in {d}",
                self.kind.id
            )),
            _ => None,
        }
    }
}

/// Checks a probe reference against the catalog; what it measures and with which arguments.
pub fn check_probe(probe: &ProbeDoc) -> Result<MeasuredBy, ProbeArgError> {
    let kind = CATALOG
        .iter()
        .find(|k| k.id == probe.id)
        .ok_or_else(|| ProbeArgError::UnknownProbe(probe.id.clone()))?;
    let given = given(probe);
    for (name, value) in &given {
        let Some(value) = value else { continue };
        let Some(arg) = kind.args.iter().find(|a| a.name == *name) else {
            return Err(ProbeArgError::UnexpectedArg {
                probe: kind.id,
                arg: name,
                takes: kind
                    .args
                    .iter()
                    .map(|a| a.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        check_value(kind, arg, value)?;
    }
    if probe.runs == Some(0) {
        return Err(ProbeArgError::BadValue {
            probe: kind.id,
            arg: "runs",
            value: "0".to_owned(),
            allowed: "at least 1".to_owned(),
        });
    }
    if let Some(missing) = kind.args.iter().find(|a| {
        a.required
            && given
                .iter()
                .any(|(name, value)| *name == a.name && value.is_none())
    }) {
        return Err(ProbeArgError::MissingArg {
            probe: kind.id,
            arg: missing.name,
        });
    }
    if probe.case.is_some() && probe.suite.is_none() {
        return Err(ProbeArgError::MissingArg {
            probe: kind.id,
            arg: "suite",
        });
    }
    let args = ProbeArgs::of(kind.id, probe)?;
    let unit = match &args.point {
        // A count is bare, whatever the values were in; values are in what `unit:` declares
        // (bare without it); durations are in ms.
        Some(_) if probe.of.as_deref() == Some("count") => None,
        Some(_) => match probe.unit.as_deref() {
            Some(declared) => point_unit(declared).flatten(),
            None if point_is_timed(args.point.as_ref()) => Some("ms"),
            None => None,
        },
        None => kind.unit(probe.metric.as_deref()),
    };
    Ok(MeasuredBy { kind, unit, args })
}

/// Every argument a probe reference may give, by name, with the value it gave (as text).
fn given(probe: &ProbeDoc) -> [(&'static str, Option<String>); 22] {
    [
        ("runs", probe.runs.map(|r| r.to_string())),
        ("aggregate", probe.aggregate.clone()),
        (
            "tolerance",
            probe.tolerance.as_ref().map(ToString::to_string),
        ),
        ("metric", probe.metric.clone()),
        ("target", probe.target.clone()),
        ("from", probe.from.clone()),
        ("to", probe.to.clone()),
        ("axis", probe.axis.clone()),
        ("edge", probe.edge.clone()),
        ("side", probe.side.clone()),
        ("suite", probe.suite.clone()),
        ("case", probe.case.clone()),
        ("expect", probe.expect.as_ref().map(|cases| cases.join(","))),
        ("flow", probe.flow.clone()),
        ("step", probe.step.as_ref().map(ToString::to_string)),
        ("via", probe.via.clone()),
        (
            "steps",
            probe.steps.as_ref().map(|steps| {
                steps
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            }),
        ),
        ("name", probe.name.clone()),
        ("pick", probe.pick.clone()),
        ("of", probe.of.clone()),
        ("value", probe.value.clone()),
        ("unit", probe.unit.clone()),
    ]
}

/// Checks one argument's value against what the probe's argument takes.
fn check_value(kind: &ProbeKind, arg: &Arg, value: &str) -> Result<(), ProbeArgError> {
    let bad = |allowed: String| ProbeArgError::BadValue {
        probe: kind.id,
        arg: arg.name,
        value: value.to_owned(),
        allowed,
    };
    match arg.kind {
        ArgKind::Selector => {
            Selector::parse(value).map_err(|e| bad(e.to_string()))?;
        }
        ArgKind::Word(words) if !words.contains(&value) => {
            return Err(bad(format!("one of {}", words.join(", "))));
        }
        ArgKind::Identifier => {
            for name in value.split(',') {
                crate::shell::ShellValue::identifier(arg.name, name).map_err(|_| {
                    bad("letters, digits and `_`, starting with a letter".to_owned())
                })?;
            }
        }
        ArgKind::TraceName => {
            TraceName::parse(value).map_err(bad)?;
        }
        ArgKind::SectionValue => {
            section_value(value).ok_or_else(|| {
                bad("`duration`, or `arg:KEY` (letters, digits, `_`, `-`, `.`)".to_owned())
            })?;
        }
        ArgKind::Unit => {
            point_unit(value).ok_or_else(|| {
                bad(format!(
                    "`count`, or a unit dwpipe knows: {}",
                    crate::assertion::known_spellings()
                ))
            })?;
        }
        ArgKind::Word(_) | ArgKind::Free => {}
    }
    Ok(())
}

/// Whether a trace point reads a duration (a span, a section's own length).
fn point_is_timed(point: Option<&crate::pack::Point>) -> bool {
    use crate::pack::{Point, SectionValue};
    matches!(
        point,
        Some(
            Point::Span { .. }
                | Point::Section {
                    value: SectionValue::Duration,
                    ..
                }
        )
    )
}

/// A trace point's declared unit: a known unit's symbol, or `count` (bare: `Some(None)`).
fn point_unit(text: &str) -> Option<Option<&'static str>> {
    if text == "count" {
        return Some(None);
    }
    crate::assertion::Unit::parse_known(text).map(|u| u.symbol())
}

#[cfg(test)]
mod tests;
