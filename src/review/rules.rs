//! The built-in adversarial rules (docs/design.md §4): the holes that make audits unresolvable later,
//! found before anything is dispatched. Deterministic, always on, pure.

use crate::assertion::{Decimal, Expectation, Side, Unit, common_scale, first_quantity};
use crate::diagnostic::Diagnostic;
use crate::pack::{Criterion, Dimension, Pack, ResponseMetric, Weight};

/// Platform baselines (research/seeds-and-peers.md §6): (probe, its response metric when it
/// is `perf.response`, comparator, bound, unit). The unit is also the probe's own for that
/// reading (`ms/s` is perf.frames' jank metric). An assertion looser than its baseline is
/// flagged.
const BASELINES: &[(&str, Option<ResponseMetric>, Side, &str, &str)] = &[
    ("perf.cold-start", None, Side::AtMost, "1100", "ms"),
    ("perf.frames", None, Side::AtMost, "5", "ms/s"),
    ("perf.memory", None, Side::AtMost, "1500", "MB"),
    // Background CPU load (rule 0420: below 5 % three minutes after the app left the screen).
    ("perf.cpu-background", None, Side::AtMost, "5", "%"),
    // Click response (rule 0403) and click completion (rule 0404: Huawei warns from 900 ms
    // and fails above 1600 ms).
    (
        "perf.response",
        Some(ResponseMetric::Response),
        Side::AtMost,
        "100",
        "ms",
    ),
    (
        "perf.response",
        Some(ResponseMetric::Complete),
        Side::AtMost,
        "900",
        "ms",
    ),
    ("a11y.touch-target", None, Side::AtLeast, "40", "vp"),
    ("a11y.contrast", None, Side::AtLeast, "4.5", "ratio"),
];

/// Words that mark evidence only the audited process can produce.
const SELF_REPORTED: &[&str] = &[
    "in-app",
    "in app",
    "app log",
    "self-report",
    "console.log",
    "the app's own",
    "inside the app",
    "agent's",
    "the agent",
];

/// Runs every rule over the pack.
pub(crate) fn builtin(pack: &Pack) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for &dimension in Dimension::ALL {
        if !pack
            .criteria
            .iter()
            .any(|c| c.dimension == dimension && c.weight == Weight::Must)
        {
            found.push(
                Diagnostic::warning("W_REVIEW_DIMENSION_WITHOUT_MUST", format!("the {dimension} dimension has no must criterion"))
                    .fix("add at least one must criterion for every dimension, or say in the pack why none applies"),
            );
        }
    }
    let findings: Vec<(&Criterion, Vec<Diagnostic>)> =
        pack.criteria.iter().map(|c| (c, rules(c))).collect();
    let looser = |d: &Diagnostic| d.code == LOOSER;
    for (criterion, diagnostics) in &findings {
        // Huawei grades by bands (pass, warn, fail): a must criterion at the fail edge is no
        // hole when a should criterion of the same reading holds the baseline.
        let banded = criterion.weight == Weight::Must
            && findings.iter().any(|(other, theirs)| {
                other.weight == Weight::Should
                    && same_reading(other, criterion)
                    && !theirs.iter().any(looser)
            });
        found.extend(
            diagnostics
                .iter()
                .filter(|d| !(banded && looser(d)))
                .cloned(),
        );
    }
    found
}

const LOOSER: &str = "W_REVIEW_LOOSER_THAN_BASELINE";

/// Whether two criteria's probes read the same thing (the probe, and its response metric).
fn same_reading(a: &Criterion, b: &Criterion) -> bool {
    let probe = |c: &Criterion| {
        let measured = c.assertion.as_ref()?.probe.as_ref()?;
        Some((measured.kind.id, measured.args.response))
    };
    probe(a).is_some() && probe(a) == probe(b)
}

fn rules(criterion: &Criterion) -> Vec<Diagnostic> {
    let id = criterion.id.as_str();
    let mut found = Vec::new();
    let Some(assertion) = &criterion.assertion else {
        if criterion.weight == Weight::Must
            && criterion
                .verify
                .as_deref()
                .is_none_or(|v| v.trim().is_empty())
        {
            found.push(
                Diagnostic::error(
                    "E_REVIEW_MUST_UNVERIFIABLE",
                    "a must criterion with neither an assertion nor a way to verify it",
                )
                .criterion(id)
                .fix("add an assertion, or at least `verify:` saying how it is checked"),
            );
        }
        return found;
    };
    let numeric_bounds = assertion.assertion.expectation.limits().sides();
    if let Some(contradiction) = contradiction(
        &criterion.statement,
        &assertion.assertion.expectation,
        assertion.assertion.unit.as_ref(),
    ) {
        found.push(
            Diagnostic::error("E_REVIEW_STATEMENT_CONTRADICTS", contradiction)
                .criterion(id)
                .fix("make the statement and the assertion say the same threshold"),
        );
    }
    match &assertion.probe {
        None => {
            if !numeric_bounds.is_empty() {
                found.push(
                    Diagnostic::warning("W_REVIEW_UNMEASURABLE", "no playbook measures this assertion; only an outside auditor's number can check it")
                        .criterion(id)
                        .fix("give the assertion a probe from the catalog, or accept an auditor report for it"),
                );
            }
            let said = format!(
                "{} {}",
                assertion.source.as_deref().unwrap_or(""),
                criterion.verify.as_deref().unwrap_or("")
            )
            .to_lowercase();
            if let Some(word) = SELF_REPORTED.iter().find(|w| said.contains(*w)) {
                found.push(
                    Diagnostic::warning("W_REVIEW_SELF_REPORTED_SOURCE", format!("the evidence is self-reported (\"{word}\"): the audited process could satisfy the letter"))
                        .criterion(id)
                        .fix("measure from outside the app (hitrace, hidumper, the layout dump), keep in-app numbers auxiliary"),
                );
            }
        }
        Some(measured) => {
            // A unit the probe cannot produce is refused at freeze (and at every lock load).
            let declared = assertion.assertion.unit.as_ref();
            for (probe, metric, side, bound, unit) in BASELINES {
                let probe_reading = measured.unit.map(Unit::parse);
                let same_reading = probe_reading
                    .as_ref()
                    .and_then(|p| {
                        common_scale(Decimal::new(1, 0), Some(p), Some(&Unit::parse(unit)), None)
                            .ok()
                    })
                    .is_some();
                let same_metric = metric.is_none_or(|m| m == measured.args.response);
                if *probe != measured.kind.id || !same_reading || !same_metric {
                    continue;
                }
                let baseline = Decimal::parse(bound).expect("baseline numbers parse");
                let loose = numeric_bounds.iter().find(|(s, value)| {
                    *s == *side
                        && declared
                            .and_then(|d| compare(*value, d, baseline, &Unit::parse(unit)))
                            .is_some_and(|order| match side {
                                Side::AtMost => order.is_gt(),
                                Side::AtLeast => order.is_lt(),
                            })
                });
                if let Some((_, value)) = loose {
                    let relation = if *side == Side::AtMost {
                        "above"
                    } else {
                        "below"
                    };
                    found.push(
                        Diagnostic::warning("W_REVIEW_LOOSER_THAN_BASELINE", format!("the threshold {value}{} is {relation} the platform baseline of {bound} {unit}", declared.map(unit_suffix).unwrap_or_default()))
                            .criterion(id)
                            .fix(format!("tighten the threshold to {bound} {unit} or better")),
                    );
                }
            }
        }
    }
    found
}

/// Orders `a` (in `a_unit`) against `b` (in `b_unit`) exactly, when the units convert.
fn compare(a: Decimal, a_unit: &Unit, b: Decimal, b_unit: &Unit) -> Option<std::cmp::Ordering> {
    let (scaled, factor) = common_scale(a, Some(a_unit), Some(b_unit), None).ok()?;
    Some(scaled.cmp(&b.checked_mul(factor)?))
}

/// What a statement's own words say against the assertion, if they disagree.
fn contradiction(
    statement: &str,
    expectation: &Expectation,
    unit: Option<&Unit>,
) -> Option<String> {
    let lower = statement.to_lowercase();
    // Negated forms before the words they contain (`不大于` before `大于`); `以内` follows its
    // number (`800毫秒以内`), so the number is looked for in the whole statement.
    let (side, rest) = [
        ("≤", Side::AtMost),
        ("<=", Side::AtMost),
        ("at most", Side::AtMost),
        ("no more than", Side::AtMost),
        ("under", Side::AtMost),
        ("within", Side::AtMost),
        ("不超过", Side::AtMost),
        ("不大于", Side::AtMost),
        ("不高于", Side::AtMost),
        ("不低于", Side::AtLeast),
        ("不小于", Side::AtLeast),
        ("小于", Side::AtMost),
        ("低于", Side::AtMost),
        ("以内", Side::AtMost),
        ("≥", Side::AtLeast),
        (">=", Side::AtLeast),
        ("at least", Side::AtLeast),
        ("no less than", Side::AtLeast),
        ("至少", Side::AtLeast),
        ("大于", Side::AtLeast),
        ("高于", Side::AtLeast),
    ]
    .iter()
    .find_map(|(word, side)| {
        lower.find(word).map(|at| {
            let rest = match *word {
                "以内" => statement,
                _ => statement.get(at..).unwrap_or(statement),
            };
            (Some(*side), rest)
        })
    })
    .unwrap_or((None, statement));
    let said = first_quantity(rest).ok()??;
    // Only a number with a unit that converts to the assertion's speaks to the threshold.
    let (Some(said_unit), Some(unit)) = (said.unit.as_ref(), unit) else {
        return None;
    };
    let limits = expectation.limits().sides();
    let against = |v: Decimal| compare(said.value, said_unit, v, unit);
    if limits.is_empty() || against(limits[0].1).is_none() {
        return None;
    }
    let agrees = match side {
        Some(side) => limits
            .iter()
            .any(|(s, v)| *s == side && against(*v).is_some_and(std::cmp::Ordering::is_eq)),
        // "List items are 12vp apart": the value must lie within the assertion.
        None => limits.iter().all(|(s, v)| match s {
            Side::AtLeast => against(*v).is_some_and(std::cmp::Ordering::is_ge),
            Side::AtMost => against(*v).is_some_and(std::cmp::Ordering::is_le),
        }),
    };
    (!agrees).then(|| {
        let asserted: Vec<String> = limits
            .iter()
            .map(|(s, v)| {
                format!(
                    "{} {v}{}",
                    if *s == Side::AtMost { "≤" } else { "≥" },
                    unit_suffix(unit)
                )
            })
            .collect();
        format!(
            "the statement says {:?} but the assertion checks {}",
            statement,
            asserted.join(" and ")
        )
    })
}

fn unit_suffix(unit: &Unit) -> String {
    let text = unit.to_string();
    if text.starts_with(':') {
        text
    } else {
        format!(" {text}")
    }
}
