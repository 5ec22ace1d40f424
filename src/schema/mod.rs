//! The documents dwpipe writes and reads back, as serde types and nothing else: no files are
//! read or written here, nothing is rendered. Each has a `format-version` (the table is
//! `crate::format`); a field added is optional, a shape changed bumps its number, and readers
//! take the previous number or refuse it with a fix. Producers build these; `report` renders
//! and publishes them; readers (`verify-evidence`, `compare`, the history) parse them typed.

mod ab;
mod ab_lab;
pub(crate) mod attestation;
mod audit;
mod compare;
mod deliver;
mod difference;
pub(crate) mod files;
mod identity;
mod lab;
mod printed;
mod review;
mod run;
mod schemas;
mod verification;
mod verify;

pub use ab::{AbRecord, Arm, ArmRecord, Block, BuildVersion, Restored};
pub use ab_lab::{AbCell, AbColumn, AbLabReport, BuiltArm};
pub use audit::{AuditReport, ReportCheck, Summary};
pub use compare::{ArmStats, Compared, Comparison, Outcome, Regression, Side};
pub(crate) use deliver::page_to_open;
pub use deliver::{Claim, DeliverReport, TerminalReason};
pub use difference::{Cause, Difference};
pub(crate) use identity::content_id;
pub use lab::{Cell, DeviceVerdict, LabDevice, LabReport, LabRow, LabVerdict, UnreachableServer};
pub(crate) use lab::{Column, RowHead};
pub(crate) use printed::{
    AbOutput, DiagnosticsOutput, FreezeOutput, ProbeOnReleaseDoc, ProbesOutput,
};
pub use printed::{
    Imported, Point, Refused, RunListing, RunsOutput, Searched, SeriesOutput, Shift, ShiftsOutput,
};
pub use review::{ReviewReport, ReviewVerdict, ReviewerOutcome};
pub(crate) use run::{RunRecord, RunTarget};

// The engine's types the documents embed, named here on purpose: each derives its JSON Schema
// with the document, and a change to one changes a document — `docs/schema/` shows how, and
// `tests/it/schemas.rs` fails until the schema is made again.
pub use crate::audit::Inputs as AuditInputs;
pub use crate::audit::{
    DeviceState, DeviceStates, DeviceTime, EvidenceFile, InstalledHap, MeasurementRecord, Required,
    RunReading, Value, Workspace, Zone,
};
pub use crate::device::lease::LeaseRecord;
pub use crate::device::{DeviceInfo, Source};
pub use crate::diagnostic::{Diagnostic, Location, Severity};
pub use crate::gate::CheckOutcome;
pub use crate::probe::hidumper::Display;
pub(crate) use schemas::{DOCUMENTS, schema};
pub use verification::{FormCheck, Verification, Verified};
pub(crate) use verify::{CommandOutcome, CommandStatus, CompileError, VerifyReport};
