//! `dwpipe explain [CODE]`: what a stable error code means, the exit code it comes with and
//! how to put it right, from the one table of codes ([`crate::exit_code::CODES`]); every code
//! without one; `docs/errors.md` with `--markdown`.

use crate::diagnostic::Diagnostic;
use crate::exit_code::{self, CODES};

use super::error::Error;
use super::print;
use super::{Edge, Run};

/// `dwpipe explain`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  dwpipe explain E_LOCK_TAMPERED\n  dwpipe explain lock_tampered\n  dwpipe explain            (every code, one line each)\n  dwpipe explain --markdown (docs/errors.md)"
)]
pub(super) struct ExplainArgs {
    /// The code as dwpipe printed it (`E_CAPTURE_PLAN`; case and the `E_` may be left out).
    #[arg(value_name = "CODE", conflicts_with = "markdown")]
    code: Option<String>,
    /// Print every code as the Markdown page docs/errors.md holds.
    #[arg(long)]
    markdown: bool,
}

impl Run for ExplainArgs {
    fn execute(self, _: &Edge) -> Result<i32, Error> {
        if self.markdown {
            print::raw(exit_code::markdown().as_bytes());
            return Ok(exit_code::OK);
        }
        let Some(asked) = self.code else {
            for code in CODES.iter() {
                print::out(&format!("{:<32} {}", code.code, code.meaning));
            }
            return Ok(exit_code::OK);
        };
        let wanted = asked.trim().to_ascii_uppercase();
        let wanted = if wanted.starts_with("E_") {
            wanted
        } else {
            format!("E_{wanted}")
        };
        let Some(code) = CODES.iter().find(|c| c.code == wanted) else {
            let near: Vec<&str> = CODES
                .iter()
                .map(|c| c.code)
                .filter(|c| c.contains(wanted.trim_start_matches("E_")))
                .take(5)
                .collect();
            let fix = if near.is_empty() {
                "`dwpipe explain` lists every code".to_owned()
            } else {
                format!("did you mean {}?", near.join(", "))
            };
            return Err(Diagnostic::error(
                "E_USAGE",
                format!("`{asked}` is not a code dwpipe prints"),
            )
            .fix(fix)
            .into());
        };
        print::out(&format!(
            "{}\n\n  {}\n\n  exit: {}\n  fix:  {}",
            code.code,
            code.meaning,
            code.exit.words(),
            code.fix
        ));
        Ok(exit_code::OK)
    }
}
