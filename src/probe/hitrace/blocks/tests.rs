//! Frame blocks read from traces of every release's layout.

use super::*;

/// A reader that hands out at most `step` bytes per call.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.step.min(out.len()).min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Lines, as (kind, lines it stands for): `M` a marker, `E` other events, `U` unparsed,
/// `Q` quiet.
fn kinds(data: &[u8], step: usize, size: usize) -> Vec<(char, u64)> {
    let mut seen = Vec::new();
    let blocks = Blocks {
        size,
        threads: 3,
        threads_from: 0,
    };
    for_each_parsed(Trickle { data, step }, blocks, |line| {
        let kind = match line {
            Parsed::Marker { .. } => 'M',
            Parsed::Events { .. } => 'E',
            Parsed::Unparsed(_) => 'U',
            Parsed::Quiet(_) => 'Q',
        };
        seen.push((kind, line.lines()));
    })
    .unwrap();
    seen
}

#[test]
fn lines_split_across_reads_and_chunks_and_a_partial_last_line_counts() {
    let marker = b"  app-1 ( 1) [0] .... 1.000001: tracing_mark_write: B|1|x\n";
    let event = b"  app-1 ( 1) [0] .... 1.000002: sched_switch: prev_comm=app\n";
    let mut data = Vec::new();
    data.extend_from_slice(marker);
    data.extend_from_slice(b"junk\n\n# comment\n");
    data.extend_from_slice(marker);
    data.extend_from_slice(event);
    data.extend_from_slice(event);
    data.extend_from_slice(b"last");
    for (step, size) in [(1, 1), (3, 7), (1000, 1 << 20)] {
        let seen = kinds(&data, step, size);
        let lines: u64 = seen.iter().map(|(_, n)| n).sum();
        assert_eq!(lines, 8, "{step}/{size}: {seen:?}");
        let count = |kind| seen.iter().filter(|(k, _)| *k == kind).count();
        assert_eq!(count('M'), 2, "{seen:?}");
        assert_eq!(seen.last(), Some(&('U', 1)), "{step}/{size}: {seen:?}");
    }
    // In one chunk, the two events are one run; split between chunks, two.
    assert!(kinds(&data, 1000, 1 << 20).contains(&('E', 2)));
    assert!(kinds(b"", 10, 10).is_empty());
}

#[test]
fn a_run_of_events_keeps_its_latest_clock() {
    let text = b"a-1 [0] .... 5.0: sched_switch: x\na-1 [0] .... 7.0: sched_switch: x\n\
                 a-1 [0] .... 6.0: sched_wakeup: x\n";
    let mut chunk = Chunk {
        text: text.to_vec(),
        parsed: Vec::new(),
    };
    chunk.parse();
    assert!(matches!(
        chunk.parsed[..],
        [Parsed::Events {
            count: 3,
            last_ns: 7_000_000_000
        }]
    ));
}

#[test]
fn an_endless_line_is_refused_in_bounded_memory() {
    let mut data = b"ok\n".to_vec();
    data.extend(vec![b'x'; 3 * MAX_LINE + 5]);
    for threads in [1, 3] {
        let blocks = Blocks {
            threads,
            threads_from: 0,
            ..Blocks::every_core()
        };
        let mut seen = 0;
        let error = for_each_parsed(
            Trickle {
                data: &data,
                step: 64 * 1024,
            },
            blocks,
            |_| seen += 1,
        )
        .unwrap_err();
        assert_eq!(seen, 1);
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(
            error.to_string().starts_with("line 2 is longer than"),
            "{error}"
        );
    }
}
