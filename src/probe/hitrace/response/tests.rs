//! Tests of `crate::probe::hitrace::response`.

use super::*;

fn tracker(events: &[(&str, u64)], presents: &[u64], last: u64) -> ResponseTracker {
    let mut t = ResponseTracker::default();
    for (name, ms) in events {
        t.begin(name.as_bytes(), ms * 1_000_000);
    }
    for p in presents {
        t.present(p * 1_000_000);
    }
    t.seen(last * 1_000_000);
    t
}

#[test]
fn response_ends_at_the_transition_lane_with_compensation() {
    let t = tracker(
        &[
            ("service report touchId:1, type: down", 1000),
            ("service report touchId:1, type: up", 1080),
            ("RSMainThread::DoComposition: 1", 1100),
            (
                "ABILITY_OR_PAGE_SWITCH, com.example.notes, pages/Editor, 1717000000000",
                1150,
            ),
            ("RSMainThread::DoComposition: 2", 1300),
            ("RSMainThread::DoComposition: 3", 1900),
        ],
        &[],
        2600,
    );
    let r = t.response(InputKind::Tap).unwrap();
    assert_eq!(r.response_ms, 90.0, "1150 - 1080 + 20");
    assert!(
        r.response_end.contains("ABILITY_OR_PAGE_SWITCH`"),
        "{}",
        r.response_end
    );
    assert!(r.input_marker.contains("type: up"));
    // 1300 → 1900 is a 600 ms still gap: completion is the frame before it.
    assert_eq!(r.complete, Ok(252.0), "1300 - 1080 + 32");
}

/// What a shorter traced window relies on (`audit/window.rs`): the completion is the last
/// frame before the *first* still gap, so any trace that holds that gap reads what a
/// longer one reads, and a trace that ends before it reads no completion at all.
#[test]
fn a_completion_reads_the_same_from_every_trace_that_holds_its_still_gap() {
    let events = [
        ("service report touchId:1, type: up", 1080),
        ("RSMainThread::DoComposition: 1", 1100),
        ("RSMainThread::DoComposition: 2", 1300),
        // Frames after the first still gap (a later animation) do not change it.
        ("RSMainThread::DoComposition: 3", 1900),
        ("RSMainThread::DoComposition: 4", 1950),
    ];
    let cut = |end: u64| {
        let seen: Vec<(&str, u64)> = events.iter().copied().filter(|e| e.1 <= end).collect();
        tracker(&seen, &[], end).response(InputKind::Tap).unwrap()
    };
    // The 2 s window: 1300 - 1080 + 32 ms.
    assert_eq!(cut(3080).complete, Ok(252.0));
    // Learned from it: 252 + 300 ms needed, a window of 850 ms (ends at 1930).
    for end in [1600, 1700, 1930, 2500] {
        assert_eq!(cut(end).complete, Ok(252.0), "a trace ending at {end}");
        assert_eq!(cut(end).response_ms, cut(3080).response_ms);
    }
    // 1300 + 300 is the gap's end: a trace ending before it has no completion (and the
    // visit is made again with the step's timeout).
    assert!(cut(1599).complete.unwrap_err().contains("still changing"));
}

#[test]
fn without_a_lane_the_first_frame_ends_it_and_the_reading_says_so() {
    let t = tracker(&[("DispatchTouchEvent", 500)], &[540, 560, 580], 1000);
    let r = t.response(InputKind::Tap).unwrap();
    assert_eq!(r.response_ms, 72.0, "540 - 500 + 32");
    assert!(
        r.response_end.contains("present fence"),
        "{}",
        r.response_end
    );
    assert_eq!(
        r.complete,
        Ok(112.0),
        "the trace end is 420 ms after the last frame"
    );
}

#[test]
fn a_swipe_takes_the_swipe_lanes_and_a_busy_end_has_no_completion() {
    let t = tracker(
        &[
            ("PointerEventDispatch", 100),
            ("ABILITY_OR_PAGE_SWITCH", 110),
            ("APP_LIST_FLING, com.example.notes", 150),
            ("RSMainThread::DoComposition", 160),
            ("RSMainThread::DoComposition", 300),
        ],
        &[],
        400,
    );
    let r = t.response(InputKind::Swipe).unwrap();
    assert_eq!(
        r.response_ms, 80.0,
        "150 - 100 + 30: the tap lane is not a swipe's"
    );
    assert!(r.complete.unwrap_err().contains("still changing"));
    let none = tracker(&[("RSMainThread::DoComposition", 1)], &[], 5);
    assert!(
        none.response(InputKind::Tap)
            .unwrap_err()
            .contains("no input dispatch")
    );
    let quiet = tracker(&[("KeyEventDispatch", 1)], &[], 5);
    assert!(
        quiet
            .response(InputKind::Tap)
            .unwrap_err()
            .contains("nothing followed")
    );
}
