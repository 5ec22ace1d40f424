//! Tests of `crate::output`.

use super::*;

#[test]
fn numbers_continue_after_the_highest_and_never_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let files: &[(&str, &[u8])] = &[("json", b"{}"), ("md", b"# x")];
    let (n, paths) = publish_numbered(dir.path(), "audit", files).unwrap();
    assert_eq!(n, 1);
    assert_eq!(fs::read(&paths[0]).unwrap(), b"{}");
    fs::write(dir.path().join("audit-7.md"), "kept").unwrap();
    let (n, _) = publish_numbered(dir.path(), "audit", files).unwrap();
    assert_eq!(n, 8);
    assert_eq!(
        fs::read_to_string(dir.path().join("audit-7.md")).unwrap(),
        "kept"
    );
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn atomic_write_replaces_whole_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pack.lock.json");
    write_atomic(&path, b"first").unwrap();
    write_atomic(&path, b"second").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"second");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}
