//! Input built to hurt, through the real binary: image bombs, devices and FIFOs where files
//! belong, outputs that cannot be written, streams that fail, signals mid-work and escape
//! sequences from a device. Each case asserts the exit code and the `E_` code; the time and
//! memory bounds are the bench's and the fuzz harness's (a watchdog here only turns a hang
//! into a failure instead of a stuck run).

use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::delivery::repo;
use dwpipe::gate::CheckResult;

use crate::support::{
    Audited, Ran, Test, capture_with, executable, first_audit, frozen_example, replay_audit,
};

/// Waits for a child, failing (and killing it) if it has not ended in a minute: a hang.
#[track_caller]
fn finish(mut child: Child) -> (i32, String, String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut out = String::new();
            let mut err = String::new();
            if let Some(mut s) = child.stdout.take() {
                s.read_to_string(&mut out).unwrap();
            }
            if let Some(mut s) = child.stderr.take() {
                s.read_to_string(&mut err).unwrap();
            }
            return (status.code().unwrap_or(-1), out, err);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("dwpipe hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs dwpipe with a watchdog: `(exit code, stdout, stderr)`.
fn guarded(dir: &Path, args: &[&str]) -> (i32, String, String) {
    finish(
        crate::support::dwpipe_command()
            .args(args)
            .current_dir(dir)
            .env_remove("DWPIPE_HDC")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    )
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A 69-byte PNG whose header claims `width` × `height` RGB pixels.
fn png_bomb(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        png.extend((data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend(data);
        png.extend(&body);
        png.extend(crc32(&body).to_be_bytes());
    };
    let mut header = width.to_be_bytes().to_vec();
    header.extend(height.to_be_bytes());
    header.extend([8, 2, 0, 0, 0]);
    chunk(b"IHDR", &header);
    chunk(b"IDAT", &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
    chunk(b"IEND", &[]);
    png
}

/// A baseline JPEG header claiming 65535 × 65535 pixels, and nothing to decode.
fn jpeg_bomb() -> Vec<u8> {
    let mut jpeg = vec![0xff, 0xd8];
    jpeg.extend([0xff, 0xdb, 0x00, 0x43, 0x00]);
    jpeg.extend([1u8; 64]);
    jpeg.extend([
        0xff, 0xc0, 0x00, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01, 0x11, 0x00,
    ]);
    jpeg.extend([0xff, 0xd9]);
    jpeg
}

#[test]
fn image_bombs_are_refused_before_decoding() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("bomb.png");
    fs::write(&png, png_bomb(1260, 16_777_216)).unwrap();
    let jpeg = dir.path().join("bomb.jpg");
    fs::write(&jpeg, jpeg_bomb()).unwrap();
    for (file, dimensions) in [(&png, "1260×16777216"), (&jpeg, "65535×65535")] {
        let (code, _, stderr) = guarded(
            dir.path(),
            &[
                "inspect",
                "screenshot",
                file.to_str().unwrap(),
                "--box",
                "0,0,10,10",
            ],
        );
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("E_IMAGE_TOO_LARGE"), "{stderr}");
        assert!(stderr.contains(dimensions), "{stderr}");
    }
}

#[test]
fn an_audit_with_an_image_bomb_reports_contrast_unverified() {
    let dir = frozen_example();
    let capture = capture_with(dir.path(), "screen-1.png", &png_bomb(1260, 16_777_216));
    // The must contrast criterion is unverified.
    replay_audit(dir.path(), &capture).status(1).run();
    let report = first_audit(dir.path());
    let contrast = &report.check("X-02").check;
    assert_eq!(contrast.result, CheckResult::Unverified, "{contrast:?}");
    assert!(
        contrast.evidence.contains("1260×16777216"),
        "{}",
        contrast.evidence
    );
    assert_eq!(
        report.result("A-01"),
        CheckResult::Pass,
        "the layout dump is still read"
    );
}

#[track_caller]
fn fifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn devices_and_fifos_are_refused_by_type() {
    let dir = frozen_example();
    let pipe = dir.path().join("pipe");
    fifo(&pipe);
    let pipe = pipe.to_str().unwrap();
    for special in ["/dev/zero", pipe] {
        for (args, code) in [
            (vec!["freeze", special], "E_PACK_NOT_A_FILE"),
            (
                vec!["gate", "--pack", special, "--audit", special],
                "E_LOCK_NOT_A_FILE",
            ),
            (
                vec!["gate", "--pack", "pack.lock.json", "--audit", special],
                "E_INPUT_NOT_A_FILE",
            ),
            (
                vec!["review", "pack.lock.json", "--config", special],
                "E_INPUT_NOT_A_FILE",
            ),
            (vec!["inspect", "layout", special], "E_INPUT_NOT_A_FILE"),
            (vec!["inspect", "trace", special], "E_INPUT_NOT_A_FILE"),
            (
                vec!["inspect", "hidumper", special, "--kind", "mem"],
                "E_INPUT_NOT_A_FILE",
            ),
            (
                vec!["verify-evidence", special, "--pack", "pack.lock.json"],
                "E_INPUT_NOT_A_FILE",
            ),
        ] {
            let (exit, stdout, stderr) = guarded(dir.path(), &args);
            assert_eq!(exit, 2, "{args:?}: {stderr}");
            assert!(
                stderr.contains(code) || stdout.contains(code),
                "{args:?} should say {code}: {stderr}"
            );
        }
    }
}

#[test]
fn a_capture_pointing_at_a_device_or_a_fifo_is_refused() {
    let dir = frozen_example();
    let layout = fs::read(repo("device-fixtures/notes-pass/files/layout-1.json")).unwrap();
    let capture = capture_with(dir.path(), "layout-1.json", &layout);
    let replay = |capture: &Path| {
        guarded(
            dir.path(),
            &[
                "audit",
                "--pack",
                "pack.lock.json",
                "--replay",
                capture.to_str().unwrap(),
                "--out",
                "out",
            ],
        )
    };
    // A reply file that is a FIFO: nobody ever writes it.
    fs::remove_file(capture.join("files/layout-1.json")).unwrap();
    fifo(&capture.join("files/layout-1.json"));
    let (code, _, stderr) = replay(&capture);
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("E_CAPTURE_NOT_A_FILE"), "{stderr}");
    // device.yaml linked to /dev/zero: outside the capture, refused before it is opened.
    fs::remove_file(capture.join("files/layout-1.json")).unwrap();
    fs::write(capture.join("files/layout-1.json"), &layout).unwrap();
    fs::remove_file(capture.join("device.yaml")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", capture.join("device.yaml")).unwrap();
    let (code, _, stderr) = replay(&capture);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("E_CAPTURE_PATH_ESCAPE"), "{stderr}");
    // device.yaml as a FIFO inside it: refused by type.
    fs::remove_file(capture.join("device.yaml")).unwrap();
    fifo(&capture.join("device.yaml"));
    let (code, _, stderr) = replay(&capture);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("E_CAPTURE_NOT_A_FILE"), "{stderr}");
}

#[test]
fn a_trace_on_standard_input_is_bounded_by_its_line_length() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = finish(
        crate::support::dwpipe_command()
            .args(["inspect", "trace", "-"])
            .stdin(fs::File::open("/dev/zero").unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .current_dir(dir.path())
            .spawn()
            .unwrap(),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("E_INSPECT_NOT_A_TRACE"), "{stderr}");
    assert!(stderr.contains("longer than 1048576 bytes"), "{stderr}");
    let empty = dir.path().join("empty.ftrace");
    fs::write(&empty, "").unwrap();
    let (code, _, stderr) = guarded(dir.path(), &["inspect", "trace", empty.to_str().unwrap()]);
    assert_eq!(code, 2, "an empty trace is no trace: {stderr}");
    assert!(stderr.contains("is empty"), "{stderr}");
}

#[test]
fn unwritable_outputs_are_exit_3() {
    let dir = frozen_example();
    fs::write(dir.path().join("a-file"), "").unwrap();
    let replay = repo("device-fixtures/notes-pass");
    for args in [
        vec![
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            replay.to_str().unwrap(),
            "--out",
            "a-file/out",
        ],
        vec![
            "freeze",
            repo("examples/notes/pack.yaml").to_str().unwrap(),
            "--out",
            "a-file/out",
            "--force",
        ],
    ] {
        let (code, _, stderr) = guarded(dir.path(), &args);
        assert_eq!(code, 3, "{args:?}: {stderr}");
        assert!(stderr.contains("error[E_"), "{stderr}");
        assert!(
            !stderr.contains(".tmp"),
            "the final path is named: {stderr}"
        );
    }
}

#[test]
fn full_streams_are_exit_3_and_a_broken_pipe_ends_quietly() {
    let dir = frozen_example();
    let full = || {
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let status = crate::support::dwpipe_command()
        .args(["freeze", "/nonexistent.yaml"])
        .stderr(full())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(3), "an error that cannot be told");
    let layout = repo("tests/fixtures/layout/notes.json");
    let status = crate::support::dwpipe_command()
        .args(["inspect", "layout", layout.to_str().unwrap(), "--json"])
        .stdout(full())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(3), "a result that cannot be written");
    // Help, the version and a completion script that cannot be written are failures too.
    for args in [&["completions", "bash"][..], &["--help"], &["--version"]] {
        let output = crate::support::dwpipe_command()
            .args(args)
            .stdout(full())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // `dwpipe audit --json | head -c1`: the reader goes away; the verdict is still the exit.
    let replay = repo("device-fixtures/notes-pass");
    let mut child = crate::support::dwpipe_command()
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            replay.to_str().unwrap(),
            "--out",
            "out",
            "--json",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let (code, _, stderr) = finish(child);
    assert_eq!(code, 0, "the passing audit's own exit: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(dir.path().join("out/audit-1.json").is_file());
}

#[test]
fn signals_stop_a_replayed_audit_and_a_trace_read() {
    let dir = frozen_example();
    // A cold-start trace of 40 MB: long enough to parse that the signal lands mid-audit.
    let trace = fs::read(repo("device-fixtures/notes-pass/files/cold-1.ftrace")).unwrap();
    let big = trace.repeat(40_000_000 / trace.len());
    let capture = capture_with(dir.path(), "cold-1.ftrace", &big);
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let child = crate::support::dwpipe_command()
            .args([
                "audit",
                "--pack",
                "pack.lock.json",
                "--replay",
                capture.to_str().unwrap(),
                "--out",
                "out",
            ])
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Under way once it has started keeping evidence.
        let deadline = Instant::now() + Duration::from_secs(30);
        while !dir.path().join("out/evidence").exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        crate::support::delivery::signal(&child, signal);
        let (code, _, stderr) = finish(child);
        assert_eq!(code, 130, "{stderr}");
        assert!(stderr.contains("E_INTERRUPTED"), "{stderr}");
        fs::remove_dir_all(dir.path().join("out")).unwrap();
    }
    // A trace read from a pipe that never ends.
    let mut child = crate::support::dwpipe_command()
        .args(["inspect", "trace", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &trace).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    crate::support::delivery::signal(&child, libc::SIGINT);
    let (code, _, stderr) = finish(child);
    assert_eq!(code, 130, "{stderr}");
}

#[test]
fn escape_sequences_from_a_device_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let hdc = dir.path().join("hdc");
    executable(
        &hdc,
        "#!/bin/sh\ncase \"$*\" in\n  *'list targets'*) printf 'EVIL\\033]0;pwned\\007\\033[2J\\t\\tUSB\\tConnected\\tlocalhost\\thdc\\n';;\n  *) printf 'model \\033[31mred\\n';;\nesac\n",
    );
    let Ran { stdout, stderr, .. } = Test::new(dir.path())
        .args(["devices", "--hdc", hdc.to_str().unwrap()])
        .status(0)
        .run();
    for text in [&stdout, &stderr] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
    }
    assert!(stdout.contains("EVIL\\u{1b}]0;pwned"), "{stdout}");
    assert!(
        stdout.contains("is not allowed in a device command"),
        "{stdout}"
    );
    // A serial like that never names a folder.
    let stderr = Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "x",
            "--device",
            "EVIL\u{1b}[2J",
            "--hdc",
            hdc.to_str().unwrap(),
        ])
        .status(2)
        .run()
        .stderr;
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
}

/// What the fuzz harness holds a parser to for an input of `input` bytes (its `text_bound`):
/// 64 times the input, plus 16 MiB.
fn fuzz_bound(input: usize) -> usize {
    64 * input + 16 * 1024 * 1024
}

/// `dwpipe args` in `dir` with its address space limited to `bytes` (`ulimit -v`).
fn bounded(dir: &Path, bytes: usize, args: &[&str]) -> (i32, String, String) {
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", bytes / 1024))
        .arg(env!("CARGO_BIN_EXE_dwpipe"))
        .args(args)
        .env("DWPIPE_LEASES", crate::support::own_leases())
        .current_dir(dir)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A report just under the 64 MiB limit, padded with many small objects (which a generic
/// JSON value holds at some eighty times their bytes: 5.75 GB for this one), is read straight
/// into its shape by `history import` and `brief --repair-from` within the fuzz harness's
/// memory bound.
#[test]
fn a_report_of_63_mib_is_read_in_its_shape_within_the_fuzz_bound() {
    let dir = frozen_example();
    replay_audit(dir.path(), &repo("device-fixtures/notes-fail"))
        .status(1)
        .run();
    let report = fs::read_to_string(dir.path().join("out/audit-1.json")).unwrap();
    let target = 63 * 1024 * 1024;
    let padding = "{\"a\":0},".repeat((target - report.len()) / 8 - 4);
    let padded = format!(
        "{}, \"x-padding\": [{}{{}}]}}",
        report.trim_end().strip_suffix('}').unwrap(),
        padding
    );
    assert!(padded.len() < 64 * 1024 * 1024 && padded.len() > 62 * 1024 * 1024);
    fs::write(dir.path().join("out/audit-1.json"), &padded).unwrap();
    let bound = fuzz_bound(padded.len());
    let (code, stdout, stderr) = bounded(
        dir.path(),
        bound,
        &["history", "--history", "h.sqlite", "import", "out"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("imported 1 audit(s)"), "{stdout}");
    let (code, stdout, stderr) = bounded(
        dir.path(),
        bound,
        &[
            "brief",
            "pack.lock.json",
            "--repair-from",
            "out/audit-1.json",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("measured: 1200ms; required: ≤ 800 ms"),
        "{stdout}"
    );
}

/// An hdc whose server lists a device named with 70,000 characters and one whose name holds
/// ESC, BEL and NUL, and answers nothing else sensibly.
fn hostile_hdc(dir: &Path) -> std::path::PathBuf {
    let hdc = dir.join("hdc");
    let long = "L".repeat(70_000);
    executable(
        &hdc,
        &format!(
            "#!/bin/sh\ncase \"$*\" in\n  *'list targets'*) printf '{long}\\t\\tUSB\\tConnected\\tlocalhost\\thdc\\nBAD\\033[2J\\007\\000NAME\\t\\tUSB\\tConnected\\tlocalhost\\thdc\\n';;\n  *) printf 'model \\033[31mred\\007\\000\\n';;\nesac\n"
        ),
    );
    hdc
}

/// Every line of `text` is short enough to read, and no control character but a newline
/// is in it.
#[track_caller]
fn readable(what: &str, text: &str) {
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{what} holds a control character"
    );
    let longest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest < 4_000, "{what} has a line of {longest} characters");
}

/// Device text is data: a 70,000-character device name and control bytes neither panic
/// `devices`, a lab audit nor an A/B lab (their format widths), nor reach the terminal,
/// `lab.md`, `lab.html`, `ab-lab.md` raw.
#[test]
fn a_device_named_with_70000_characters_and_control_bytes_is_shown_bounded_and_escaped() {
    let dir = frozen_example();
    let hdc = hostile_hdc(dir.path());
    let hdc = hdc.to_str().unwrap();
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["--hdc", hdc, "devices"])
        .status(0)
        .run();
    readable("devices", &stdout);
    assert!(stdout.contains("BAD\\u{1b}[2J\\u{7}\\u{0}NAME"), "{stdout}");

    let Ran { stdout, stderr, .. } = Test::new(dir.path())
        .args([
            "--hdc",
            hdc,
            "audit",
            "--pack",
            "pack.lock.json",
            "--devices",
            "all",
            "--out",
            "lab",
        ])
        .status(3)
        .run();
    readable("the lab's terminal table", &stdout);
    readable("the lab's stderr", &stderr);
    for file in ["lab/lab.md", "lab/lab.html"] {
        readable(file, &fs::read_to_string(dir.path().join(file)).unwrap());
    }
    let lab: dwpipe::schema::LabReport = crate::support::read(dir.path().join("lab/lab.json"));
    assert_eq!(lab.devices[0].serial.len(), 70_000, "the data is kept");

    let hap = repo("device-fixtures/haps/notes-1.0.hap");
    let hap = hap.to_str().unwrap();
    let Ran { stdout, .. } = Test::new(dir.path())
        .args([
            "--hdc",
            hdc,
            "audit",
            "--pack",
            "pack.lock.json",
            "--devices",
            "all",
            "--baseline-hap",
            hap,
            "--candidate-hap",
            hap,
            "--out",
            "ab",
        ])
        .status(3)
        .run();
    readable("the A/B lab's terminal table", &stdout);
    readable(
        "ab-lab.md",
        &fs::read_to_string(dir.path().join("ab/ab-lab.md")).unwrap(),
    );
}
