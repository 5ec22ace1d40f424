//! Tests of `crate::probe::hitrace::payload`.

use super::*;

#[test]
fn every_payload_shape() {
    let begin = |name: &'static str, pid| Marker::Begin {
        pid,
        name: name.as_bytes(),
        args: b"",
    };
    let rows: Vec<(&str, Marker<&[u8]>)> = vec![
        (
            "B|46512|H:on_surface_created_cb ",
            begin("on_surface_created_cb", Some(46512)),
        ),
        (
            "B|57783|H:on_surface_created_cb|M62",
            begin("on_surface_created_cb", Some(57783)),
        ),
        (
            "B|1252|H:ReceiveVsync name:rs dataCount: 24bytes now:29822984723575 expectedEnd: 29823012828001 vsyncId:989620, fd:31|M0538",
            begin(
                "ReceiveVsync name:rs dataCount: 24bytes now:29822984723575 expectedEnd: 29823012828001 vsyncId:989620, fd:31",
                Some(1252),
            ),
        ),
        (
            "B|1|H:[a92ab94c18e1341,0,0]#ChainedWork|I62|{\"k\":1}",
            Marker::Begin {
                pid: Some(1),
                name: b"ChainedWork",
                args: b"{\"k\":1}",
            },
        ),
        (
            "B|5000|H:decode page|I62|area=1228800,format=rgba",
            Marker::Begin {
                pid: Some(5000),
                name: b"decode page",
                args: b"area=1228800,format=rgba",
            },
        ),
        (
            "B|1855|H:CheckNeedNotify notifyCdt=1 needR||M0538",
            begin("CheckNeedNotify notifyCdt=1 needR|", Some(1855)),
        ),
        (
            "B|31948|transact[android.net.IConnectivityManager:9]",
            begin("transact[android.net.IConnectivityManager:9]", Some(31948)),
        ),
        (
            "0xffffffc0123: B|7|H:viaPrint|I38",
            begin("viaPrint", Some(7)),
        ),
        ("E|1252|I38", Marker::End),
        ("E|1252|", Marker::End),
        ("E|1252", Marker::End),
        ("E", Marker::End),
        (
            "S|1|H:load|42|M62|cat|bytes=7",
            Marker::AsyncBegin {
                name: b"load",
                task: 42,
                args: b"bytes=7",
            },
        ),
        (
            "S|1|H:load 42",
            Marker::AsyncBegin {
                name: b"load",
                task: 42,
                args: b"",
            },
        ),
        (
            "F|1|H:load|42|M62",
            Marker::AsyncEnd {
                name: b"load",
                task: 42,
            },
        ),
        (
            "C|1252|H:VSync-rs|0|I38",
            Marker::Counter {
                name: b"VSync-rs",
                value: 0,
            },
        ),
        (
            "C|57783|H:servo_memory_profiling:vsize|45766221824|M62",
            Marker::Counter {
                name: b"servo_memory_profiling:vsize",
                value: 45_766_221_824,
            },
        ),
        (
            "C|1|H:delta -5",
            Marker::Counter {
                name: b"delta",
                value: -5,
            },
        ),
        ("I|227|vsync in 48.62ms", Marker::Other),
        ("G|227|CriticalWorkload|Commit|183146", Marker::Other),
        ("H|227|CriticalWorkload|183147", Marker::Other),
        (
            "N|227|CriticalWorkload|QueuedWorkload: VISIBLE_REGION",
            Marker::Other,
        ),
        ("0x0: 15|setCoreSettings", Marker::Other),
        ("C|1|H:novalue", Marker::Other),
        ("", Marker::Other),
        ("B", Marker::Other),
    ];
    for (payload, expected) in rows {
        assert_eq!(parse_marker(payload.as_bytes()), expected, "{payload}");
    }
}
