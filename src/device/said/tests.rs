//! Tests of `crate::device::said`.

use super::*;
use std::time::Duration;

fn reply(output: &str, status: i32) -> ShellReply {
    ShellReply {
        output: output.to_owned(),
        status,
        duration: Duration::ZERO,
    }
}

/// Each tool's texts as its printer writes them, with the verdict they must get.
#[test]
fn every_tool_is_judged_by_the_words_its_printer_writes() {
    let rows: &[(&str, &str, i32, Result<(), &str>)] = &[
        (
            "aa start -b b -a A",
            "start ability successfully.\n",
            0,
            Ok(()),
        ),
        (
            "aa start -b b -a A",
            "error: failed to start ability.\nerror: resolve ability err.\n",
            0,
            Err("said `error: failed to start ability.`"),
        ),
        (
            "aa start -b b -a A",
            "",
            0,
            Err("printed nothing, not `start ability successfully.`"),
        ),
        (
            "aa start -b b -a A",
            "start ability successfully.\nerror: something later\n",
            0,
            Err("said `error: something later`"),
        ),
        (
            "aa force-stop b",
            "force stop process successfully.\n",
            0,
            Ok(()),
        ),
        (
            "aa force-stop b",
            "error: failed to force stop process.\n",
            0,
            Err("said `error: failed to force stop process.`"),
        ),
        (
            "aa force-stop b",
            "uninstall bundle successfully.\n",
            0,
            Err("said `uninstall bundle successfully.`, not `force stop process successfully.`"),
        ),
        (
            "hitrace --trace_finish -o /data/local/tmp/x.ftrace",
            "",
            0,
            Ok(()),
        ),
        (
            "hitrace --trace_finish -o /data/local/tmp/x.ftrace",
            "error: opening /data/local/tmp/x.ftrace failed, errno: 13.\n",
            0,
            Err("said `error: opening /data/local/tmp/x.ftrace failed, errno: 13.`"),
        ),
        (
            "hitrace -b 65536 app --trace_begin",
            "error: not in developermode, exit\n",
            255,
            Err("said `error: not in developermode, exit`"),
        ),
        ("uitest uiInput swipe 1 2 3 4 600", "", 0, Ok(())),
        (
            "uitest uiInput click 0 5",
            "Please confirm that the coordinate values are correct. \n",
            0,
            Err("said `Please confirm that the coordinate values are correct.`"),
        ),
        (
            "uitest uiInput click 5 5",
            "Illegal argument: uiInput\n",
            1,
            Err("said `Illegal argument: uiInput`"),
        ),
        (
            "uitest screenCap -p /data/local/tmp/s.png",
            "ScreenCap saved to /data/local/tmp/s.png\n",
            0,
            Ok(()),
        ),
        (
            "uitest dumpLayout -p /data/local/tmp/l.json",
            "DumpLayout failed:no window\n",
            1,
            Err("said `DumpLayout failed:no window`"),
        ),
        (
            "hidumper -s DisplayManagerService -a -a",
            "The arguments are illegal and you can enter '-h' for help.\n",
            0,
            Err("said `The arguments are illegal and you can enter '-h' for help.`"),
        ),
        (
            "hidumper --mem 9",
            "hidumper: No such process: 9\n",
            0,
            Err("said `hidumper: No such process: 9`"),
        ),
        ("pidof com.example.notes", "", 1, Err("exited 1")),
        ("rm -f /data/local/tmp/x", "", 0, Ok(())),
        // aa test is judged by the hypium parser, which reads the whole report.
        (
            "aa test -b b -m e_test",
            "error: failed to start user test.\n",
            0,
            Ok(()),
        ),
    ];
    for (command, output, status, expected) in rows {
        let got = judge(command, &reply(output, *status)).map_err(|r| r.to_string());
        assert_eq!(
            got,
            expected.map_err(str::to_owned),
            "{command} said {output:?}"
        );
    }
}
