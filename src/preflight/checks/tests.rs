//! Preflight's checks: programs found the way the OS starts them, folders writable.

use super::*;

#[test]
#[cfg(unix)] // Unix modes and `sh`
fn programs_resolve_like_the_os_starts_them() {
    let dir = tempfile::tempdir().unwrap();
    assert!(find_program("sh", dir.path()).is_ok(), "on PATH");
    let error = find_program("dwpipe-no-such-tool", dir.path()).unwrap_err();
    assert!(error.contains("is not on PATH"), "{error}");
    let script = dir.path().join("build.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    let error = find_program("./build.sh", dir.path()).unwrap_err();
    assert!(
        error.contains("no executable file"),
        "not executable: {error}"
    );
    let mut permissions = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&script, permissions).unwrap();
    assert_eq!(
        find_program("./build.sh", dir.path()).unwrap(),
        dir.path().join("./build.sh")
    );
}

#[test]
fn a_folder_that_cannot_be_written_is_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        writable("run folder", &dir.path().join("new/deep"))
            .problem
            .is_none()
    );
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let check = writable("run folder", &file.join("below"));
    assert_eq!(check.problem.unwrap().code, "E_PREFLIGHT_FOLDER");
}
