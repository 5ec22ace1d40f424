//! `dwpipe probes`: the catalog as people and scripts read it — every probe with its
//! arguments, their allowed values, its units and how it measures — generated from the
//! catalog itself, so the reference cannot drift from what `freeze` accepts.

use serde::Serialize;

use super::catalog::{ArgKind, CATALOG};

/// One argument of a probe.
#[derive(schemars::JsonSchema, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct ArgDoc {
    /// Its key in `probe: { … }`.
    pub(crate) name: &'static str,
    /// Whether a pack must give it.
    pub(crate) required: bool,
    /// What it takes, in words (`a selector`, `one of …`).
    pub(crate) takes: String,
    /// Its allowed words, when it is one of a list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) values: Option<&'static [&'static str]>,
}

/// One probe.
#[derive(schemars::JsonSchema, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct ProbeRef {
    /// Its id in a pack.
    pub(crate) id: &'static str,
    /// How it measures.
    pub(crate) method: &'static str,
    /// Its arguments.
    pub(crate) args: Vec<ArgDoc>,
    /// The unit of its number, per `metric` when it has several.
    pub(crate) units: Vec<UnitDoc>,
}

/// The unit a probe produces for one `metric` (or for all, when `metric` is absent).
#[derive(schemars::JsonSchema, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct UnitDoc {
    /// The `metric` value it is for; absent: every metric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) metric: Option<&'static str>,
    /// The unit; absent: a word (pass/fail).
    pub(crate) unit: Option<&'static str>,
}

/// Every probe of the catalog, in its order.
pub(crate) fn probes() -> Vec<ProbeRef> {
    CATALOG
        .iter()
        .map(|p| ProbeRef {
            id: p.id,
            method: p.method,
            args: p
                .args
                .iter()
                .map(|a| {
                    let (takes, values) = match a.kind {
                        ArgKind::Selector => {
                            ("a layout selector (id:…, text:…, type:…)".to_owned(), None)
                        }
                        ArgKind::Word(words) => {
                            (format!("one of {}", words.join(", ")), Some(words))
                        }
                        ArgKind::Free => (free(a.name).to_owned(), None),
                        ArgKind::Identifier => (
                            "letters, digits and _ (a name or a list of names)".to_owned(),
                            None,
                        ),
                        ArgKind::TraceName => (
                            "a trace marker's name (without `H:`), or a /regex/".to_owned(),
                            None,
                        ),
                        ArgKind::SectionValue => (
                            "`duration`, or `arg:KEY`: the number its begin marker's KEY= argument gives".to_owned(),
                            None,
                        ),
                        ArgKind::Unit => (
                            "the unit the app's values are in: `count`, `B`, `KB`, `MB`, … (any unit dwpipe knows)".to_owned(),
                            None,
                        ),
                    };
                    ArgDoc {
                        name: a.name,
                        required: a.required,
                        takes,
                        values,
                    }
                })
                .collect(),
            units: p
                .units
                .iter()
                .map(|&(metric, unit)| UnitDoc { metric, unit })
                .collect(),
        })
        .collect()
}

/// What a free argument takes, by its name.
fn free(name: &str) -> &'static str {
    match name {
        "runs" => "a whole number of runs, at least 1",
        "tolerance" => "a fraction: how far runs may spread around the aggregate before a warning",
        "flow" => "the name of one of the pack's flows",
        "step" => "a step of the flow, by name or 1-based number",
        "steps" => "two steps of the flow, the first and the last one traced: [open, save]",
        _ => "a value of the argument's type",
    }
}
