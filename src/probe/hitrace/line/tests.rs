//! Tests of `crate::probe::hitrace::line`.

use super::*;

fn parsed(line: &str) -> Option<(String, u32, Option<u32>, u64, String, String)> {
    parse_line(line.as_bytes()).map(|e| {
        (
            String::from_utf8_lossy(trim(e.task)).into_owned(),
            e.tid,
            e.tgid,
            e.ts_ns,
            String::from_utf8_lossy(e.event).into_owned(),
            String::from_utf8_lossy(e.args).into_owned(),
        )
    })
}

#[test]
fn every_tgid_form_and_task_shape() {
    let rows = [
        (
            " org.servo.servo-46512   (  46512) [010] .... 7230472.274412: tracing_mark_write: B|46512|H:on_surface_created_cb ",
            "org.servo.servo",
            46512,
            Some(46512),
            7_230_472_274_412_000,
            "tracing_mark_write",
            "B|46512|H:on_surface_created_cb ",
        ),
        (
            "           <...>-57783   (-------) [010] .... 510487.404088: tracing_mark_write: B|57783|H:on_surface_created_cb|M62",
            "<...>",
            57783,
            None,
            510_487_404_088_000,
            "tracing_mark_write",
            "B|57783|H:on_surface_created_cb|M62",
        ),
        (
            "          <idle>-0     (-----) [003] d.h. 88026.692954: sched_waking: comm=wifi_hal_servic pid=325",
            "<idle>",
            0,
            None,
            88_026_692_954_000,
            "sched_waking",
            "comm=wifi_hal_servic pid=325",
        ),
        (
            " \trender_service-1252  ( 1252) [002] .... 34579.452167: print: B|1252|H:ReceiveVsync name:rs|M0538",
            "render_service",
            1252,
            Some(1252),
            34_579_452_167_000,
            "print",
            "B|1252|H:ReceiveVsync name:rs|M0538",
        ),
        (
            " #tp-default-200-18798 (17267) [003] .... 13762.800386: sched_switch: prev_comm=kworker/u29:4",
            "#tp-default-200",
            18798,
            Some(17267),
            13_762_800_386_000,
            "sched_switch",
            "prev_comm=kworker/u29:4",
        ),
        (
            "   Present Fence-37819 ( 1252) [000] .... 34579.472869: print: E|1252|I38\r",
            "Present Fence",
            37819,
            Some(1252),
            34_579_472_869_000,
            "print",
            "E|1252|I38",
        ),
        (
            "          <idle>-0     [000] d..2 1.000001: sched_switch: x",
            "<idle>",
            0,
            None,
            1_000_001_000,
            "sched_switch",
            "x",
        ),
        (
            "  binder:227_4-10625 ( 9432) [000] .... 13762.794769: print: N|227|CriticalWorkload|QueuedWorkload: VISIBLE_REGION",
            "binder:227_4",
            10625,
            Some(9432),
            13_762_794_769_000,
            "print",
            "N|227|CriticalWorkload|QueuedWorkload: VISIBLE_REGION",
        ),
        (
            "  kworker/[x]-12 (12) [001] dNh.. 5.5: 0: 0x1: B|1|H:x",
            "kworker/[x]",
            12,
            Some(12),
            5_500_000_000,
            "0",
            "0x1: B|1|H:x",
        ),
        (
            "task-7 [001] 2.000000001: print: C|7|H:n|1|I38",
            "task",
            7,
            None,
            2_000_000_001,
            "print",
            "C|7|H:n|1|I38",
        ),
    ];
    for (line, task, tid, tgid, ts, event, args) in rows {
        assert_eq!(
            parsed(line),
            Some((task.into(), tid, tgid, ts, event.into(), args.into())),
            "{line}"
        );
    }
}

#[test]
fn non_events_are_refused() {
    for line in [
        "",
        "# tracer: nop",
        "#           TASK-PID       TGID    CPU#  ||||   TIMESTAMP  FUNCTION",
        "#              | |           |       |   ||||      |         |",
        "2024/05/28 20:15:45 hitrace enter, running_state is RECORDING_LONG_BEGIN",
        "\t\t   ",
        "   Present Fence-37819 ( 1252) [000] .... 34579.4728",
        "task-x (1) [000] .... 1.0: print: B|1|H:x",
        "task-1 (abc) [000] .... 1.0: print: x",
        "task-1 (1) [000] .... 1.0000000001: print: x",
        "task-1 (1) [000] .... 99999999999999999999.0: print: x",
    ] {
        assert_eq!(parsed(line), None, "{line:?}");
    }
}
