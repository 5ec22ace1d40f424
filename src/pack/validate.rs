//! Semantic validation: from the schema ([`PackDoc`]) to a [`Pack`] whose assertions are
//! compiled, collecting every diagnostic instead of stopping at the first.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};
use serde_json::Number;
use serde_saphyr::Spanned;

use crate::assertion::{
    Assertion, Decimal, Expectation, MATCHER_NAMES, Scalar, Unit, known_spellings,
};
use crate::diagnostic::{Diagnostic, Location, has_errors};
use crate::pack::{CATALOG, check_probe};
use crate::shell::ShellValue;

use super::catalog::MeasuredBy;
use super::flow::{self, Flow, InputKind, MeasuredStep};
use super::model::{Criterion, CriterionAssertion, Dimension, Pack, Weight};
use super::probe::FramesVia;
use super::regression::{Floor, RegressionDoc};
use super::schema::{AssertionDoc, CriterionDoc, ExpectedDoc, PackDoc, ProbeDoc, ScalarDoc};

/// Compiled size limit for an author's regex: far above any sane pattern, far below what
/// would let a pack make the audit slow.
pub(crate) const REGEX_SIZE_LIMIT: usize = 256 * 1024;

static CRITERION_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$").expect("static regex"));

/// Validates a parsed pack. Returns the pack when there is no error, and every diagnostic
/// (errors and warnings) either way.
pub fn validate(doc: PackDoc, file: &Path) -> (Option<Pack>, Vec<Diagnostic>) {
    let mut v = Validator {
        file,
        diagnostics: Vec::new(),
    };
    let pack = v.pack(doc);
    let pack = (!has_errors(&v.diagnostics)).then_some(pack);
    (pack, v.diagnostics)
}

struct Validator<'a> {
    file: &'a Path,
    diagnostics: Vec<Diagnostic>,
}

impl Validator<'_> {
    fn at<T>(&self, spanned: &Spanned<T>) -> Option<Location> {
        Location::at(
            self.file,
            spanned.referenced.line(),
            spanned.referenced.column(),
        )
    }

    fn pack(&mut self, doc: PackDoc) -> Pack {
        if doc.version.value != 1 {
            self.diagnostics.push(
                Diagnostic::error(
                    "E_PACK_UNSUPPORTED_VERSION",
                    format!("pack version {} is not supported", doc.version.value),
                )
                .at(self.at(&doc.version))
                .fix("set `version: 1`"),
            );
        }
        // The same rules that guard the device shell: the bundle and ability end up there.
        if ShellValue::bundle(&doc.app.bundle.value).is_err() || doc.app.bundle.value.len() > 127 {
            self.diagnostics.push(
                Diagnostic::error(
                    "E_PACK_BAD_BUNDLE",
                    format!(
                        "bundle {:?} is not a reverse-domain identifier",
                        doc.app.bundle.value
                    ),
                )
                .at(self.at(&doc.app.bundle))
                .fix(
                    "use letters, digits and `_` in dot-separated parts, like `com.example.notes`",
                ),
            );
        }
        for (name, value) in [("ability", &doc.app.ability), ("module", &doc.app.module)] {
            if let Some(value) = value
                .as_ref()
                .filter(|v| ShellValue::identifier(name, &v.value).is_err())
            {
                self.diagnostics.push(
                    Diagnostic::error(
                        "E_PACK_BAD_IDENTIFIER",
                        format!("{name} {:?} is not an identifier", value.value),
                    )
                    .at(self.at(value))
                    .fix("use letters, digits and `_`, starting with a letter"),
                );
            }
        }
        if doc.criteria.is_empty() {
            self.diagnostics.push(
                Diagnostic::error("E_PACK_NO_CRITERIA", "the pack has no criteria")
                    .fix("add at least one criterion under `criteria:`"),
            );
        }
        let flows = self.flows(&doc);
        let mut first_seen: HashMap<&str, Option<Location>> = HashMap::new();
        let mut criteria = Vec::with_capacity(doc.criteria.len());
        for criterion in &doc.criteria {
            let id = criterion.id.value.as_str();
            if let Some(first) = first_seen.get(id) {
                let first = first
                    .as_ref()
                    .map_or(String::new(), |l| format!(" (first at line {})", l.line));
                self.diagnostics.push(
                    Diagnostic::error(
                        "E_PACK_DUPLICATE_ID",
                        format!("criterion id `{id}` is used twice{first}"),
                    )
                    .criterion(id)
                    .at(self.at(&criterion.id))
                    .fix("give every criterion its own id"),
                );
            } else {
                first_seen.insert(id, self.at(&criterion.id));
            }
            criteria.extend(self.criterion(criterion, &flows));
        }
        let regression = doc
            .regression
            .as_ref()
            .and_then(|r| self.floor(r, None, None));
        Pack {
            doc,
            criteria,
            flows,
            regression,
        }
    }

    /// A regression floor, or a located error; one set on a probed criterion must be in a
    /// unit its probe's converts to.
    fn floor(
        &mut self,
        doc: &Spanned<RegressionDoc>,
        id: Option<&str>,
        probe: Option<&MeasuredBy>,
    ) -> Option<Floor> {
        let checked = Floor::parse(&doc.value.floor).and_then(|floor| match probe {
            Some(p) => floor.amount(p.unit, 1.0).map(|_| floor),
            None => Ok(floor),
        });
        match checked {
            Ok(floor) => Some(floor),
            Err(message) => {
                let mut d = Diagnostic::error("E_PACK_BAD_FLOOR", format!("regression floor: {message}"))
                    .at(self.at(doc))
                    .fix("write the floor in the probe's unit, like `floor: 20ms`, or as a share of the baseline, like `floor: 5%`");
                if let Some(id) = id {
                    d = d.criterion(id);
                }
                self.diagnostics.push(d);
                None
            }
        }
    }

    /// The pack's flows, each step validated; a flow with an error is left out (the pack is
    /// refused anyway) and every error is located at its step.
    fn flows(&mut self, doc: &PackDoc) -> BTreeMap<String, Flow> {
        let Some(docs) = &doc.flows else {
            return BTreeMap::new();
        };
        let (flows, errors) = flow::flows(docs);
        for (name, step, error) in errors {
            let location = step.and_then(|i| self.at(&docs[&name][i]));
            let at = match step {
                Some(i) => format!("flow `{name}`, step {}: ", i + 1),
                None => format!("flow `{name}`: "),
            };
            self.diagnostics.push(
                Diagnostic::error("E_PACK_BAD_FLOW", format!("{at}{}", error.message))
                    .at(location)
                    .fix(error.fix),
            );
        }
        flows
    }

    fn criterion(
        &mut self,
        doc: &CriterionDoc,
        flows: &BTreeMap<String, Flow>,
    ) -> Option<Criterion> {
        let id = doc.id.value.clone();
        let error = |code: &str, message: String, location: Option<Location>, fix: &str| {
            Diagnostic::error(code, message)
                .criterion(&id)
                .at(location)
                .fix(fix)
        };
        let mut ok = true;
        if !CRITERION_ID.is_match(&id) {
            self.diagnostics.push(error(
                "E_PACK_BAD_ID",
                format!("criterion id {id:?} is not a plain identifier"),
                self.at(&doc.id),
                "use letters, digits, `.`, `_` and `-` (like `P-01`), at most 64 characters",
            ));
            ok = false;
        }
        let dimension = Dimension::parse(&doc.dimension.value);
        if dimension.is_none() {
            self.diagnostics.push(error(
                "E_PACK_UNKNOWN_DIMENSION",
                format!("unknown dimension {:?}", doc.dimension.value),
                self.at(&doc.dimension),
                "use one of function, aesthetic, performance, accessibility",
            ));
        }
        let weight = Weight::parse(&doc.weight.value);
        if weight.is_none() {
            self.diagnostics.push(error(
                "E_PACK_UNKNOWN_WEIGHT",
                format!("unknown weight {:?}", doc.weight.value),
                self.at(&doc.weight),
                "use `must` or `should`",
            ));
        }
        if doc.statement.value.trim().is_empty() {
            self.diagnostics.push(error(
                "E_PACK_EMPTY_STATEMENT",
                "the statement is empty".to_owned(),
                self.at(&doc.statement),
                "say in one sentence what must hold",
            ));
            ok = false;
        }
        let assertion = match &doc.assertion {
            Some(spanned) => match compile(&spanned.value).and_then(|mut compiled| {
                if let Some(probe) = &mut compiled.probe {
                    let doc = spanned.value.probe.as_ref();
                    bind_flow(probe, doc.map(|p| &p.value), flows).map_err(|e| e.on(&[doc]))?;
                }
                Ok(compiled)
            }) {
                Ok(compiled) => Some(compiled),
                Err(Invalid { message, fix, key }) => {
                    // At the key at fault (`unit:`, `matcher:`…), else the assertion.
                    let at = key.map_or_else(
                        || self.at(spanned),
                        |k| Location::at(self.file, k.line(), k.column()),
                    );
                    self.diagnostics.push(
                        Diagnostic::error("E_CRITERION_ASSERTION_INVALID", message)
                            .criterion(&id)
                            .at(at)
                            .fix(fix),
                    );
                    ok = false;
                    None
                }
            },
            None => {
                let has_number = doc.statement.value.chars().any(|c| c.is_ascii_digit());
                if weight == Some(Weight::Must) && has_number {
                    self.diagnostics.push(
                        Diagnostic::warning(
                            "W_CRITERION_NO_ASSERTION",
                            format!(
                                "must criterion states a number ({:?}) but has no assertion",
                                doc.statement.value
                            ),
                        )
                        .criterion(&id)
                        .at(self.at(&doc.statement))
                        .fix("add an `assertion:` so the audit can recompute the verdict"),
                    );
                }
                None
            }
        };
        let regression = doc.regression.as_ref().and_then(|r| {
            let probe = assertion.as_ref().and_then(|a| a.probe.as_ref());
            let floor = self.floor(r, Some(&id), probe);
            if floor.is_none() {
                ok = false;
            }
            floor
        });
        // A criterion with an error does not enter the model; the pack as a whole is refused.
        Some(Criterion {
            id,
            dimension: dimension?,
            weight: weight?,
            statement: doc.statement.value.clone(),
            verify: doc.verify.clone(),
            rule_id: doc.rule_id.clone(),
            assertion,
            regression,
        })
        .filter(|_| ok)
    }
}

/// An assertion that does not compile: what is wrong, the one-line fix, and where the key at
/// fault was written (when one is).
struct Invalid {
    message: String,
    fix: String,
    key: Option<serde_saphyr::Location>,
}

fn invalid(message: impl Into<String>, fix: impl Into<String>) -> Invalid {
    Invalid {
        message: message.into(),
        fix: fix.into(),
        key: None,
    }
}

impl Invalid {
    /// Located at `key` (the first written of them), unless already located.
    fn on<T>(mut self, keys: &[Option<&Spanned<T>>]) -> Invalid {
        if self.key.is_none() {
            self.key = keys.iter().flatten().next().map(|k| k.referenced);
        }
        self
    }
}

/// Compiles an assertion as written into one the gate can evaluate.
fn compile(doc: &AssertionDoc) -> Result<CriterionAssertion, Invalid> {
    let matcher = doc.matcher.value.as_str();
    let expected = doc.expected.as_ref().map(|e| &e.value);
    let (at_matcher, at_expected) = ([Some(&doc.matcher)], [doc.expected.as_ref()]);
    let at_bounds = [doc.min.as_ref(), doc.max.as_ref()];
    let numeric_only = |what: &str| {
        invalid(
            format!("`{matcher}` takes {what}"),
            format!("write the assertion as `matcher: {matcher}` with {what}"),
        )
        .on(&at_expected)
        .on(&at_matcher)
    };
    let no_bounds = doc.min.is_none() && doc.max.is_none();
    if matcher != "range" && !no_bounds {
        return Err(invalid(
            format!("`min`/`max` belong to `range`, not `{matcher}`"),
            "use `matcher: range`, or `expected:` for this matcher",
        )
        .on(&at_bounds));
    }
    let expectation = match matcher {
        "equals" => match expected {
            Some(ExpectedDoc::Number(n)) => {
                Expectation::Equals(Scalar::Number(decimal(n).map_err(|e| e.on(&at_expected))?))
            }
            Some(ExpectedDoc::Text(t)) => Expectation::Equals(Scalar::Text(t.clone())),
            _ => return Err(numeric_only("one number or string in `expected`")),
        },
        "contains" => match expected {
            Some(ExpectedDoc::Text(t)) if !t.is_empty() => Expectation::Contains(t.to_lowercase()),
            _ => return Err(numeric_only("a non-empty string in `expected`")),
        },
        "regex" => match expected {
            Some(ExpectedDoc::Text(pattern)) => Expectation::Regex(
                RegexBuilder::new(pattern)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| {
                        invalid(
                            format!("bad regex: {}", first_line(&e.to_string())),
                            "fix the pattern (Rust regex syntax, unanchored: add ^$ yourself)",
                        )
                        .on(&at_expected)
                    })?,
            ),
            _ => return Err(numeric_only("a pattern string in `expected`")),
        },
        "range" => {
            if expected.is_some() {
                return Err(invalid(
                    "`range` takes `min` and/or `max`, not `expected`",
                    "replace `expected:` by `min:` and/or `max:`",
                )
                .on(&at_expected));
            }
            let bound = |b: Option<&Spanned<Number>>| {
                b.map(|m| decimal(&m.value).map_err(|e| e.on(&[Some(m)])))
                    .transpose()
            };
            let (min, max) = (bound(doc.min.as_ref())?, bound(doc.max.as_ref())?);
            match (min, max) {
                (None, None) => {
                    return Err(
                        invalid("`range` has no bounds", "give `min`, `max` or both")
                            .on(&at_matcher),
                    );
                }
                (Some(lo), Some(hi)) if lo > hi => {
                    return Err(invalid(
                        format!("`range` has min {lo} greater than max {hi}"),
                        "swap `min` and `max`",
                    )
                    .on(&at_bounds));
                }
                _ => Expectation::Range { min, max },
            }
        }
        "gte" | "lte" => match expected {
            Some(ExpectedDoc::Number(n)) => {
                let bound = decimal(n).map_err(|e| e.on(&at_expected))?;
                if matcher == "gte" {
                    Expectation::Gte(bound)
                } else {
                    Expectation::Lte(bound)
                }
            }
            _ => return Err(numeric_only("a number in `expected`")),
        },
        "oneOf" => match expected {
            Some(ExpectedDoc::List(items)) if !items.is_empty() => Expectation::OneOf(
                items
                    .iter()
                    .map(|item| match item {
                        ScalarDoc::Number(n) => decimal(n).map(Scalar::Number),
                        ScalarDoc::Text(t) => Ok(Scalar::Text(t.clone())),
                    })
                    .collect::<Result<_, _>>()
                    .map_err(|e| e.on(&at_expected))?,
            ),
            _ => return Err(numeric_only("a non-empty list in `expected`")),
        },
        "present" => {
            if expected.is_some() {
                return Err(
                    invalid("`present` takes no `expected`", "remove `expected:`").on(&at_expected),
                );
            }
            Expectation::Present
        }
        other => {
            return Err(invalid(
                format!("unknown matcher `{other}`"),
                format!("use one of {}", MATCHER_NAMES.join(", ")),
            )
            .on(&at_matcher));
        }
    };
    let unit = match &doc.unit {
        None => None,
        Some(unit) => {
            let numeric = matches!(
                expectation,
                Expectation::Range { .. }
                    | Expectation::Gte(_)
                    | Expectation::Lte(_)
                    | Expectation::Equals(Scalar::Number(_))
                    | Expectation::OneOf(_)
            );
            if !numeric {
                return Err(invalid(
                    format!("`unit` applies to numbers; `{matcher}` here compares text"),
                    "remove `unit:`",
                )
                .on(&[Some(unit)]));
            }
            Some(Unit::parse_known(&unit.value).ok_or_else(|| {
                invalid(
                    format!("unknown unit `{}`", unit.value),
                    format!("use one of {}", known_spellings()),
                )
                .on(&[Some(unit)])
            })?)
        }
    };
    let probe = doc
        .probe
        .as_ref()
        .map(|probe| check_probe(&probe.value))
        .transpose()
        .map_err(|e| {
            let ids: Vec<&str> = CATALOG.iter().map(|k| k.id).collect();
            invalid(
                e.to_string(),
                format!("see the probe catalog: {}", ids.join(", ")),
            )
            .on(&[doc.probe.as_ref()])
        })?;
    let assertion = Assertion { expectation, unit };
    // The probe's unit is known now: an assertion it cannot satisfy is refused at freeze,
    // not left for the review.
    if let Some(message) = probe.as_ref().and_then(|p| p.mismatch(&assertion)) {
        return Err(invalid(
            message,
            "use the unit the probe produces (see the probe catalog)",
        )
        .on(&[doc.unit.as_ref()])
        .on(&[doc.probe.as_ref()]));
    }
    Ok(CriterionAssertion {
        assertion,
        matcher: matcher.to_owned(),
        source: doc.source.clone(),
        probe,
    })
}

/// Ties a probe to the flow it names: the flow must exist, `perf.response` names one of its
/// input steps, and `perf.frames` via hidumper needs a flow to measure.
fn bind_flow(
    probe: &mut MeasuredBy,
    doc: Option<&ProbeDoc>,
    flows: &BTreeMap<String, Flow>,
) -> Result<(), Invalid> {
    let id = probe.kind.id;
    if probe.args.via == FramesVia::Hidumper && probe.args.flow.is_none() {
        return Err(invalid(
            format!("`{id}` via hidumper reads the frames of a flow, and names none"),
            "add `flow: <name>` (its swipes are what is measured), or drop `via: hidumper`",
        ));
    }
    let Some(name) = probe.args.flow.clone() else {
        return Ok(());
    };
    let Some(flow) = flows.get(&name) else {
        let known: Vec<&str> = flows.keys().map(String::as_str).collect();
        return Err(invalid(
            format!("`{id}` names flow `{name}`, which the pack does not declare"),
            if known.is_empty() {
                "declare it under `flows:` at the top of the pack".to_owned()
            } else {
                format!("use one of the pack's flows: {}", known.join(", "))
            },
        ));
    };
    if let Some(reference) = doc.and_then(|d| d.step.as_ref()) {
        let index = flow.step(reference).ok_or_else(|| {
            invalid(
                format!("flow `{name}` has no step `{reference}`"),
                format!(
                    "name a step by its `name:` or by its number, 1 to {}",
                    flow.steps.len()
                ),
            )
        })?;
        let step = &flow.steps[index];
        let Some(input) = step.action.input() else {
            return Err(invalid(
                format!(
                    "step {} of flow `{name}` is `{}`, which sends no input to measure",
                    index + 1,
                    step.action.key()
                ),
                "name a click, double-click, long-click, input, swipe, fling or press step",
            ));
        };
        probe.args.step = Some(MeasuredStep { index, input });
    }
    if id == "perf.frames"
        && !flow
            .steps
            .iter()
            .any(|s| s.action.input() == Some(InputKind::Swipe))
    {
        return Err(invalid(
            format!("`{id}` on flow `{name}` measures its swipes and flings, and it has none"),
            "add a `swipe:` or `fling:` step to the flow, or measure the launch screen's scroll without `flow:`",
        ));
    }
    Ok(())
}

fn decimal(number: &Number) -> Result<Decimal, Invalid> {
    Decimal::parse(&number.to_string()).map_err(|e| {
        invalid(
            format!("expected number: {e}"),
            "use a finite number of at most 38 significant digits",
        )
    })
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or(text)
}
