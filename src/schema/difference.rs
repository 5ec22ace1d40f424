//! A difference between what a report says and what its evidence gives, and its cause.

use serde_json::Value;

/// Why a field differs.
#[derive(
    schemars::JsonSchema, Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// The report says something its evidence does not give.
    Tampered,
    /// The reading was made by an older revision of its extractor, which reads the same
    /// evidence differently.
    ExtractorChanged,
}

/// One difference between the report and its rebuild.
#[derive(schemars::JsonSchema, Debug, serde::Serialize, serde::Deserialize)]
pub struct Difference {
    /// Why.
    pub cause: Cause,
    /// The field.
    pub path: String,
    /// What the report says.
    pub report: Option<Value>,
    /// What the rebuild gives.
    pub rebuilt: Option<Value>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<Value>| match v {
            None => "nothing".to_owned(),
            Some(value) => {
                let text = value.to_string();
                match text.char_indices().nth(80) {
                    Some((cut, _)) => format!("{}…", &text[..cut]),
                    None => text,
                }
            }
        };
        let (report, rebuilt) = (show(&self.report), show(&self.rebuilt));
        match self.cause {
            Cause::Tampered => write!(
                f,
                "{}: the report says {report}, its evidence gives {rebuilt}",
                self.path
            ),
            Cause::ExtractorChanged => write!(
                f,
                "{}: read {report} by the audit's extractor, {rebuilt} by this dwpipe's",
                self.path
            ),
        }
    }
}
