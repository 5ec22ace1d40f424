//! Paths as documents write them.

use super::windows_doc_path;

#[test]
fn windows_paths_are_written_with_slashes_and_no_verbatim_prefix() {
    for (path, written) in [
        (
            r"evidence\FMR0223\playbooks/a11y.yaml",
            "evidence/FMR0223/playbooks/a11y.yaml",
        ),
        (
            r"\\?\C:\work\device-fixtures\notes-pass",
            "C:/work/device-fixtures/notes-pass",
        ),
        (r"\\?\UNC\lab\captures\p1", "//lab/captures/p1"),
        (r"C:\Users\张三\app.hap", "C:/Users/张三/app.hap"),
        ("already/plain", "already/plain"),
    ] {
        assert_eq!(windows_doc_path(path), written, "{path}");
    }
}
