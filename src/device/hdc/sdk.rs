//! Where hdc is when nobody said (`--hdc`, `DWPIPE_HDC`): `hdc` on PATH, else in the HarmonyOS
//! SDK that `DEVECO_SDK_HOME` names (DevEco Studio and Huawei's Command Line Tools set it for
//! hvigor), at `default/openharmony/toolchains/hdc` (`hdc.exe` on Windows). On Windows the SDK
//! is rarely on PATH: DevEco Studio keeps it to itself.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The client's file name on this host.
const HDC: &str = if cfg!(windows) { "hdc.exe" } else { "hdc" };

/// The hdc to run: `hdc` (looked up on PATH when it runs) when PATH has it or no SDK does,
/// else the SDK's.
pub(crate) fn default_hdc() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let sdk = std::env::var_os("DEVECO_SDK_HOME");
    choose(&path, sdk.as_deref())
}

fn choose(path: &OsStr, sdk: Option<&OsStr>) -> PathBuf {
    let on_path = std::env::split_paths(path).any(|dir| dir.join(HDC).is_file());
    let in_sdk = sdk
        .filter(|sdk| !sdk.is_empty())
        .map(|sdk| toolchains(Path::new(sdk)).join(HDC))
        .filter(|hdc| hdc.is_file());
    match in_sdk {
        Some(hdc) if !on_path => hdc,
        _ => PathBuf::from("hdc"),
    }
}

/// The SDK's folder of host tools.
fn toolchains(sdk: &Path) -> PathBuf {
    sdk.join("default").join("openharmony").join("toolchains")
}

#[cfg(test)]
mod tests;
