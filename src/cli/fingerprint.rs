//! `dwpipe fingerprint WORKSPACE [--cache FILE]`: what "the same code" means for evidence
//! freshness.

use std::path::Path;

use crate::diagnostic::{Diagnostic, chain};
use crate::exit_code;
use crate::process::Cancel;
use crate::verify::{StatCache, fingerprint};

use super::error::Error;
use super::print;
use super::runtime::block_on;
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for FingerprintArgs {
    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        run(&self.workspace, self.cache.as_deref())
    }
}

/// Prints the fingerprint, reading and updating the stat cache when given.
fn run(workspace: &Path, cache_path: Option<&Path>) -> Result<i32, Error> {
    let mut cache = cache_path.map(StatCache::load).unwrap_or_default();
    let cancel = Cancel::new();
    let print = block_on(&cancel, fingerprint(workspace, &mut cache, &cancel))
        .map_err(|e| Error::from(Diagnostic::error("E_VERIFY_FINGERPRINT", chain(&e))))?;
    if let Some(path) = cache_path {
        cache.save(path).map_err(|e| {
            Error::from(Diagnostic::error(
                "E_VERIFY_FINGERPRINT",
                format!("cannot save the cache: {e}"),
            ))
        })?;
    }
    print::out(&print);
    Ok(exit_code::OK)
}

#[derive(Debug, clap::Args)]
pub(super) struct FingerprintArgs {
    /// The workspace.
    pub(super) workspace: PathBuf,
    /// A stat cache file to read and update (size + mtime → content hash).
    #[arg(long)]
    pub(super) cache: Option<PathBuf>,
}
