//! Helpers shared by the integration tests.

// Each test crate includes this module and uses only some of it.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// Writes an `hdc` shell wrapper in `dir` that runs `fake-hdc` serving `captures`
/// (comma-joined, `HOST:PORT=folder` allowed), with `extra_env` assignments before it.
pub fn fake_hdc(dir: &Path, name: &str, captures: &[String], extra_env: &str) -> PathBuf {
    let script = dir.join(name);
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nDWPIPE_FAKE_HDC_CAPTURES='{}' DWPIPE_FAKE_HDC_STATE='{}' {extra_env} exec '{}' \"$@\"\n",
            captures.join(","),
            dir.join("state").display(),
            env!("CARGO_BIN_EXE_fake-hdc"),
        ),
    )
    .unwrap();
    let mut permissions = fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    fs::set_permissions(&script, permissions).unwrap();
    script
}

/// Runs the real `dwpipe` in `dir` (without any `DWPIPE_HDC` of the caller's environment):
/// `(exit code, stdout, stderr)`.
pub fn dwpipe(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_dwpipe"))
        .args(args)
        .current_dir(dir)
        .env_remove("DWPIPE_HDC")
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}
