//! hdc's replies classified, as fakes and OpenHarmony's real client print them.

use super::*;

#[test]
fn failures_are_read_from_text() {
    let rows: Vec<(&str, &str, Option<HdcFailure>)> = vec![
        (
            "[Fail][E001005] Device not found or connected\n",
            "",
            Some(HdcFailure::DeviceNotFound(
                "[E001005] Device not found or connected".into(),
            )),
        ),
        (
            "[Fail]Not match target founded, check connect-key please\n",
            "",
            Some(HdcFailure::DeviceNotFound(
                "Not match target founded, check connect-key please".into(),
            )),
        ),
        (
            "[Fail]Device not founded or connected.\n",
            "",
            Some(HdcFailure::DeviceNotFound(
                "Device not founded or connected.".into(),
            )),
        ),
        (
            "[Fail][E005005] Error create directory: x, path:/y\n",
            "",
            Some(HdcFailure::Fail {
                code: Some("E005005".into()),
                message: "Error create directory: x, path:/y".into(),
            }),
        ),
        (
            "",
            "Connect server failed\n",
            Some(HdcFailure::ServerUnreachable),
        ),
        ("12 \n", "", None),
        ("log line mentioning [Fail] mid-line\n", "", None),
        // As OpenHarmony's real client printed them (tests/it/real_hdc), `\r` removed:
        // an unauthorized device, with hdc's advice on the lines after its code…
        (
            "[Fail][E000003]:The device unauthorized.\nThe user denied the access for the device.\nPlease execute 'hdc kill' and redo your command,\nthen check for a confirmation dialog on your device.\n",
            "",
            Some(HdcFailure::Unauthorized(
                "[E000003] The device unauthorized. The user denied the access for the device. Please execute 'hdc kill' and redo your command, then check for a confirmation dialog on your device.".into(),
            )),
        ),
        // …a channel still being established…
        (
            "[Fail][E000004]:The communication channel is being established. Please wait for several seconds and try again.\n",
            "",
            Some(HdcFailure::Fail {
                code: Some("E000004".into()),
                message: "The communication channel is being established. Please wait for several seconds and try again.".into(),
            }),
        ),
        // …the client's own log when what answered is not an hdc server (its hello one
        // byte long), and that log beside a working answer.
        (
            "[W][2026-12-04 13:26:26] PreHandshake buf too short, bytesIO:1 need:44\n[W][2026-12-04 13:26:26] ReadStream childRet:-10000 channelId:3006643192 keepAlive:0\n",
            "",
            Some(HdcFailure::ServerBroken(
                "PreHandshake buf too short, bytesIO:1 need:44; ReadStream childRet:-10000 channelId:3006643192 keepAlive:0".into(),
            )),
        ),
        (
            "[I][2024-05-28 20:15:45.120] HdcFile::TransferSummary success\nFileTransfer finish, Size:6, File count = 1, time:6ms rate:1.00kB/s\n",
            "",
            None,
        ),
        ("[Empty]\thdc\n", "", None),
    ];
    for (stdout, stderr, expected) in rows {
        assert_eq!(hdc_failure(stdout, stderr), expected, "{stdout:?}");
    }
}

#[test]
fn the_sentinel_carries_the_device_status() {
    assert_eq!(
        split_sentinel("ALN-AL00 \n__DWPIPE_RC=0\n"),
        Some(("ALN-AL00 \n".into(), 0))
    );
    assert_eq!(
        split_sentinel("no newline__DWPIPE_RC=127\n"),
        Some(("no newline".into(), 127))
    );
    assert_eq!(
        split_sentinel("[Fail][E001005] Device not found or connected\n"),
        None
    );
    assert_eq!(split_sentinel("__DWPIPE_RC=\n"), None);
    assert_eq!(normalize("a\r\nb\r\n"), "a\nb\n");
}

#[test]
fn targets_in_every_known_layout() {
    let old = "127.0.0.1:5555\t\t  TCP\t  Connected\t  localhost\nFMR0223C13000649\t\tUSB\t  Connected\t  unknown...\n";
    let targets = parse_targets(old);
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[1].serial, "FMR0223C13000649");
    assert_eq!(targets[1].transport, "USB");
    assert!(targets[1].is_connected());
    let current = "connect-key1\t\tUSB\tConnected\tlocalhost\thdc\n127.0.0.1:5555\t\tTCP\tOffline\tlocalhost\thdc\n";
    let targets = parse_targets(current);
    assert_eq!(targets[1].status, "Offline");
    assert_eq!(targets[0].name.as_deref(), Some("localhost"));
    assert!(parse_targets("[Empty]\r\thdc\n").is_empty());
    assert!(parse_targets("[Empty]\n").is_empty());
    let plain = parse_targets("127.0.0.1:5555\nFMR0223C13000649\n");
    assert_eq!(plain.len(), 2);
    assert!(plain[0].is_connected());
}

#[test]
fn transfers_by_their_sentence() {
    assert_eq!(
        transfer_size(
            "[I][2024-05-28 20:15:45] HdcFile::TransferSummary success\nFileTransfer finish, Size:71792, File count = 1, time:12ms rate:5982.67kB/s\n"
        ),
        Some(71792)
    );
    assert_eq!(
        transfer_size("[Fail]Error opening file: no such file or directory, path:/x\n"),
        None
    );
}

/// Install and uninstall replies as the bundle manager words them (docs, awesomehdc and a
/// FAQ capture), and the shapes that are not a success whatever else they say.
#[test]
fn installs_are_judged_by_what_the_bundle_manager_said() {
    let ok = "[Info]App install path:/a.hap, queuesize:0, msg:install bundle successfully.\nAppMod finish\n";
    let ok_old =
        "[Info]App install path:D:\\example.hap msg:install bundle successfully.\nAppMod finish\n";
    let removed = "[Info]App uninstall path:, queuesize:0, msg:uninstall bundle successfully.\nAppMod finish\n";
    let downgrade = "[Info]App install path:xxx.hap, queuesize:0, msg:error: failed to install bundle. code:9568263 error: install version downgrade.\nAppMod finish\n";
    let both = "[Fail] install error\n[Info]App install path:/a.hap, queuesize:0, msg:install bundle successfully.\nAppMod finish\n";
    let after = "[Info]App install path:/a.hap, queuesize:0, msg:install bundle successfully.\nerror: failed to install bundle. code:9568329\nAppMod finish\n";
    let odd_path = "[Info]App install path:/home/error/failed.hap, queuesize:0, msg:install bundle successfully.\nAppMod finish\n";
    // The real client's 3.2.0f form: no `queuesize`, the bundle manager's newlines blanks.
    let real = "[Info]App install path:/work/haps/notes-1.0.hap msg:install bundle successfully. \nAppMod finish\n";
    let real_refused = "[Info]App install path:/work/haps/notes-1.0.hap msg:error: failed to install bundle. code:9568263 error: install version downgrade. \nAppMod finish\n";
    // (reply, operation, Ok or the failure's code)
    type Row<'a> = (&'a str, &'a str, Result<(), Option<&'a str>>);
    let rows: [Row<'_>; 11] = [
        (real, "install", Ok(())),
        (real_refused, "install", Err(Some("9568263"))),
        (ok, "install", Ok(())),
        (ok_old, "install", Ok(())),
        (removed, "uninstall", Ok(())),
        (odd_path, "install", Ok(())),
        (removed, "install", Err(None)),
        (ok, "uninstall", Err(None)),
        (downgrade, "install", Err(Some("9568263"))),
        (both, "install", Err(None)),
        (after, "install", Err(Some("9568329"))),
    ];
    for (reply, operation, expected) in rows {
        let judged = app_result(reply, operation).map_err(|(code, _)| code);
        assert_eq!(
            judged,
            expected.map_err(|c| c.map(str::to_owned)),
            "{operation}: {reply:?}"
        );
    }
    assert_eq!(app_result("", "install").unwrap_err().1, "no reply");
}
