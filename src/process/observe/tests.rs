//! Tests of `crate::process::observe`.

use super::*;

fn seen(limit: usize, chunks: &[&[u8]]) -> Vec<(String, bool)> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&log);
    let observer: LineObserver = Arc::new(Mutex::new(move |line: Line<'_>| {
        kept.lock().unwrap().push((line.text.to_owned(), line.cut));
    }));
    let mut splitter = Splitter::new(observer, Pipe::Out, limit);
    for chunk in chunks {
        splitter.push(chunk);
    }
    splitter.finish();
    log.lock().unwrap().clone()
}

#[test]
fn lines_across_reads_and_a_last_line_without_its_newline() {
    assert_eq!(
        seen(4096, &[b"one\ntw", b"o\n\nthr", b"ee"]),
        [
            ("one".to_owned(), false),
            ("two".to_owned(), false),
            (String::new(), false),
            ("three".to_owned(), false)
        ]
    );
}

#[test]
fn a_line_past_the_limit_is_seen_in_overlapping_windows_and_a_marker_on_an_edge_is_whole() {
    let limit = 4 * OVERLAP;
    let mut line = vec![b'.'; 10 * OVERLAP];
    // Across the first window's edge.
    let at = limit - 5;
    line[at..at + 12].copy_from_slice(b"BUILD FAILED");
    line.extend_from_slice(b"\nnext\n");
    let windows = seen(limit, &[&line]);
    assert!(windows.iter().all(|(w, _)| w.len() <= limit));
    assert!(windows[..windows.len() - 1].iter().all(|(_, cut)| *cut));
    assert_eq!(windows.last().unwrap(), &("next".to_owned(), false));
    assert!(windows.iter().any(|(w, _)| w.contains("BUILD FAILED")));
    // Every byte of the long line was seen.
    let seen_bytes: usize = windows[..windows.len() - 1]
        .iter()
        .map(|(w, _)| w.len())
        .sum();
    assert!(seen_bytes >= 10 * OVERLAP);
}
