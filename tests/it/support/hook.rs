//! `dwpipe hook stop` as a harness runs it: its JSON on stdin, its answer read from stdout.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

/// `dwpipe hook stop --target HARNESS --pack pack.yaml` in `dir`, `input` on stdin, this
/// build's binaries first on PATH; not waited for.
pub(crate) fn stop_started(dir: &Path, harness: &str, input: &Value) -> std::process::Child {
    let mut child = super::dwpipe_command()
        .args(["hook", "stop", "--target", harness, "--pack", "pack.yaml"])
        .current_dir(dir)
        .env("PATH", super::path_with_binaries())
        .env_remove("DWPIPE_HDC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    child
}

/// What a stop started with [`stop_started`] answered: (exit code, its JSON, stderr).
#[track_caller]
pub(crate) fn answered(child: std::process::Child) -> (i32, Value, String) {
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    let answer = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not one JSON object on stdout ({e}): {stdout:?}\n{stderr}"));
    assert_eq!(
        stdout.lines().count(),
        1,
        "stdout is the answer alone: {stdout}"
    );
    (output.status.code().unwrap(), answer, stderr)
}
