//! Tests of `crate::agent::policy`.

use super::*;

#[test]
fn only_placed_tools_inside_the_workspace_are_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(root.join("entry/src")).unwrap();
    std::fs::write(dir.path().join("secret"), "x").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret"), root.join("link")).unwrap();
    let workspace = Workspace::new(&root);
    let inside = root.join("entry/src/Index.ets").display().to_string();
    let outside = dir.path().join("secret").display().to_string();
    let allowed = |kind: &str, paths: &[&str]| {
        let paths: Vec<String> = paths.iter().map(|p| (*p).to_owned()).collect();
        decide(&workspace, kind, &paths)
    };
    // A link to a folder outside: `symdir/..` is that folder's parent, not the workspace.
    std::fs::create_dir_all(dir.path().join("elsewhere/deep")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("elsewhere/deep"), root.join("symdir")).unwrap();
    std::fs::write(dir.path().join("elsewhere/x"), "x").unwrap();
    let rows: [(&str, &[&str], Option<&str>); 13] = [
        ("edit", &[&inside], None),
        // A new file in a new folder is still inside.
        ("edit", &["entry/new/Page.ets"], None),
        ("read", &[&inside, "entry"], None),
        ("edit", &[&outside], Some("is outside the workspace")),
        ("edit", &["../secret"], Some("is outside the workspace")),
        ("edit", &["entry/../../secret"], Some("is outside")),
        // A link out of the workspace leads outside it.
        ("edit", &["link"], Some("is outside")),
        ("edit", &["symdir/../x"], Some("is outside")),
        ("edit", &["symdir/../new-file"], Some("is outside")),
        ("edit", &["entry/../entry/src/../new.ets"], None),
        ("edit", &[], Some("names no file")),
        ("execute", &[&inside], Some("kind `execute`")),
        ("other", &[&inside], Some("kind `other`")),
    ];
    for (kind, paths, denied) in rows {
        match (allowed(kind, paths), denied) {
            (Decision::Allow, None) => {}
            (Decision::Deny(why), Some(expected)) => {
                assert!(why.contains(expected), "{kind} {paths:?}: {why}");
            }
            (decision, _) => panic!("{kind} {paths:?}: {decision:?}"),
        }
    }
}
