//! Readiness polls: the app's process and window found, or the wait said.

use super::super::extract::placement;
use super::*;
use crate::device::ReplayDevice;
use crate::test_support::block_on;

const APP: u32 = 4242;

/// The window table with `note0` (window 13) of `pid`, focused when `focus` is 13.
fn table(focus: u64, pid: u32) -> String {
    format!(
        "----------------------------------WindowManagerService----------------------------------\n-------------------------------------ScreenGroup 0-------------------------------------\nWindowName           DisplayId Pid     WinId Type Mode Flag ZOrd Orientation [ x    y    w    h    ]\nSystemUi_StatusBar   0         1572    9     2108 102  0    2    0           [ 0    0    720  72   ]\nnote0                0         {pid:<8}13    1    1    0    1    0           [ 0    0    720  1280 ]\n---------------------------------------------------------------------------------------\nFocus window: {focus}\ntotal window num: 2\n"
    )
}

fn detail(drawn: u8, visibility: u8) -> String {
    format!(
        "WindowName: note0\nWinId: 13\nFirstFrameCallbackCalled: {drawn}\nVisibilityState: {visibility}\n"
    )
}

/// One exchange of a transcript: a call with its reply and delay, or a pause.
enum Said {
    Call(&'static str, String, u32, u64),
    Pause(u64),
}

use Said::{Call, Pause};

fn pidof(pid: Option<u32>) -> Said {
    match pid {
        Some(pid) => Call("pidof com.example.notes", format!("{pid}\n"), 0, 40),
        None => Call("pidof com.example.notes", String::new(), 1, 40),
    }
}

fn windows(focus: u64, pid: u32) -> Said {
    Call(
        "hidumper -s WindowManagerService -a -a",
        table(focus, pid),
        0,
        90,
    )
}

fn first_frame(drawn: u8, visibility: u8) -> Said {
    Call(
        "hidumper -s WindowManagerService -a '-w 13'",
        detail(drawn, visibility),
        0,
        60,
    )
}

/// Replays `said` through a 2 s poll: what `ready.txt` says, the device time it took, and
/// whether every exchange was served.
fn poll(said: Vec<Said>) -> (String, Duration, bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut transcript = String::from("format-version: 2\nexchanges:\n");
    let count = said.len();
    for s in said {
        use std::fmt::Write;
        match s {
            Call(command, reply, status, ms) => write!(
                transcript,
                "  - shell: {}\n    reply: {}\n    status: {status}\n    delay: {ms}ms\n",
                serde_json::to_string(command).unwrap(),
                serde_json::to_string(&reply).unwrap()
            ),
            Pause(ms) => writeln!(transcript, "  - sleep: {ms}ms"),
        }
        .unwrap();
    }
    std::fs::write(dir.path().join("device.yaml"), "serial: R1\n").unwrap();
    std::fs::write(dir.path().join("transcript.yaml"), transcript).unwrap();
    let device = ReplayDevice::open(dir.path()).unwrap();
    let mut values = Values::default();
    values.set("bundle", ShellValue::bundle("com.example.notes").unwrap());
    let evidence = dir.path().join("evidence");
    std::fs::create_dir_all(&evidence).unwrap();
    let mut files = Files::new();
    let result = block_on(window(
        &device,
        &mut values,
        Duration::from_secs(2),
        &evidence,
        "ready.txt",
        &mut files,
    ));
    assert!(result.is_ok(), "the poll itself never fails the session");
    let said = std::fs::read_to_string(&files["ready.txt"]).unwrap();
    (said, device.clock(), device.served() == count)
}

/// `-w <id>` as the legacy window manager prints it (`wmserver/src/window_dumper.cpp`).
fn legacy(first_frame: u8, visibility: Option<u8>) -> String {
    let visibility = visibility.map_or_else(String::new, |v| format!("VisibilityState: {v}\n"));
    format!(
        "WindowName: note0\nDisplayId: 0\nWinId: 13\nPid: 4242\nType: 1\nMode: 1\nFlag: 0\nOrientation: 0\nIsStartingWindow: false\nFirstFrameCallbackCalled: {first_frame}\n{visibility}IsVisible: true\nFocusable: true\nDecoStatus: false\nisPrivacyMode: false\nWindowRect: [ 0, 0, 720, 1280 ]\nTouchHotAreas: [ 0, 0, 720, 1280 ]\n"
    )
}

/// `-w <id>` as SceneBoard prints it (`scene_session_manager.cpp`,
/// `GetSpecifiedSessionDumpInfo`: `IsStartingWindow: -`, the first-frame flag a constant
/// 1), with RenderService's visibility where newer builds print it.
fn scene_board(visible: bool, rs_visible: Option<bool>) -> String {
    let rs = rs_visible.map_or_else(String::new, |v| format!("isRSVisible: {}\n", u8::from(v)));
    format!(
        "WindowName: note0\nDisplayId: 0\nWinId: 13\nPid: 4242\nType: 1\nMode: 1\nFlag: 0\nOrientation: 0\nIsStartingWindow: -\nFirstFrameCallbackCalled: 1\nIsVisible: {visible}\n{rs}Focusable: true\nDecoStatus: true\nisPrivacyMode: false\nWindowRect: [ 0, 0, 1260, 2720 ]\nTouchHotAreas: \n"
    )
}

#[test]
fn shown_is_read_from_the_signal_each_window_manager_really_keeps() {
    use Signal::{FirstFrame, RenderVisible, SessionVisible};
    let rows: Vec<(String, Result<Signal, &str>)> = vec![
        (legacy(1, Some(0)), Ok(FirstFrame)),
        (legacy(0, Some(0)), Err("has not drawn its first frame")),
        (
            legacy(1, Some(2)),
            Err("is drawn but not visible (VisibilityState 2)"),
        ),
        // 3.2: no visibility state.
        (legacy(1, None), Ok(FirstFrame)),
        // SceneBoard's constant first-frame flag never makes a window ready by itself.
        (scene_board(true, None), Ok(SessionVisible)),
        (
            scene_board(false, None),
            Err("is not visible (IsVisible false)"),
        ),
        (scene_board(true, Some(true)), Ok(RenderVisible)),
        (
            scene_board(true, Some(false)),
            Err("is not visible to RenderService (isRSVisible 0)"),
        ),
    ];
    for (detail, expected) in rows {
        assert_eq!(shown(&detail), expected.map_err(str::to_owned), "{detail}");
    }
    assert_eq!(FirstFrame.state(), "drawn");
    assert_eq!(SessionVisible.state(), "visible");
}

#[test]
fn a_poll_goes_on_once_the_window_is_focused_and_drawn_else_at_its_ceiling() {
    let rows: Vec<(Vec<Said>, &str, u64)> = vec![
        (
            vec![pidof(Some(APP)), windows(13, APP), first_frame(1, 0)],
            "ready: window 13 focused and drawn after 190 ms (1 looks",
            190,
        ),
        (
            vec![
                pidof(None),
                Pause(200),
                pidof(Some(APP)),
                windows(9, APP),
                Pause(200),
                pidof(Some(APP)),
                windows(13, APP),
                first_frame(0, 0),
                Pause(200),
                pidof(Some(APP)),
                windows(13, APP),
                first_frame(1, 0),
            ],
            "ready: window 13 focused and drawn after 1150 ms (4 looks",
            1150,
        ),
        (
            // Another process's window 13 is not the app's.
            (0..6)
                .flat_map(|_| [pidof(Some(APP)), windows(13, 99), Pause(200)])
                .chain([pidof(Some(APP)), windows(13, 99)])
                .collect(),
            "not ready after 2110 ms (7 looks): the focused window 13 is not the app's (pid 4242)",
            2110,
        ),
        (
            // pidof with nothing: 40 ms a look, so 9 looks and 8 pauses reach 2 s.
            (0..8)
                .flat_map(|_| [pidof(None), Pause(200)])
                .chain([pidof(None), Pause(40), pidof(None)])
                .collect(),
            "not ready after 2040 ms (10 looks): the app has no process yet; went on at the ceiling",
            2040,
        ),
    ];
    for (said, expected, ms) in rows {
        let (ready, clock, served) = poll(said);
        assert!(ready.starts_with(expected), "{ready}");
        assert_eq!(clock, Duration::from_millis(ms), "{ready}");
        assert!(served, "every recorded look was asked: {ready}");
    }
}

/// Where the app's window is, as the poll's file says it and as every reader reads it back:
/// alone on its display, or in a split screen beside another app's window, which is named.
#[test]
fn the_apps_window_and_who_shares_its_display_are_kept_and_read_back() {
    let table = |mode: u32, browser: bool| {
        let mut rows = format!(
            "WindowName           DisplayId Pid     WinId Type Mode Flag ZOrd Orientation [ x    y    w    h    ]\nSystemUi_StatusBar   5         1572    9     2108 102  0    2    0           [ 0    0    1080 72   ]\nnote0                5         {APP:<8}13    1    {mode:<5}0    1    0           [ 0    0    1080 1250 ]\n"
        );
        if browser {
            rows.push_str("browser0             5         6000    21    1    101  0    1    0           [ 0    1260 1080 1244 ]\n");
        }
        crate::probe::hidumper::windows(&format!(
            "----------------------------------WindowManagerService----------------------------------\n{rows}Focus window: 13\n"
        ))
        .unwrap()
    };
    let rows = [
        (table(1, false), true, "the app alone on display 5"),
        (
            table(100, true),
            false,
            "the app in split screen (primary), beside or under other apps' windows on display 5: browser0 (window 21, pid 6000, split screen (secondary), [0 1260 1080 1244])",
        ),
        (
            table(102, false),
            false,
            "the app in a floating window, no other app's window on display 5",
        ),
    ];
    for (table, alone, windowing) in rows {
        let app = table.windows.iter().find(|w| w.id == 13).unwrap();
        let said = placed(app, &table.windows);
        assert!(
            said.starts_with("window: 13 on display 5 at [0 0 1080 1250], "),
            "{said}"
        );
        let read = placement(&format!("ready: …\nsignal: …\n{said}")).unwrap();
        assert_eq!(
            (read.display, read.alone, read.windowing.as_str()),
            (5, alone, windowing)
        );
    }
    // A poll that never found the app ready wrote neither line.
    assert_eq!(placement("not ready after 2000 ms (10 looks): …\n"), None);
}
