//! Tests of `crate::bin::fake-hdc::line`.

use super::*;

fn tool(words: &[String]) -> bool {
    words.first().is_some_and(|w| w != "sleep" && w != "rm")
}

fn outputs(line: &str, reply: &str, status: i32) -> Vec<Option<(String, i32)>> {
    let parts = parts(line).unwrap();
    said(&parts, reply, status, tool)
        .unwrap()
        .into_iter()
        .map(|s| s.map(|s| (s.output, s.status)))
        .collect()
}

fn some(output: &str, status: i32) -> Option<(String, i32)> {
    Some((output.to_owned(), status))
}

#[test]
fn words_keep_quoted_blanks_and_refuse_expansions() {
    assert_eq!(
        words("hidumper -s WindowManagerService -a '-w 13'").unwrap(),
        ["hidumper", "-s", "WindowManagerService", "-a", "-w 13"]
    );
    assert_eq!(words("echo $z"), None);
    assert_eq!(words("cat $(ls)"), None);
    assert_eq!(words("aa 'unterminated"), None);
}

#[test]
fn a_single_command_says_the_whole_reply_with_the_lines_status() {
    assert_eq!(
        outputs(
            "aa start -b x -a EntryAbility",
            "start ability successfully.\n",
            0
        ),
        [some("start ability successfully.\n", 0)]
    );
    assert_eq!(
        outputs("aa force-stop x", "error\n", 1),
        [some("error\n", 1)]
    );
}

#[test]
fn markers_cut_the_reply_into_each_commands_part() {
    let line = "echo M=a; param get a; echo M=b; hidumper -s X -a '-d 0'";
    assert_eq!(
        outputs(line, "M=a\nvalue a\nM=b\nillegal\n", 0),
        [None, some("value a\n", 0), None, some("illegal\n", 0)]
    );
}

#[test]
fn a_background_command_speaks_after_its_wait_with_the_markers_status() {
    let line =
        "uitest screenCap -p /s.png & uitest dumpLayout -p /l.json; echo D=$?; wait $!; echo S=$?";
    let reply = "DumpLayout saved to:/l.json\nD=0\nScreenCap saved to /s.png\nS=3\n";
    assert_eq!(
        outputs(line, reply, 0),
        [
            some("ScreenCap saved to /s.png\n", 3),
            some("DumpLayout saved to:/l.json\n", 0),
            None,
            None,
            None
        ]
    );
}

#[test]
fn a_helper_beside_a_tool_says_nothing() {
    let line = "cat /proc/self/stat; sleep 2; echo AGAIN; cat /proc/stat";
    assert_eq!(
        outputs(line, "1.0 2.0\nAGAIN\ncpu 1 2\n", 0),
        [
            some("1.0 2.0\n", 0),
            some("", 0),
            None,
            some("cpu 1 2\n", 0)
        ]
    );
}

#[test]
fn a_reply_without_its_markers_or_a_line_with_a_loop_is_not_taken_apart() {
    let parts = parts("echo M=a; param get a").unwrap();
    assert_eq!(said(&parts, "value a\n", 0, tool), None);
    assert_eq!(
        super::parts("for z in /sys/x*; do echo $z; done 2>&1"),
        None
    );
}
