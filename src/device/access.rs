//! What the hdc shell may read on a production phone, per OpenHarmony release: the table in
//! `device-fixtures/access.yaml` (each rule with the SELinux policy lines it comes from), built
//! into the binary. dwpipe reads it to say which probes a device's release lets it read
//! (`dwpipe probes --api-level`, `doctor --device`); fake-hdc reads it to answer a denied read
//! as the production shell does, whatever its capture recorded.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// The table, as shipped.
const TABLE: &str = include_str!("../../device-fixtures/access.yaml");

/// A release family: the OpenHarmony release a range of API levels belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Family {
    /// `3.2`, `4.1`, `5.0`, …
    pub name: String,
    /// The API levels of the family, inclusive.
    api: [u32; 2],
}

impl Family {
    /// `OpenHarmony 4.1 (API 11)`, for people.
    pub fn describe(&self, api: u32) -> String {
        format!("OpenHarmony {} (API {api})", self.name)
    }
}

/// Who may read: everyone, nobody, or only a debug build (`const.debuggable` 1).
#[derive(schemars::JsonSchema, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    /// The shell reads it.
    Allowed,
    /// The shell may not read it.
    Denied,
    /// Only on a debug build: denied on a production phone.
    DebugBuilds,
}

impl Access {
    /// Whether a production phone (a user build) lets the shell read it.
    pub fn on_production(self) -> bool {
        self == Access::Allowed
    }

    /// The word, as the table and `dwpipe probes` print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Allowed => "allowed",
            Access::Denied => "denied",
            Access::DebugBuilds => "debug builds only",
        }
    }
}

/// How the production shell shows a refusal of a read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shows {
    /// `cat: PATH: Permission denied` in place of the file's content (`PATH` as the table
    /// names it; `<pid>` stands for the process's number).
    Cat(String),
    /// The folder cannot be listed: a `for` loop over a glob in it runs once on the pattern,
    /// and each `cat` of it says `No such file or directory`.
    GlobUnexpanded,
    /// The files are listed but not readable: each `cat` says `Permission denied`.
    GlobUnreadable,
    /// The tool runs in `sh` and cannot open its nodes: these keys print empty values.
    ValuesEmpty(Vec<String>),
    /// The tool stops on its first unreadable node and prints this instead of its samples.
    Aborted(String),
}

impl<'de> Deserialize<'de> for Shows {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Shows, D::Error> {
        let text = String::deserialize(deserializer)?;
        let (word, rest) = text.split_once(' ').unwrap_or((&text, ""));
        Ok(match word {
            "cat:" => Shows::Cat(rest.trim().to_owned()),
            "glob-unexpanded" => Shows::GlobUnexpanded,
            "glob-unreadable" => Shows::GlobUnreadable,
            "values-empty" => {
                Shows::ValuesEmpty(rest.split_whitespace().map(str::to_owned).collect())
            }
            "aborted" => Shows::Aborted(rest.to_owned()),
            other => {
                return Err(serde::de::Error::custom(format!(
                    "`shows: {other} …` is not cat:, glob-unexpanded, glob-unreadable, values-empty or aborted"
                )));
            }
        })
    }
}

/// One family's rule for a read.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The families it holds on.
    on: Vec<String>,
    /// Who may read.
    pub access: Access,
    /// How a refusal shows on these families, where it differs from the read's.
    #[serde(default)]
    shows: Option<Shows>,
    /// The policy lines it comes from.
    pub policy: String,
}

/// One read the table knows: what a shell line reads, and who may.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Read {
    /// What is read, for people (`/proc/stat`, `SmartPerf's battery current …`).
    pub read: String,
    /// Which shell lines make the read.
    #[serde(with = "pattern")]
    matches: Regex,
    /// How a refusal shows.
    shows: Shows,
    /// What dwpipe still reads where this read is denied.
    #[serde(default)]
    pub fallback: Option<String>,
    rules: Vec<Rule>,
}

impl Read {
    /// Whether `line` (a shell line, or a playbook's template of one) makes this read.
    pub fn made_by(&self, line: &str) -> bool {
        self.matches.is_match(line)
    }

    /// The rule on `family`, if the table has one.
    pub fn rule(&self, family: &Family) -> Option<&Rule> {
        self.rules.iter().find(|r| r.on.contains(&family.name))
    }

    /// How a production phone of `family` refuses the read, when it does.
    pub fn refused_on(&self, family: &Family) -> Option<&Shows> {
        let rule = self.rule(family)?;
        (!rule.access.on_production()).then(|| rule.shows.as_ref().unwrap_or(&self.shows))
    }
}

/// The whole table.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AccessTable {
    format_version: u32,
    families: Vec<Family>,
    /// Every read the table knows.
    pub reads: Vec<Read>,
}

impl AccessTable {
    /// The family of a device at API level `api`, if the table knows one.
    pub fn family(&self, api: u32) -> Option<&Family> {
        self.families
            .iter()
            .find(|f| (f.api[0]..=f.api[1]).contains(&api))
    }

    /// Every read `line` makes.
    pub fn reads_in<'a>(&'a self, line: &'a str) -> impl Iterator<Item = &'a Read> + 'a {
        self.reads.iter().filter(move |r| r.made_by(line))
    }
}

/// The table shipped in the binary (checked by a test: it always parses).
pub fn access_table() -> &'static AccessTable {
    static PARSED: LazyLock<AccessTable> = LazyLock::new(|| {
        let table: AccessTable =
            serde_saphyr::from_str(TABLE).expect("device-fixtures/access.yaml parses");
        assert_eq!(table.format_version, 1, "access.yaml's format-version");
        table
    });
    &PARSED
}

mod pattern {
    use regex::Regex;
    use serde::{Deserialize, Deserializer};

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Regex, D::Error> {
        let text = String::deserialize(deserializer)?;
        Regex::new(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
