//! Semantic validation: from the schema ([`PackDoc`]) to a [`Pack`] whose assertions are
//! compiled, collecting every diagnostic instead of stopping at the first.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_saphyr::Spanned;

use crate::diagnostic::{Diagnostic, Location, has_errors};
use crate::shell::ShellValue;

use super::compile::{Invalid, bind_flow, compile};
use super::flow::{self, Flow};
use super::measured::MeasuredBy;
use super::model::{Criterion, Dimension, Pack, Weight};
use super::regression::{Floor, RegressionDoc};
use super::require::Condition;
use super::schema::{CriterionDoc, PackDoc};

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
        self.diagnostics
            .extend(super::traced::one_trace_at_a_time(&criteria, &flows));
        self.diagnostics
            .extend(super::traced::points_within_bound(&criteria));
        let regression = doc
            .regression
            .as_ref()
            .and_then(|r| self.floor(r, None, None));
        let mut require = Vec::new();
        for text in &doc.require {
            match Condition::parse(&text.value) {
                Ok(condition) => require.push(condition),
                Err(message) => self.diagnostics.push(
                    Diagnostic::error("E_PACK_BAD_REQUIRE", format!("require: {message}"))
                        .at(self.at(text))
                        .fix("write a precondition like `battery >= 80%`, `battery-temperature <= 40`, `charging: false` or `screen-lock: off`"),
                ),
            }
        }
        Pack {
            doc,
            criteria,
            flows,
            regression,
            require,
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
