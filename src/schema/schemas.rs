//! The JSON Schema of every document dwpipe writes, and of what its commands print under
//! `--json`, generated from the very types that write it (serde's attributes honoured, as the document is serialized): `dwpipe schema NAME`
//! prints one, and `docs/schema/NAME.schema.json` holds each, kept equal by a test, so a
//! user's CI can validate dwpipe's output with any JSON Schema tool.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};

use super::attestation::VerdictPredicate;
use super::{
    AbLabReport, AbRecord, AuditReport, Comparison, DeliverReport, DiagnosticsOutput, FreezeOutput,
    LabReport, ProbesOutput, ReviewReport, RunRecord, RunsOutput, Verification, VerifyReport,
};

/// Every document with a schema: its schema's name and the file it describes.
pub(crate) const DOCUMENTS: &[(&str, &str)] = &[
    (
        "audit",
        "audit-<n>.json: one device's audit (or a replay's), every verdict recomputed",
    ),
    ("lab", "lab.json: a lab's criterion × device matrix"),
    ("ab", "ab.json: a same-device A/B session's record"),
    ("ab-lab", "ab-lab.json: a lab's A/B matrix"),
    (
        "compare",
        "compare.json: a candidate audit held against a baseline",
    ),
    (
        "deliver",
        "deliver.json: how a delivery (or a stop hook's gate) ended",
    ),
    ("run", "run.json: what a delivery's run is for"),
    ("review", "review-<n>.json: the pre-review of a lock"),
    ("verify", "verify-<n>.json: a round's verification commands"),
    (
        "dwpipe-verdict-v1",
        "the predicate of an attestation's second statement (https://dwpipe.dev/verdict/v1)",
    ),
    (
        "verification",
        "what `dwpipe verify-evidence --json` prints",
    ),
    ("freeze", "what `dwpipe freeze --json` prints"),
    (
        "probes",
        "what `dwpipe probes --json` prints: the probe catalog",
    ),
    (
        "runs",
        "what `dwpipe runs --json` prints: a project's run folders",
    ),
    (
        "diagnostics",
        "what a refused command prints under --json: every finding",
    ),
];

/// The schema named `name` (one of [`DOCUMENTS`]).
pub(crate) fn schema(name: &str) -> Option<Schema> {
    Some(match name {
        "audit" => of::<AuditReport>(name),
        "lab" => of::<LabReport>(name),
        "ab" => of::<AbRecord>(name),
        "ab-lab" => of::<AbLabReport>(name),
        "compare" => of::<Comparison>(name),
        "deliver" => of::<DeliverReport>(name),
        "run" => of::<RunRecord>(name),
        "review" => of::<ReviewReport>(name),
        "verify" => of::<VerifyReport>(name),
        "dwpipe-verdict-v1" => of::<VerdictPredicate>(name),
        "verification" => of::<Verification>(name),
        "freeze" => of::<FreezeOutput<'static>>(name),
        "probes" => of::<ProbesOutput>(name),
        "runs" => of::<RunsOutput>(name),
        "diagnostics" => of::<DiagnosticsOutput<'static>>(name),
        _ => return None,
    })
}

/// `T`'s schema as it is serialized (draft 2020-12), named by its file.
fn of<T: JsonSchema>(name: &str) -> Schema {
    let mut schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    schema.insert(
        "$id".to_owned(),
        format!("https://dwpipe.dev/schema/{name}.schema.json").into(),
    );
    schema
}
