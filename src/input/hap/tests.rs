//! Tests of `crate::input::hap`.

use super::*;

#[test]
fn a_hap_is_the_file_it_resolves_to_inside_its_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(workspace.join("out")).unwrap();
    std::fs::write(workspace.join("out/app.hap"), b"hap").unwrap();
    std::fs::write(dir.path().join("elsewhere.hap"), b"other").unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("elsewhere.hap"),
        workspace.join("out/link.hap"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        workspace.join("out/app.hap"),
        workspace.join("out/inside.hap"),
    )
    .unwrap();
    std::fs::create_dir_all(workspace.join("out/dir.hap")).unwrap();
    let ws = Some(workspace.as_path());

    let hap = resolve_hap(&workspace.join("out/inside.hap"), ws).unwrap();
    assert_eq!(
        hap.resolved,
        std::fs::canonicalize(workspace.join("out/app.hap")).unwrap()
    );
    assert_eq!(hap.sha256, crate::hash::sha256_hex(b"hap"));
    assert!(matches!(
        resolve_hap(&workspace.join("out/link.hap"), ws),
        Err(HapPathError::Outside { .. })
    ));
    assert!(matches!(
        resolve_hap(&workspace.join("out/dir.hap"), ws),
        Err(HapPathError::Read(ReadError::NotAFile { .. }))
    ));
    assert!(matches!(
        resolve_hap(&workspace.join("out/none.hap"), ws),
        Err(HapPathError::Missing { .. })
    ));
    // Outside a delivery (the A/B builds), any regular file.
    assert!(resolve_hap(&workspace.join("out/link.hap"), None).is_ok());
    // A Latin-1 name: a lossy text of it would name another file.
    let latin1 = workspace
        .join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"out/\xe9t\xe9.hap"));
    std::fs::write(&latin1, b"hap").unwrap();
    assert!(matches!(
        resolve_hap(&latin1, ws),
        Err(HapPathError::NotUtf8 { .. })
    ));
}
