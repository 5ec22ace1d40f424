//! fake-hdc prints what OpenHarmony's real client prints, byte for byte but for the numbers
//! that differ run to run (sizes, times, rates): the same calls to a real phone and to
//! fake-hdc serving the phone's material, side by side.

use std::path::Path;
use std::process::Command;

use super::stack::{Stack, Tools};

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

/// Digit runs as `N`: what differs between two runs of the same call.
fn masked(text: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push('N');
            }
            in_number = true;
        } else {
            out.push(c);
            in_number = false;
        }
    }
    out
}

#[test]
fn fake_hdc_prints_what_the_real_client_prints() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let Some(mut stack) = Stack::start(dir) else {
        return;
    };
    let key = stack.phone(Tools::Serving("ab-phone-4")).key.clone();
    let local = dir.join("pulled");
    let local = local.to_str().unwrap();
    let trace = "/data/local/tmp/dwpipe-cold-1.ftrace";
    let (old, new) = (
        repo("device-fixtures/haps/notes-1.0.hap"),
        repo("device-fixtures/haps/notes-1.1.hap"),
    );
    // (what, the call's words after `-t KEY`)
    let calls: Vec<(&str, Vec<&str>)> = vec![
        ("version", vec!["-v"]),
        ("install", vec!["install", "-r", &old]),
        ("upgrade", vec!["install", "-r", &new]),
        ("downgrade", vec!["install", "-r", &old]),
        ("file recv", vec!["file", "recv", trace, local]),
        (
            "missing file",
            vec!["file", "recv", "/data/local/tmp/nothing", local],
        ),
        ("uninstall", vec!["uninstall", "com.example.notes"]),
        ("uninstall again", vec!["uninstall", "com.example.notes"]),
    ];
    let fake_state = dir.join("fake-state");
    let fake = |words: &[&str], target: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_fake-hdc"))
            .args(["-t", target])
            .args(words)
            .env(
                "DWPIPE_FAKE_HDC_CAPTURES",
                format!("{}@{key}", repo("device-fixtures/ab-phone-4")),
            )
            .env("DWPIPE_FAKE_HDC_STATE", &fake_state)
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    for (what, words) in calls {
        if what == "file recv" {
            // On the phone a file is there because a tool wrote it; fake-hdc's capture has it.
            stack.hdc(&["-t", &key, "shell", &format!("echo trace > {trace}")]);
        }
        let real = stack.hdc(&[&["-t", key.as_str()][..], &words].concat());
        let served = fake(&words, &key);
        assert_eq!(
            masked(&served),
            masked(&real),
            "{what}: fake-hdc {served:?}, the real client {real:?}"
        );
    }
    // A connect key the server does not know.
    let real = stack.hdc(&["-t", "NOSUCH", "shell", "echo hi"]);
    assert_eq!(fake(&["shell", "echo hi"], "NOSUCH"), real);
}
