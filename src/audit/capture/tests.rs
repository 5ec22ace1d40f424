//! Tests of `crate::audit::capture`.

use super::*;
use std::time::Duration;

fn reply(output: &str) -> ShellReply {
    ShellReply {
        output: output.to_owned(),
        status: 0,
        duration: Duration::ZERO,
    }
}

const SCREEN: &str = "uitest screenCap -p /data/local/tmp/a.png";
const LAYOUT: &str = "uitest dumpLayout -p /data/local/tmp/b.json";

/// Each tool's word, in whatever order the two printed it.
#[test]
fn both_said_they_worked_or_the_pair_is_taken_again_apart() {
    for (output, together) in [
        (
            "DumpLayout saved to:/data/local/tmp/b.json\n__DWPIPE_DUMPED=0\nScreenCap saved to /data/local/tmp/a.png\n__DWPIPE_SHOT=0\n",
            true,
        ),
        (
            "ScreenCap saved to /data/local/tmp/a.png\nDumpLayout saved to:/data/local/tmp/b.json\n__DWPIPE_DUMPED=0\n__DWPIPE_SHOT=0\n",
            true,
        ),
        // dumpLayout could not reach the accessibility service while screenCap ran.
        (
            "DumpLayout failed:connect to AAMS failed\n__DWPIPE_DUMPED=1\nScreenCap saved to /data/local/tmp/a.png\n__DWPIPE_SHOT=0\n",
            false,
        ),
        // A failure printed with status 0 is still a failure.
        (
            "ScreenCap failed: Failed to get display pixelMap\n__DWPIPE_DUMPED=0\n__DWPIPE_SHOT=0\n",
            false,
        ),
        // A tool's own line that looks like a marker is not the shell's status, which
        // comes after it.
        (
            "DumpLayout saved to:/data/local/tmp/b.json\n__DWPIPE_DUMPED=0\n__DWPIPE_DUMPED=1\nScreenCap saved to /data/local/tmp/a.png\n__DWPIPE_SHOT=0\n",
            false,
        ),
        (
            "__DWPIPE_SHOT=0\nScreenCap saved to /data/local/tmp/a.png\nDumpLayout saved to:/data/local/tmp/b.json\n__DWPIPE_DUMPED=0\n__DWPIPE_SHOT=1\n",
            false,
        ),
        // A shell that did not run the markers (an old toybox without `wait PID`).
        (
            "DumpLayout saved to:/data/local/tmp/b.json\n__DWPIPE_DUMPED=0\n",
            false,
        ),
        ("", false),
    ] {
        assert_eq!(
            side_by_side(&reply(output), SCREEN, LAYOUT),
            together,
            "{output}"
        );
    }
}
