//! `dwpipe schema [NAME]`: the JSON Schema of a document dwpipe writes, generated from the
//! types that write it; every document's name and file without one.

use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::schema::{DOCUMENTS, schema};

use super::error::Error;
use super::print;
use super::{Edge, Run};

/// `dwpipe schema`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The schemas are JSON Schema draft 2020-12, of each document as dwpipe writes it; \
docs/schema/NAME.schema.json holds the same. Validate dwpipe's output in CI with any JSON Schema tool, e.g.\n  \
dwpipe schema audit > audit.schema.json\n  \
check-jsonschema --schemafile audit.schema.json out/audit-1.json"
)]
pub(super) struct SchemaArgs {
    /// The document (`dwpipe schema` lists them): audit, lab, ab, ab-lab, compare, deliver,
    /// run, review, verify, dwpipe-verdict-v1, and the printed verification, freeze, probes,
    /// runs, diagnostics.
    #[arg(value_name = "NAME")]
    name: Option<String>,
}

impl Run for SchemaArgs {
    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let Some(name) = self.name else {
            for (name, what) in DOCUMENTS {
                print::out(&format!("{name:<20} {what}"));
            }
            return Ok(exit_code::OK);
        };
        let Some(schema) = schema(&name) else {
            let names: Vec<&str> = DOCUMENTS.iter().map(|(n, _)| *n).collect();
            return Err(Diagnostic::error(
                "E_USAGE",
                format!("`{name}` is not a document dwpipe writes a schema for"),
            )
            .fix(format!("one of: {}", names.join(", ")))
            .into());
        };
        let text = serde_json::to_string_pretty(&schema).expect("a schema serializes") + "\n";
        print::raw(text.as_bytes());
        Ok(exit_code::OK)
    }
}
