//! What a HAP says of itself: its `module.json` (a HAP is a zip archive) names the app's
//! version, as `versionName` (`1.1.0`) and `versionCode` (`1000001`), which is what a release
//! engineer calls a build. Read from the archive's directory and that one member, bounded,
//! whatever the size of the HAP.

use std::io::{Read, Seek};

use serde::Deserialize;

/// `module.json` is a few kilobytes; anything past this is not one.
const MAX_MODULE_JSON: u64 = 1024 * 1024;

/// A HAP's version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// `versionName`.
    pub name: String,
    /// `versionCode`.
    pub code: u64,
}

/// Why a HAP's version could not be read.
#[derive(Debug, thiserror::Error)]
pub enum HapVersionError {
    /// Not a zip archive.
    #[error("not a HAP archive (zip): {0}")]
    NotAnArchive(#[source] zip::result::ZipError),
    /// No `module.json` in it.
    #[error("no module.json in the archive")]
    NoModuleJson,
    /// `module.json` larger than any is.
    #[error("module.json is {0} bytes, more than a module's description ever is")]
    TooLarge(u64),
    /// Unreadable, or without `app.versionName` and `app.versionCode`.
    #[error("module.json does not name the app's version: {0}")]
    Unreadable(String),
}

#[derive(Deserialize)]
struct Module {
    app: App,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct App {
    version_name: String,
    version_code: u64,
}

/// The version a HAP declares.
pub fn version(hap: impl Read + Seek) -> Result<Version, HapVersionError> {
    let mut archive = zip::ZipArchive::new(hap).map_err(HapVersionError::NotAnArchive)?;
    let member = archive
        .by_name("module.json")
        .map_err(|_| HapVersionError::NoModuleJson)?;
    if member.size() > MAX_MODULE_JSON {
        return Err(HapVersionError::TooLarge(member.size()));
    }
    let mut text = Vec::new();
    member
        .take(MAX_MODULE_JSON)
        .read_to_end(&mut text)
        .map_err(|e| HapVersionError::Unreadable(e.to_string()))?;
    let module: Module =
        serde_json::from_slice(&text).map_err(|e| HapVersionError::Unreadable(e.to_string()))?;
    Ok(Version {
        name: module.app.version_name,
        code: module.app.version_code,
    })
}

#[cfg(test)]
mod tests;
