//! What `devices`, `doctor` and `identify` read through the real client and server: phones
//! serving their identity, a shell without the phone's tools, an unauthorized and an offline
//! device; a pull cut mid-way by the phone going; and servers that are not there or do not
//! speak hdc.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use super::stack::{Stack, Tools, free_port};

#[test]
fn devices_doctor_and_identify_read_every_kind_of_device_through_the_real_stack() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let Some(mut stack) = Stack::start(dir) else {
        return;
    };
    let phone = stack.phone(Tools::Serving("notes-pass")).key.clone();
    let bare = stack.phone(Tools::None).key.clone();
    let unauthorized = stack.phone(Tools::Unauthorized).key.clone();
    let offline = stack.offline_device();
    let server = stack.server.clone();

    let (code, stdout, stderr) = stack.run(dir, &["devices", "--server", &server, "--json"]);
    assert_eq!(code, 0, "{stdout}{stderr}{}", stack.logs());
    let listed: dwpipe::device::DevicesReport = crate::support::parse(&stdout);
    let devices = &listed.servers[0].devices;
    let row = |key: &str| {
        devices
            .iter()
            .find(|d| d.serial == key)
            .unwrap_or_else(|| panic!("{key} not listed: {stdout}"))
    };
    assert_eq!(row(&phone).model.as_deref(), Some("ALN-AL00"), "{stdout}");
    assert_eq!(row(&phone).virtual_pixel_ratio, Some(3.25), "{stdout}");
    // A shell that answers `param` with its own error gives no identity value (the daemon's
    // `/bin/sh: 1: param: not found` is not a model; its name is the listing's).
    assert!(row(&bare).model.is_none(), "{stdout}");
    assert!(row(&bare).software_version.is_none(), "{stdout}");
    assert!(!stdout.contains("not found"), "{stdout}");
    assert_eq!(row(&unauthorized).status, "Unauthorized", "{stdout}");
    assert_eq!(row(&offline).status, "Offline", "{stdout}");

    // An unauthorized device keeps hdc's advice: what to run, and where to confirm.
    let (code, stdout, stderr) = stack.run(
        dir,
        &["doctor", "--device", &unauthorized, "--server", &server],
    );
    assert_eq!(code, 3, "{stdout}{stderr}");
    let said = format!("{stdout}{stderr}");
    for words in [
        "error[E_DEVICE_UNAUTHORIZED]",
        "The device unauthorized",
        "check for a confirmation dialog on your device",
    ] {
        assert!(said.contains(words), "{words}: {said}");
    }
    // hdcd sends `[E000002]` while its confirmation dialog is up and `[E000003]` once it is
    // refused (daemon.cpp, the handshake's auth): which reaches the client first is a race
    // between the two, and either is kept as hdc said it.
    assert!(
        said.contains("Please execute 'hdc kill' and redo your command")
            || said.contains("Otherwise try 'hdc kill' if that seems wrong"),
        "{said}"
    );
    // An offline one keeps hdc's words with their code.
    let (code, stdout, stderr) =
        stack.run(dir, &["doctor", "--device", &offline, "--server", &server]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    let said = format!("{stdout}{stderr}");
    assert!(
        said.contains("error[E_DEVICE_NOT_FOUND]")
            && said.contains("[E001005] Device not found or connected"),
        "{said}"
    );

    // `identify` writes what the phone said of itself.
    let (code, stdout, stderr) = stack.run(
        dir,
        &[
            "identify", "--device", &phone, "--server", &server, "--out", "phone",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let identity = std::fs::read_to_string(dir.join("phone/device.yaml")).unwrap();
    for line in [
        format!("serial: {phone}"),
        "model: ALN-AL00".to_owned(),
        "virtual-pixel-ratio: 3.25".to_owned(),
        "refresh-rate: 60".to_owned(),
    ] {
        assert!(identity.contains(&line), "{line}: {identity}");
    }
    // And `doctor` of the bare shell says its density is unknown, never an error text as a name.
    let (code, stdout, stderr) =
        stack.run(dir, &["doctor", "--device", &bare, "--server", &server]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(
        stderr.contains("its density (VirtualPixelRatio) is unknown")
            && stderr.contains("without the phone's tools")
            && !format!("{stdout}{stderr}").contains("/bin/sh"),
        "{stdout}{stderr}"
    );

    // Each phone doctor cannot use is called by what it is in the table, never "missing";
    // a frozen one by the step that did not answer, not by the shell line it sent.
    let frozen = stack.phone(Tools::Serving("notes-pass"));
    let frozen_key = frozen.key.clone();
    frozen.freeze();
    for (key, status) in [
        (&unauthorized, "unauthorized"),
        (&offline, "offline"),
        (&bare, "no tools"),
        (&"127.0.0.1:9".to_owned(), "not listed"),
        (&frozen_key, "not answering"),
    ] {
        let (code, stdout, stderr) = stack.run(
            dir,
            &[
                "doctor",
                "--device",
                key,
                "--server",
                &server,
                "--call-timeout",
                "3s",
            ],
        );
        assert_eq!(code, 3, "{key}: {stdout}{stderr}");
        let row = stdout
            .lines()
            .find(|l| l.starts_with("device"))
            .unwrap_or_else(|| panic!("{key}: no device row: {stdout}"));
        assert!(
            row.trim_end().ends_with(status),
            "{key}: {status}: {row}\n{stderr}"
        );
        assert!(!stdout.contains("missing"), "{key}: {stdout}");
        if key == &frozen_key {
            assert!(
                stderr.contains("error[E_DEVICE_TIMEOUT]")
                    && stderr.contains(&format!("reading device {key}'s identity"))
                    && !stderr.contains("__DWPIPE"),
                "{stderr}"
            );
        }
    }
}

/// A server that accepts and greets in something else than hdc's protocol: the hello
/// fake-hdc's server mode sent (its length field `00000001`).
fn foreign_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut hello = 1u32.to_be_bytes().to_vec();
                hello.extend_from_slice(b"OHOS HDC");
                hello.resize(48, 0);
                let _ = stream.write_all(&hello);
                let _ = stream.read_to_end(&mut Vec::new());
            });
        }
    });
    port
}

#[test]
fn a_server_that_does_not_speak_hdc_is_named_never_an_empty_lab() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let Some(stack) = Stack::start(dir) else {
        return;
    };
    let foreign = format!("127.0.0.1:{}", foreign_server());
    // The real client prints its own log lines (`[W][…] PreHandshake buf too short…`) on
    // stdout and exits 0: dwpipe reads them as the server's failure.
    let (code, stdout, stderr) = stack.run(dir, &["devices", "--server", &foreign]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(
        stdout.contains(&foreign)
            && stdout.contains("does not speak hdc")
            && stdout.contains("PreHandshake buf too short")
            && !stdout.contains("no devices"),
        "{stdout}{stderr}"
    );
    let (code, stdout, stderr) = stack.run(
        dir,
        &["doctor", "--device", "127.0.0.1:5555", "--server", &foreign],
    );
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(
        stderr.contains("error[E_HDC_SERVER_BROKEN]")
            && stderr.contains(&format!("hdc server {foreign} does not speak hdc")),
        "{stdout}{stderr}"
    );
}

#[test]
fn a_server_nobody_answers_is_unreachable_however_long_the_clients_retries_take() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let Some(stack) = Stack::start(dir) else {
        return;
    };
    let dead = format!("127.0.0.1:{}", free_port());
    // The real client retries for 12 s or more (1200 ticks of 10 ms; 12.3 to 17.0 s measured)
    // before `Connect server failed`: the default limit waits for it.
    let started = Instant::now();
    let (code, stdout, stderr) = stack.run(dir, &["devices", "--server", &dead]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("unreachable: hdc server {dead} is unreachable")),
        "{stdout}{stderr}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );
    // A limit shorter than the client's retries still finds the server unreachable: a call
    // that ran out of time against a port where nothing listens is not a slow device.
    let (code, stdout, stderr) = stack.run(
        dir,
        &[
            "doctor",
            "--device",
            "127.0.0.1:5555",
            "--server",
            &dead,
            "--call-timeout",
            "3s",
        ],
    );
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(
        stderr.contains("error[E_HDC_SERVER_UNREACHABLE]")
            && stderr.contains(&format!("hdc server {dead} is unreachable")),
        "{stdout}{stderr}"
    );
}

/// A pull cut mid-way by the phone going (its daemon killed) says what hdc said and how much
/// had arrived, never a bare `(nothing)`.
#[test]
fn a_transfer_cut_mid_way_says_what_hdc_said_and_how_much_arrived() {
    use dwpipe::device::{CallTimeouts, Device, DeviceError, Hdc, Server};
    use dwpipe::process::Cancel;
    use dwpipe::shell::ShellValue;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let Some(mut stack) = Stack::start(dir) else {
        return;
    };
    let phone = stack.phone(Tools::Serving("notes-pass"));
    let (key, group) = (phone.key.clone(), phone.group());
    // A file the transfer takes a while over (sparse: it costs no disk).
    let big = phone.root.join("data/local/tmp/big.bin");
    std::fs::create_dir_all(big.parent().unwrap()).unwrap();
    std::fs::File::create(&big)
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    let local = dir.join("big.bin");
    let watched = local.clone();
    let killer = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::fs::metadata(&watched).map_or(0, |m| m.len()) < 1 << 20 {
            assert!(Instant::now() < deadline, "the transfer never began");
            std::thread::sleep(Duration::from_millis(20));
        }
        super::stack::Phone::kill(group);
    });
    let hdc = Hdc::new(
        stack.hdc.clone(),
        Some(Server::parse(&stack.server).unwrap()),
        CallTimeouts::all(Duration::from_secs(60)),
        Cancel::new(),
    );
    let device = hdc.device(&key).unwrap();
    let remote = ShellValue::remote_path("/data/local/tmp/big.bin").unwrap();
    let pulled = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(device.pull(&remote, &local));
    killer.join().unwrap();
    let Err(error) = pulled else {
        panic!("a 4 GiB pull finished after its phone was killed");
    };
    let said = error.to_string();
    assert!(
        matches!(
            error,
            DeviceError::Transfer { .. } | DeviceError::DeviceNotFound { .. }
        ),
        "{said}"
    );
    assert!(!said.contains("(nothing)"), "{said}");
    if let DeviceError::Transfer { .. } = error {
        assert!(
            said.contains("hdc said") && said.contains("had arrived"),
            "{said}"
        );
    }
}
