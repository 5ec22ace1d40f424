//! Finding hdc in the SDK.

use super::*;

#[test]
fn hdc_on_path_wins_and_the_sdk_is_the_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let sdk = dir.path().join("sdk");
    let tools = toolchains(&sdk);
    std::fs::create_dir_all(&tools).unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let empty = std::env::join_paths([&bin]).unwrap();
    // Nothing anywhere: `hdc`, for the OS to look up (and the preflight to report missing).
    assert_eq!(choose(&empty, Some(sdk.as_os_str())), PathBuf::from("hdc"));
    assert_eq!(choose(&empty, None), PathBuf::from("hdc"));
    // In the SDK only: the SDK's.
    std::fs::write(tools.join(HDC), "").unwrap();
    assert_eq!(choose(&empty, Some(sdk.as_os_str())), tools.join(HDC));
    assert_eq!(choose(&empty, Some(OsStr::new(""))), PathBuf::from("hdc"));
    // On PATH too: PATH's, as a shell would find it.
    std::fs::write(bin.join(HDC), "").unwrap();
    assert_eq!(choose(&empty, Some(sdk.as_os_str())), PathBuf::from("hdc"));
}
