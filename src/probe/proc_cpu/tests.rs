use super::*;

fn reply() -> String {
    render(5000, "com.example.not", (12.5, 8), (120.0, 2.0))
}

#[test]
fn the_load_over_the_window_as_the_kernel_prints_it() {
    let cpu = proc_cpu(&reply()).unwrap();
    assert_eq!((cpu.pid, cpu.cores, cpu.seconds), (5000, Some(8), 2.0));
    assert_eq!(cpu.clock, "/proc/self/stat");
    assert_eq!(cpu.all_cores_percent, Some(12.5));
    assert_eq!(cpu.one_core_percent, 100.0);
    assert_eq!((cpu.ticks, cpu.total_ticks), (200, Some(1600)));
    assert!(
        cpu.evidence()
            .contains("12.50% of all cores (100.00% of one core)")
    );
    // A name with spaces and a parenthesis is read to the last `)`.
    let odd = reply().replace("(com.example.not)", "(a (b) c)");
    assert_eq!(proc_cpu(&odd).unwrap().name, "a (b) c");
}

#[test]
fn reads_recorded_with_proc_uptime_still_read() {
    // Before dwpipe read its clock from /proc/self/stat, each read began with /proc/uptime.
    let old = reply()
        .lines()
        .map(|l| {
            if l.contains("(cat)") {
                let start: f64 = l.split_whitespace().nth(21).unwrap().parse().unwrap();
                format!("{:.2} {:.2}", start / 100.0, start / 30.0)
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let cpu = proc_cpu(&old).unwrap();
    assert_eq!(
        (cpu.clock, cpu.all_cores_percent),
        ("/proc/uptime", Some(12.5))
    );
    // A production phone's refusal of it is quoted, never a reading.
    let denied = reply().replacen(
        reply().lines().next().unwrap(),
        "cat: /proc/uptime: Permission denied",
        1,
    );
    let e = proc_cpu(&denied).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/proc/uptime does not read (`cat: /proc/uptime: Permission denied`)"
    );
}

#[test]
fn a_refused_proc_stat_leaves_the_share_of_one_core_on_the_devices_clock() {
    // OpenHarmony 4.1 (and 4.0 user builds): `sh` may not read /proc/stat.
    let mut denied = String::new();
    let mut skipping = false;
    for line in reply().lines() {
        if line.starts_with("cpu ") {
            denied.push_str("cat: /proc/stat: Permission denied\n");
            skipping = true;
        } else if line == AGAIN {
            skipping = false;
        }
        if !skipping {
            denied.push_str(line);
            denied.push('\n');
        }
    }
    let cpu = proc_cpu(&denied).unwrap();
    assert_eq!(
        (cpu.all_cores_percent, cpu.cores, cpu.total_ticks),
        (None, None, None)
    );
    assert_eq!(cpu.one_core_percent, 100.0);
    assert_eq!(
        cpu.all_cores_unread.as_deref(),
        Some("/proc/stat: `cat: /proc/stat: Permission denied`")
    );
    assert!(cpu.evidence().contains("100.00% of one core; the share of all cores is unknown (/proc/stat: `cat: /proc/stat: Permission denied`)"), "{}", cpu.evidence());
}

#[test]
fn counters_no_device_counts_are_no_reading() {
    let (first, second) = reply()
        .split_once(AGAIN)
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .unwrap();
    let join = |a: &str, b: &str| format!("{a}{AGAIN}{b}");
    // A truncated second read: fewer cores than the first.
    let truncated = {
        let lines: Vec<&str> = second.lines().filter(|l| !l.starts_with("cpu7")).collect();
        join(&first, &lines.join("\n"))
    };
    // The process's counter ran backwards (it wrapped).
    let wrapped = join(&first, &second.replace(" 600 600 ", " 10 10 "));
    // More ticks than all cores counted: never clamped to 100 %.
    let more = join(&first, &second.replace(" 600 600 ", " 1400 1400 "));
    for (text, said) in [
        (truncated, "lists 7 core(s), the first 8: a truncated reply"),
        (wrapped, "ran backwards"),
        (
            more,
            "the process counted 1800 ticks, every core together 1600",
        ),
    ] {
        let e = proc_cpu(&text).unwrap_err();
        assert!(matches!(e, ProcCpuError::Impossible(_)), "{e}");
        assert!(e.to_string().contains(said), "{e}");
    }
}

#[test]
fn reads_that_do_not_measure_a_window_say_why() {
    let reply = reply();
    let restarted = {
        let (first, second) = reply.split_once(AGAIN).unwrap();
        format!("{first}{AGAIN}{}", second.replace(" 0 1500 ", " 0 1900 "))
    };
    for (text, said) in [
        (reply.replace(AGAIN, ""), "not two apart"),
        (restarted, "the process changed within the window"),
        (
            reply.replacen("5000 (", "x (", 1),
            "/proc/<pid>/stat does not read",
        ),
        (
            "cat: /proc/5000/stat: No such file or directory\n".to_owned(),
            "not two apart",
        ),
        (
            render(5000, "n", (1.0, 4), (120.0, 0.2)),
            "too short to measure",
        ),
    ] {
        let e = proc_cpu(&text).unwrap_err();
        assert!(e.to_string().contains(said), "{text}: {e}");
    }
}
