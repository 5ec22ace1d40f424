//! Tests of `crate::probe::hidumper::cpu`.

use super::*;

#[test]
fn the_app_process_row_as_hidumper_prints_it() {
    // The layout of hidumper's documented sample (`hidumper --cpuusage 1`).
    let dump = "\n-------------------------------[cpuusage]-------------------------------\n\nLoad average: 2.1 / 2.2 / 2.1; the cpu load average in 1 min, 5 min and 15 min\nCPU usage from 2026-11-30 10:00:00 to 2026-11-30 10:00:02\nTotal: 9.80%; User Space: 6.45%; Kernel Space: 3.35%; iowait: 0.00%; irq: 0.14%; idle: 90.06%\nDetails of Processes:\n    PID   Total Usage      User Space    Kernel Space    Page Fault Minor    Page Fault Major    Name\n    5000       3.25%           2.50%          0.75%           1204                 3            com.example.notes\n";
    let usage = cpu_usage(dump).unwrap();
    assert_eq!((usage.pid, usage.total_percent), (5000, 3.25));
    assert_eq!(usage.name, "com.example.notes");
    assert_eq!(
        usage.evidence,
        "com.example.notes (pid 5000): 3.25% total from 2026-11-30 10:00:00 to 2026-11-30 10:00:02"
    );
    assert!(cpu_usage("hidumper: No such process: 5000\n").is_err());
    assert!(matches!(
        cpu_usage(&dump.replace("    5000 ", "")),
        Err(DumpError::Empty(_))
    ));
}
