//! Tests of `crate::history::facts`.

use super::*;

#[test]
fn the_version_and_the_commit_are_read_from_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("AppScope")).unwrap();
    std::fs::write(
        root.join("AppScope/app.json5"),
        "{\n  \"app\": {\n    \"bundleName\": \"com.example.notes\",\n    versionCode: 1000000,\n    \"versionName\": \"1.0.0\",\n  }\n}\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let sha = "0123456789abcdef0123456789abcdef01234567";
    std::fs::write(
        root.join(".git/packed-refs"),
        format!("# pack-refs\n{sha} refs/heads/main\n"),
    )
    .unwrap();
    let facts = build_facts(root, Store::Sqlite(root.join("h.sqlite")));
    assert_eq!(facts.app_version.as_deref(), Some("1.0.0"));
    assert_eq!(facts.commit.as_deref(), Some(sha));
    std::fs::create_dir_all(root.join(".git/refs/heads")).unwrap();
    let loose = "fedcba9876543210fedcba9876543210fedcba98";
    std::fs::write(root.join(".git/refs/heads/main"), format!("{loose}\n")).unwrap();
    assert_eq!(commit(root).as_deref(), Some(loose));
    assert_eq!(commit(&root.join("nowhere")), None);
}
