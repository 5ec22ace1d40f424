//! The values a session run fills its step templates with: validated shell values only.

use std::collections::BTreeMap;

use crate::shell::{ShellCommand, ShellValue, UnsafeValue};

/// The values a run substitutes into step templates.
#[derive(Clone, Debug, Default)]
pub(crate) struct Values(BTreeMap<String, ShellValue>);

impl Values {
    /// Sets a placeholder.
    pub(crate) fn set(&mut self, name: &str, value: ShellValue) {
        self.0.insert(name.to_owned(), value);
    }

    /// Whether a placeholder has a value.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Fills a step template; every placeholder must have a validated value.
    pub(crate) fn command(&self, template: &str) -> Result<ShellCommand, UnsafeValue> {
        let values: Vec<(&str, &ShellValue)> =
            self.0.iter().map(|(k, v)| (k.as_str(), v)).collect();
        ShellCommand::render(template, &values)
    }

    /// Fills a remote-path template and validates the result as a remote path.
    pub(crate) fn remote_path(&self, template: &str) -> Result<ShellValue, UnsafeValue> {
        ShellValue::remote_path(self.command(template)?.as_str())
    }
}
