//! A report's identity beyond its bytes: its content, and for an audit its run.

use crate::schema::AuditReport;
use std::fmt::Write;

/// A report's identity beyond its file's bytes: its content as dwpipe reads it back (the
/// same however the file was re-serialized) and, for an audit, its run (the device and when
/// it started; reports before format 3 recorded no start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Identity {
    /// SHA-256 of the report re-serialized from its typed form.
    pub(crate) report_id: String,
    /// `<serial>@<started>` (with `#<transcript>` for a replay, `+<sha256>` for each HAP
    /// installed first), when the report says when it started.
    pub(crate) run_key: Option<String>,
    /// The run's own name, kept with its times (audits since they were kept).
    pub(crate) run_id: Option<String>,
}

impl Identity {
    /// Whether two audits are one run: by their runs' own names when both kept one (two
    /// audits of one device begun in one second are two runs), else by device and start.
    pub(crate) fn same_run(&self, other: &Identity) -> bool {
        match (&self.run_id, &other.run_id) {
            (Some(mine), Some(theirs)) => mine == theirs,
            _ => self.run_key.is_some() && self.run_key == other.run_key,
        }
    }
}

impl AuditReport {
    /// The report's identity.
    pub(crate) fn identity(&self) -> Identity {
        // What the history could not record is not the audit: a report amended with it is the
        // same report.
        let report_id = match self.unrecorded {
            None => content_id(self),
            Some(_) => content_id(&AuditReport {
                unrecorded: None,
                ..self.clone()
            }),
        };
        Identity {
            report_id,
            run_id: self.run_id.clone(),
            run_key: self
                .device
                .as_ref()
                .zip(self.started.as_ref())
                .map(|(device, started)| {
                    // A replay's run is its capture's (two captures replayed in one second are
                    // two runs), an A/B arm's its build's (both arms begin together).
                    let mut key = format!("{}@{started}", device.serial);
                    if let Some(crate::device::Source::Replay {
                        transcript_sha256, ..
                    }) = &self.source
                    {
                        let _ = write!(key, "#{transcript_sha256}");
                    }
                    for hap in self.inputs.iter().flat_map(|i| &i.installed) {
                        let _ = write!(key, "+{}", hap.sha256);
                    }
                    key
                }),
        }
    }
}

/// The SHA-256 of a document as dwpipe writes it from its typed form.
pub(crate) fn content_id<T: serde::Serialize>(document: &T) -> String {
    crate::hash::sha256_hex(&serde_json::to_vec(document).expect("a document serializes"))
}
