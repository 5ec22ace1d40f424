//! The device layer through the real process path: the hdc driver against `fake-hdc`
//! (serving hand-written captures, with scripted faults), replay and recording, and the
//! `devices` / `capture` commands of the real binary.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dwpipe::device::{
    CallTimeouts, Device, DeviceError, Hdc, HdcDevice, RecordingDevice, ReplayDevice, Server,
};
use dwpipe::hash::sha256_hex;
use dwpipe::process::Cancel;
use dwpipe::shell::{ShellCommand, ShellValue};

use crate::support::{Ran, Test};
use dwpipe::device::DevicesReport;

const SERIAL: &str = "FMR0223C13000649";

fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// A temp folder with captures and an `hdc` wrapper that runs `fake-hdc` serving them.
struct Lab {
    dir: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        Lab {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes a capture: device.yaml for `serial`, the transcript, and files.
    fn capture(
        &self,
        name: &str,
        serial: &str,
        transcript: &str,
        files: &[(&str, &[u8])],
    ) -> PathBuf {
        let root = self.path(name);
        fs::create_dir_all(root.join("files")).unwrap();
        fs::write(
            root.join("device.yaml"),
            format!("serial: {serial}\nname: HUAWEI Mate 60 Pro\nmodel: ALN-AL00\nsoftware-version: ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)\napi-level: 12\nvirtual-pixel-ratio: 3.25\n"),
        )
        .unwrap();
        let mut transcript = transcript.to_owned();
        for (file, bytes) in files {
            fs::write(root.join("files").join(file), bytes).unwrap();
            transcript = transcript.replace(&format!("{{sha256:{file}}}"), &sha256_hex(bytes));
        }
        fs::write(
            root.join("transcript.yaml"),
            format!("format-version: 1\nexchanges:\n{transcript}"),
        )
        .unwrap();
        root
    }

    /// An `hdc` for these captures (`server=capture` entries as fake-hdc reads them).
    fn hdc(&self, captures: &[String], extra_env: &str) -> PathBuf {
        let name = format!("hdc-{}", captures.len() + extra_env.len());
        crate::support::fake_hdc(self.dir.path(), &name, captures, extra_env)
    }

    fn driver(&self, hdc: PathBuf, timeouts: CallTimeouts) -> Hdc {
        Hdc::new(hdc, None, timeouts, Cancel::new())
    }

    /// The device of a single capture on the local fake server.
    fn phone(
        &self,
        transcript: &str,
        files: &[(&str, &[u8])],
        timeouts: CallTimeouts,
    ) -> HdcDevice {
        let capture = self.capture("phone", SERIAL, transcript, files);
        let hdc = self.driver(self.hdc(&[capture.display().to_string()], ""), timeouts);
        hdc.device(SERIAL).unwrap()
    }
}

fn shell(text: &str) -> ShellCommand {
    ShellCommand::render(text, &[]).unwrap()
}

const FORCE_STOP: &str = "  - shell: aa force-stop com.example.notes\n    reply: \"force stop process successfully.\\n\"\n";

#[test]
fn shell_pull_and_identity_through_the_real_process_path() {
    let lab = Lab::new();
    let transcript = format!(
        "{FORCE_STOP}  - shell: ls /nope\n    reply: \"ls: /nope: No such file or directory\\n\"\n    status: 1\n  - pull: /data/local/tmp/t.ftrace\n    file: files/t.ftrace\n    sha256: {{sha256:t.ftrace}}\n"
    );
    let device = lab.phone(
        &transcript,
        &[("t.ftrace", b"trace bytes\n")],
        CallTimeouts::default(),
    );
    block_on(async {
        let info = device.identity().await.unwrap();
        assert_eq!(info.model.as_deref(), Some("ALN-AL00"));
        assert_eq!(info.api_level, Some(12));
        assert_eq!(info.virtual_pixel_ratio, Some(3.25));
        let reply = device
            .shell(&shell("aa force-stop com.example.notes"))
            .await
            .unwrap();
        assert_eq!(
            (reply.output.as_str(), reply.status),
            ("force stop process successfully.\n", 0)
        );
        let reply = device.shell(&shell("ls /nope")).await.unwrap();
        assert_eq!(
            reply.status, 1,
            "the device status comes from the sentinel, not hdc's exit code"
        );
        let local = lab.path("pulled.ftrace");
        device
            .pull(
                &ShellValue::remote_path("/data/local/tmp/t.ftrace").unwrap(),
                &local,
            )
            .await
            .unwrap();
        assert_eq!(fs::read(&local).unwrap(), b"trace bytes\n");
    });
}

#[test]
fn a_missing_device_a_vanishing_one_and_an_unreachable_server_are_typed() {
    let lab = Lab::new();
    let capture = lab.capture(
        "phone",
        SERIAL,
        &format!("{FORCE_STOP}  - fault: vanish\n"),
        &[],
    );
    let hdc_path = lab.hdc(&[capture.display().to_string()], "");
    let hdc = lab.driver(hdc_path.clone(), CallTimeouts::default());
    block_on(async {
        let stranger = hdc.device("NOTCONNECTED01").unwrap();
        assert!(matches!(
            stranger.shell(&shell("echo hi")).await,
            Err(DeviceError::DeviceNotFound { .. })
        ));
        let device = hdc.device(SERIAL).unwrap();
        device
            .shell(&shell("aa force-stop com.example.notes"))
            .await
            .unwrap();
        let gone = device
            .shell(&shell("aa force-stop com.example.notes"))
            .await;
        assert!(
            matches!(gone, Err(DeviceError::DeviceNotFound { .. })),
            "{gone:?}"
        );
        let again = device.identity().await;
        assert!(
            matches!(again, Err(DeviceError::DeviceNotFound { .. })),
            "stays gone: {again:?}"
        );
        let targets = hdc.list_targets().await.unwrap();
        assert_eq!(targets[0].status, "Offline");
        let remote = Hdc::new(
            hdc_path,
            Some(Server::parse("10.9.9.9:8710").unwrap()),
            CallTimeouts::default(),
            Cancel::new(),
        );
        assert!(matches!(
            remote.list_targets().await,
            Err(DeviceError::ServerUnreachable { .. })
        ));
    });
}

#[test]
fn a_hung_call_is_stopped_within_its_limit_plus_the_grace_period() {
    let lab = Lab::new();
    let capture = lab.capture(
        "phone",
        SERIAL,
        "  - shell: hitrace --trace_finish\n    fault: hang\n",
        &[],
    );
    let timeouts = CallTimeouts {
        grace: Duration::from_millis(300),
        ..CallTimeouts::all(Duration::from_millis(500))
    };
    let hdc = lab.driver(lab.hdc(&[capture.display().to_string()], ""), timeouts);
    let device = hdc.device(SERIAL).unwrap();
    let started = Instant::now();
    let result = block_on(device.shell(&shell("hitrace --trace_finish")));
    assert!(
        matches!(result, Err(DeviceError::Timeout { .. })),
        "{result:?}"
    );
    // Generous: only a driver that waited for the hung fake would break it.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn fail_replies_with_exit_0_and_missing_status_lines_are_errors() {
    let lab = Lab::new();
    let transcript = "  - shell: mkdir /data/local/tmp/x\n    reply: \"[Fail][E005005] Error create directory: x, path:/data\\r\\n\"\n    fault: hdc-reply\n  - shell: echo half\n    reply: \"half\\n\"\n    fault: hdc-reply\n";
    let device = lab.phone(transcript, &[], CallTimeouts::default());
    block_on(async {
        match device.shell(&shell("mkdir /data/local/tmp/x")).await {
            Err(DeviceError::HdcFailed { code, message }) => {
                assert_eq!(code.as_deref(), Some("E005005"));
                assert!(message.starts_with("Error create directory"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            device.shell(&shell("echo half")).await,
            Err(DeviceError::NoStatus { .. })
        ));
    });
}

/// hdc refuses a call while a device's channel is being established (`[E000004]`, seen on the
/// real stack just after an unauthorized phone joined): the call is asked again.
#[test]
fn a_call_hdc_refuses_while_the_channel_is_established_is_asked_again() {
    let lab = Lab::new();
    let establishing = "    reply: \"[Fail][E000004]:The communication channel is being established. Please wait for several seconds and try again.\\r\\n\"\n    fault: hdc-reply\n";
    let transcript = format!(
        "  - shell: param get x\n{establishing}  - shell: param get x\n{establishing}  - shell: param get x\n    reply: \"1\\n\"\n"
    );
    let device = lab.phone(&transcript, &[], CallTimeouts::default());
    let started = Instant::now();
    let reply = block_on(device.shell(&shell("param get x"))).unwrap();
    assert_eq!(reply.output, "1\n");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_100_mb_reply_is_read_in_bounded_memory() {
    let lab = Lab::new();
    let reply = block_on(
        lab.phone(
            "  - shell: cat /dev/zero\n    reply: \"start\\n\"\n    flood: 100000000\n",
            &[],
            CallTimeouts::default(),
        )
        .shell(&shell("cat /dev/zero")),
    )
    .unwrap();
    assert_eq!(
        reply.status, 0,
        "the sentinel at the end survives in the kept tail"
    );
    assert!(reply.output.starts_with("start\n"));
    assert!(
        reply.output.len() < 6 * 1024 * 1024,
        "{} bytes kept",
        reply.output.len()
    );
    assert!(reply.output.contains("bytes dropped"));
}

#[test]
fn replay_refuses_tampered_escaping_missing_and_reordered_captures() {
    let lab = Lab::new();
    let pull = "  - pull: /data/local/tmp/t.ftrace\n    file: files/t.ftrace\n    sha256: {sha256:t.ftrace}\n";
    let capture = lab.capture("tampered", SERIAL, pull, &[("t.ftrace", b"original")]);
    fs::write(capture.join("files/t.ftrace"), b"edited").unwrap();
    let device = ReplayDevice::open(&capture).unwrap();
    let result = block_on(device.pull(
        &ShellValue::remote_path("/data/local/tmp/t.ftrace").unwrap(),
        &lab.path("out"),
    ));
    assert_eq!(result.unwrap_err().code(), "E_CAPTURE_TAMPERED");
    assert!(
        !lab.path("out").exists(),
        "nothing written from a tampered file"
    );

    let escaping = lab.capture(
        "escape",
        SERIAL,
        "  - shell: cat x\n    reply-file: ../escape/../../etc/passwd\n",
        &[],
    );
    assert_eq!(
        ReplayDevice::open(&escaping).unwrap_err().code(),
        "E_CAPTURE_PATH_ESCAPE"
    );
    let absolute = lab.capture("absolute", SERIAL, "  - pull: /data/local/tmp/x\n    file: /etc/passwd\n    sha256: 0000000000000000000000000000000000000000000000000000000000000000\n", &[]);
    assert_eq!(
        ReplayDevice::open(&absolute).unwrap_err().code(),
        "E_CAPTURE_PATH_ESCAPE"
    );

    let missing = lab.capture("missing", SERIAL, "  - pull: /data/local/tmp/x\n    file: files/none\n    sha256: 0000000000000000000000000000000000000000000000000000000000000000\n", &[]);
    assert_eq!(
        ReplayDevice::open(&missing).unwrap_err().code(),
        "E_CAPTURE_MISSING_FILE"
    );

    let ordered = lab.capture("order", SERIAL, "  - shell: hitrace --trace_finish\n  - shell: aa start -b com.example.notes -a EntryAbility\n", &[]);
    let device = ReplayDevice::open(&ordered).unwrap();
    let error = block_on(device.shell(&shell("aa start -b com.example.notes -a EntryAbility")))
        .unwrap_err();
    assert_eq!(error.code(), "E_CAPTURE_MISMATCH");
    assert_eq!(
        error.to_string(),
        format!(
            "{} (exchange 1): expected `shell hitrace --trace_finish`, got `shell aa start -b com.example.notes -a EntryAbility`",
            fs::canonicalize(&ordered)
                .unwrap()
                .join("transcript.yaml")
                .display()
        )
    );
    for (name, transcript, words) in [
        (
            "two-ops",
            "  - shell: ls\n    pull: /data/local/tmp/x\n",
            "more than one operation",
        ),
        ("no-op", "  - reply: x\n", "no operation"),
        ("quote", "  - shell: echo \"x\"\n", "double quotes"),
        (
            "fault",
            "  - shell: ls\n    fault: explode\n",
            "unknown fault",
        ),
        ("key", "  - shell: ls\n    replay: x\n", "`replay`"),
    ] {
        let capture = lab.capture(name, SERIAL, transcript, &[]);
        let error = ReplayDevice::open(&capture).unwrap_err();
        assert_eq!(error.code(), "E_CAPTURE_INVALID", "{name}: {error}");
        // One code per message: the capture's, not the parser's inside it too.
        let message = error.to_string();
        assert!(
            message.contains(words) && !message.contains("E_"),
            "{name}: {message}"
        );
    }
}

#[test]
fn a_recording_replays_to_the_same_answers() {
    let lab = Lab::new();
    let transcript = format!(
        "{FORCE_STOP}  - pull: /data/local/tmp/t.ftrace\n    file: files/t.ftrace\n    sha256: {{sha256:t.ftrace}}\n  - shell: hidumper --mem 1234\n    reply-file: files/mem.txt\n"
    );
    let long_reply = "Total PSS: 123456 kB\n".repeat(200);
    let phone = lab.phone(
        &transcript,
        &[("t.ftrace", b"trace"), ("mem.txt", long_reply.as_bytes())],
        CallTimeouts::default(),
    );
    let recorded = lab.path("recorded");
    let remote = ShellValue::remote_path("/data/local/tmp/t.ftrace").unwrap();
    let live = block_on(async {
        let device = RecordingDevice::new(phone, &recorded).unwrap();
        let answers = same_calls(&device, lab.path("pulled"), &remote).await;
        device.finish().await.unwrap();
        answers
    });
    let replayed = block_on(same_calls(
        &ReplayDevice::open(&recorded).unwrap(),
        lab.path("pulled-again"),
        &remote,
    ));
    assert_eq!(live, replayed);
    assert_eq!(
        live.2, long_reply,
        "long replies go to a reply file and come back whole"
    );
    assert!(fs::read_dir(recorded.join("replies")).unwrap().count() == 1);
}

#[test]
fn push_install_and_uninstall_through_hdc_and_back_from_a_recording() {
    let lab = Lab::new();
    let downgrade = "[Info]App install path:old.hap, queuesize:0, msg:error: failed to install bundle. code:9568263 error: install version downgrade.\\nAppMod finish\\n";
    let transcript = format!(
        "  - push: /data/local/tmp/entry.hap\n  - install: entry-default-signed.hap\n  - uninstall: com.example.notes\n  - install: old.hap\n    reply: \"{downgrade}\"\n"
    );
    let phone = lab.phone(&transcript, &[], CallTimeouts::default());
    let hap = lab.path("entry-default-signed.hap");
    fs::write(&hap, b"a signed hap").unwrap();
    let remote = ShellValue::remote_path("/data/local/tmp/entry.hap").unwrap();
    let bundle = ShellValue::bundle("com.example.notes").unwrap();
    let recorded = lab.path("recorded");
    block_on(async {
        let device = RecordingDevice::new(phone, &recorded).unwrap();
        device.push(&hap, &remote).await.unwrap();
        device.install(&hap).await.unwrap();
        device.uninstall(&bundle).await.unwrap();
        // The bundle manager's refusal arrives as text with exit 0: read from the text.
        let refused = device.install(&lab.path("old.hap")).await;
        assert!(
            matches!(
                &refused,
                Err(DeviceError::App { operation: "install", code: Some(code), .. }) if code == "9568263"
            ),
            "{refused:?}"
        );
        device.finish().await.unwrap();
    });
    // The recording replays what succeeded, in order, and nothing past it.
    let replay = ReplayDevice::open(&recorded).unwrap();
    block_on(async {
        replay.push(&hap, &remote).await.unwrap();
        replay.install(&hap).await.unwrap();
        replay.uninstall(&bundle).await.unwrap();
        assert!(
            matches!(replay.install(&hap).await, Err(DeviceError::Capture(_))),
            "past the end of the recording"
        );
    });
}

/// The same sequence of calls against any device: what a recording must reproduce.
async fn same_calls(
    device: &impl Device,
    local: PathBuf,
    remote: &ShellValue,
) -> (String, Vec<u8>, String, Option<f64>) {
    let stop = device
        .shell(&shell("aa force-stop com.example.notes"))
        .await
        .unwrap()
        .output;
    device.pull(remote, &local).await.unwrap();
    let mem = device
        .shell(&shell("hidumper --mem 1234"))
        .await
        .unwrap()
        .output;
    let density = device.identity().await.unwrap().virtual_pixel_ratio;
    (stop, fs::read(&local).unwrap(), mem, density)
}

#[test]
fn devices_lists_every_server_and_reports_the_unreachable_ones() {
    let lab = Lab::new();
    let a = lab.capture("a", SERIAL, "", &[]);
    let b = lab.capture("b", "127.0.0.1:5555", "", &[]);
    let hdc = lab.hdc(
        &[
            format!("10.0.0.5:8710={}", a.display()),
            format!("10.0.0.6:8710={}", b.display()),
        ],
        "",
    );
    let hdc = hdc.to_str().unwrap();
    let Ran { stdout, .. } = Test::new(Path::new("."))
        .args([
            "--hdc",
            hdc,
            "devices",
            "--server",
            "10.0.0.5:8710",
            "--server",
            "10.0.0.6:8710",
            "--server",
            "10.0.0.7:8710",
            "--json",
        ])
        .status(0)
        .run();
    let listed: DevicesReport = crate::support::parse(&stdout);
    let servers = &listed.servers;
    assert_eq!(servers.len(), 3);
    assert_eq!(servers[0].devices[0].serial, SERIAL);
    assert_eq!(servers[0].devices[0].virtual_pixel_ratio, Some(3.25));
    assert_eq!(servers[1].devices[0].transport, "TCP");
    assert!(!servers[2].reachable);
    assert!(
        servers[2]
            .error
            .as_deref()
            .is_some_and(|e| e.contains("Connect server failed"))
    );

    let stdout = Test::new(Path::new("."))
        .args(["--hdc", hdc, "devices", "--server", "10.0.0.5:8710"])
        .status(0)
        .run()
        .stdout;
    assert!(
        stdout.contains("ALN-AL00") && stdout.contains("3.25"),
        "{stdout}"
    );
    Test::new(Path::new("."))
        .args(["--hdc", hdc, "devices", "--server", "10.0.0.7:8710"])
        .status(3)
        .run();
}

#[test]
fn a_missing_hdc_is_an_environment_error_naming_the_path() {
    let stderr = Test::new(Path::new("."))
        .args(["--hdc", "/nonexistent/bin/hdc", "devices"])
        .status(3)
        .run()
        .stderr;
    assert!(stderr.contains("/nonexistent/bin/hdc"), "{stderr}");
    Test::new(Path::new("."))
        .args(["devices"])
        .env("DWPIPE_HDC", "/elsewhere/hdc")
        .status(3)
        .stderr_contains("/elsewhere/hdc")
        .run();
}

#[test]
fn identify_records_the_identity_and_refuses_unsafe_serials_before_spawning() {
    let lab = Lab::new();
    let source = lab.capture("phone", SERIAL, "", &[]);
    let hdc = lab.hdc(&[source.display().to_string()], "");
    let out = lab.path("recorded");
    let Ran { stdout, .. } = Test::new(Path::new("."))
        .args([
            "--hdc",
            hdc.to_str().unwrap(),
            "identify",
            "--device",
            SERIAL,
            "--out",
            out.to_str().unwrap(),
        ])
        .status(0)
        .run();
    assert!(stdout.contains("ALN-AL00"));
    let replayed = ReplayDevice::open(&out).unwrap();
    assert_eq!(
        block_on(replayed.identity()).unwrap().virtual_pixel_ratio,
        Some(3.25)
    );
    let _stderr = Test::new(Path::new("."))
        .args([
            "--hdc",
            hdc.to_str().unwrap(),
            "identify",
            "--device",
            SERIAL,
            "--out",
            out.to_str().unwrap(),
        ])
        .status(2)
        .run()
        .stderr;

    // A serial that would smuggle a shell: refused with hdc never run (it does not exist).
    let stderr = Test::new(Path::new("."))
        .args([
            "--hdc",
            "/nonexistent/hdc",
            "identify",
            "--device",
            "x; rm -rf /",
            "--out",
            lab.path("evil").to_str().unwrap(),
        ])
        .status(2)
        .run()
        .stderr;
    assert!(
        stderr.contains("serial") && !stderr.contains("hdc not found"),
        "{stderr}"
    );
    assert!(ShellValue::bundle("com.x; rm -rf /").is_err());
    // A failed recording leaves no empty folder behind.
    let gone = lab.path("never");
    Test::new(Path::new("."))
        .args([
            "--hdc",
            "/nonexistent/hdc",
            "identify",
            "--device",
            SERIAL,
            "--out",
            gone.to_str().unwrap(),
        ])
        .status(3)
        .run();
    assert!(!gone.exists(), "a failed identify leaves nothing");
    // The name earlier releases gave it says where each of its jobs went.
    let stderr = Test::new(Path::new("."))
        .args(["capture", "--device", SERIAL, "--out", "x"])
        .status(2)
        .run()
        .stderr;
    assert!(
        stderr.contains("E_COMMAND_RENAMED")
            && stderr.contains("dwpipe identify")
            && stderr.contains("dwpipe audit --pack pack.lock.json --device SERIAL --record DIR"),
        "{stderr}"
    );
}

#[cfg(feature = "real-captures")]
mod real_captures {
    //! The parsers against device output captured by other people (`../shared/captures`).

    use dwpipe::device::{hdc_failure, parse_targets, split_sentinel};

    /// One capture's reply, without the command line its author wrote; `None` when the
    /// captures are not there (the test is then skipped, with a line saying so).
    fn capture(path: &str) -> Option<String> {
        let root = crate::support::real_captures()?;
        let text = std::fs::read_to_string(root.join(path)).unwrap();
        // Drop the `$ command` line and the blank line the source authors wrote.
        Some(
            text.lines()
                .skip_while(|l| l.starts_with('$') || l.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n")
                + "\n",
        )
    }

    #[test]
    fn list_targets_in_both_real_layouts() {
        if crate::support::real_captures().is_none() {
            return;
        }
        let capture = |path| capture(path).unwrap();
        let verbose = parse_targets(&capture("hdc/awesomehdc_list_targets_v.txt"));
        assert_eq!(verbose.len(), 2);
        assert_eq!(
            (verbose[0].serial.as_str(), verbose[0].transport.as_str()),
            ("127.0.0.1:5555", "TCP")
        );
        assert!(verbose.iter().all(dwpipe::device::Target::is_connected));
        let plain = parse_targets(&capture("hdc/awesomehdc_list_targets.txt"));
        assert_eq!(
            plain.iter().map(|t| t.serial.as_str()).collect::<Vec<_>>(),
            ["127.0.0.1:5555", "FMR0223C13000649"]
        );
        let documented = parse_targets(&capture("hdc/docs_en_hdc_list_targets_examples.txt"));
        assert!(documented.iter().any(|t| t.status == "Offline"));
    }

    #[test]
    fn density_from_the_real_display_manager_dump() {
        if crate::support::real_captures().is_none() {
            return;
        }
        let capture = |path| capture(path).unwrap();
        let dump = capture("hidumper/awesomehdc_displaymanagerservice_a_mate60pro.txt");
        assert_eq!(dwpipe::device::virtual_pixel_ratio(&dump), Some(3.25));
    }

    #[test]
    fn real_replies_are_not_mistaken_for_failures() {
        if crate::support::real_captures().is_none() {
            return;
        }
        let capture = |path| capture(path).unwrap();
        for file in [
            "hdc/awesomehdc_param_get_model.txt",
            "hdc/awesomehdc_file_recv.txt",
            "hdc/awesomehdc_app_install.txt",
        ] {
            assert_eq!(hdc_failure(&capture(file), ""), None, "{file}");
        }
        assert_eq!(
            split_sentinel(&capture("hdc/awesomehdc_param_get_apiversion.txt")),
            None
        );
    }
}

#[test]
fn ctrl_c_stops_the_hdc_children_and_exits_130() {
    let lab = Lab::new();
    let capture = lab.capture("phone", SERIAL, "", &[]);
    let hdc = lab.hdc(
        &[capture.display().to_string()],
        "DWPIPE_FAKE_HDC_LATENCY=30s",
    );
    let started = Instant::now();
    let child = crate::support::dwpipe_command()
        .args([
            "--hdc",
            hdc.to_str().unwrap(),
            "devices",
            "--call-timeout",
            "60s",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    crate::support::delivery::signal(&child, libc::SIGINT);
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Generous: a dwpipe that waited for the 30 s fake call would break it.
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

/// hdc's `-s` takes IP literals only and prints `-s content IP incorrect.` (exit 0) for
/// anything else: a host name is resolved before hdc runs, `[v6]:PORT` is handed over
/// unbracketed, and the refusal is the server's error, never a device row.
#[test]
fn servers_are_handed_to_hdc_as_it_accepts_them() {
    let dir = tempfile::tempdir().unwrap();
    let hdc = dir.path().join("hdc");
    // A stand-in applying hdc's rule (main.cpp, FormatServerListenString) to the addresses
    // this test gives: only an IP literal is taken.
    crate::support::executable(
        &hdc,
        "#!/bin/sh\ncase \"$2\" in\n  127.0.0.1:8710|::1:8710) echo '[Empty]' ;;\n  *) echo '-s content IP incorrect.' ;;\nesac\nexit 0\n",
    );
    let hdc = hdc.to_str().unwrap();
    let survey = |server: &str, status: i32| {
        let stdout = Test::new(Path::new("."))
            .args(["--hdc", hdc, "devices", "--server", server, "--json"])
            .status(status)
            .run()
            .stdout;
        let mut listed: DevicesReport = crate::support::parse(&stdout);
        listed.servers.remove(0)
    };
    for server in ["localhost:8710", "[::1]:8710", "127.0.0.1:8710"] {
        let report = survey(server, 0);
        assert!(report.reachable, "{server}: {report:?}");
        assert!(report.devices.is_empty(), "{report:?}");
    }
    let report = survey("localhost:8710", 0);
    assert_eq!(report.server, "localhost:8710 (127.0.0.1)", "{report:?}");
    // Whatever hdc refuses is the server's error.
    let report = survey("10.0.0.9:8710", 3);
    assert!(!report.reachable, "{report:?}");
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("hdc refused its options: -s content IP incorrect.")),
        "{report:?}"
    );
    assert!(report.devices.is_empty(), "{report:?}");
    // A name that does not resolve is refused before hdc runs, with the fix.
    let stderr = Test::new(Path::new("."))
        .args([
            "--hdc",
            hdc,
            "devices",
            "--server",
            "no-such-host.invalid:8710",
        ])
        .status(2)
        .run()
        .stderr;
    assert!(
        stderr.contains("does not resolve") && stderr.contains("give the server's address"),
        "{stderr}"
    );
}
