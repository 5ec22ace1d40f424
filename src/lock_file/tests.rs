//! Tests of `crate::lock_file`.

use super::*;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

#[test]
fn a_lock_file_is_made_held_and_said_once_per_holder_without_truncating() {
    let dir = tempfile::tempdir().unwrap();
    // Every missing level is made sticky and open to every user.
    let path = dir.path().join("lab/leases");
    let folder = folder(&path, true).unwrap();
    for level in [dir.path().join("lab"), path.clone()] {
        let mode = std::fs::metadata(&level).unwrap().mode() & 0o7777;
        assert_eq!(mode, 0o1777, "{}", level.display());
    }
    let first = LockFile::open(&folder, "a.lock").unwrap();
    assert!(first.try_lock().unwrap());
    first.say("dwpipe audit (pid 1 on h), since now");
    let second = LockFile::open(&folder, "a.lock").unwrap();
    assert!(!second.try_lock().unwrap());
    assert_eq!(
        holder(&folder, "a.lock").as_deref(),
        Some("dwpipe audit (pid 1 on h), since now")
    );
    assert_eq!(first.replaced(), None);
    drop(first);
    assert!(second.try_lock().unwrap());
    second.say("x");
    assert_eq!(second.said().as_deref(), Some("x"));
    let file_mode = std::fs::metadata(path.join("a.lock")).unwrap().mode() & 0o777;
    assert_eq!(file_mode & !0o644, 0, "0644 or less: {file_mode:o}");
    // Its owner removes it while it is held: the holder finds out.
    std::fs::remove_file(path.join("a.lock")).unwrap();
    assert!(
        second
            .replaced()
            .unwrap()
            .contains("was removed or replaced")
    );
}

#[test]
fn links_fifos_folders_and_hard_links_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leases");
    let folder = folder(&path, true).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "root:x:0:0\n").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::symlink(&victim, path.join("link.lock")).unwrap();
    std::fs::hard_link(&victim, path.join("hard.lock")).unwrap();
    std::fs::create_dir(path.join("dir.lock")).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(path.join("fifo.lock"))
            .status()
            .unwrap()
            .success()
    );
    for (name, found) in [
        ("link.lock", "a symbolic link to"),
        ("hard.lock", "2 names"),
        ("dir.lock", "a folder"),
        ("fifo.lock", "a FIFO"),
    ] {
        let e = LockFile::open(&folder, name).unwrap_err();
        assert!(e.to_string().contains(found), "{name}: {e}");
        assert!(matches!(e, LockFileError::Planted { .. }), "{name}: {e}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root:x:0:0\n");
    let mode = std::fs::metadata(&victim).unwrap().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn a_folder_others_may_write_without_the_sticky_bit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = folder(&open, true).unwrap_err();
    assert!(e.to_string().contains("without the sticky bit"), "{e}");
    // A level on the way counts as much as the folder itself.
    let e = folder(&open.join("leases"), true).unwrap_err();
    assert!(e.to_string().contains("without the sticky bit"), "{e}");
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
    folder(&open, true).unwrap();
}

#[test]
fn a_link_on_the_way_is_followed_only_where_nobody_else_could_have_put_it() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    // In a folder only this user writes: the user's own link, followed.
    std::os::unix::fs::symlink(&real, dir.path().join("mine")).unwrap();
    folder(&dir.path().join("mine/leases"), true).unwrap();
    assert!(real.join("leases").is_dir());
    // In a workspace, `.dwpipe` is never a link, whoever made it.
    let workspace = dir.path().join("ws");
    std::fs::create_dir(&workspace).unwrap();
    std::os::unix::fs::symlink(&real, workspace.join(".dwpipe")).unwrap();
    let e = folder(&workspace.join(".dwpipe/hooks"), false).unwrap_err();
    assert!(matches!(e, LockFileError::Planted { .. }), "{e}");
}
