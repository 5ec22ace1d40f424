//! Tests of `crate::bin::fake-hdc::policy`.

use super::*;

const CPU: &str = "cat /proc/self/stat /proc/5000/stat /proc/stat; sleep 2; echo __DWPIPE_CPU_AGAIN; cat /proc/self/stat /proc/5000/stat /proc/stat";

fn cpu_reply() -> String {
    dwpipe::probe::proc_cpu::render(5000, "com.example", (10.0, 4), (100.0, 2.0))
}

#[test]
fn a_denied_file_reads_as_the_shell_refuses_it_and_the_rest_as_recorded() {
    let reply = cpu_reply();
    // 4.1 (API 11): /proc/stat is denied; the clock and the app's process are read.
    let (said, status) = production(Some(11), CPU, &reply, 0).unwrap();
    assert_eq!(
        said.matches("cat: /proc/stat: Permission denied\n").count(),
        2
    );
    assert!(!said.contains("cpu0 "));
    assert_eq!(said.matches("(com.example)").count(), 2);
    assert_eq!(status, 1);
    // Already refused: the same answer again.
    assert_eq!(
        production(Some(11), CPU, &said, 1).unwrap(),
        (said.clone(), 1)
    );
    // 5.0 (API 12) reads it; a capture naming no release answers as recorded.
    assert_eq!(
        production(Some(12), CPU, &reply, 0).unwrap(),
        (reply.clone(), 0)
    );
    assert_eq!(
        production(None, CPU, &reply, 0).unwrap(),
        (reply.clone(), 0)
    );
    // /proc/uptime on every release.
    let (said, status) = production(Some(20), "cat /proc/uptime", "12.5 80.1\n", 0).unwrap();
    assert_eq!(
        (said.as_str(), status),
        ("cat: /proc/uptime: Permission denied\n", 1)
    );
}

#[test]
fn the_thermal_zones_as_each_release_refuses_them() {
    let line = "hidumper -s ThermalService -a -t; echo __DWPIPE_SYSFS; for z in /sys/class/thermal/thermal_zone*; do echo $z $(cat $z/type) $(cat $z/temp); done 2>&1";
    let reply = "Type: soc\nTemperature: 40000\n__DWPIPE_SYSFS\n/sys/class/thermal/thermal_zone0 soc 41000\n/sys/class/thermal/thermal_zone1 gpu 39000\n";
    let (unlisted, _) = production(Some(12), line, reply, 0).unwrap();
    assert_eq!(
        unlisted,
        "Type: soc\nTemperature: 40000\n__DWPIPE_SYSFS\ncat: /sys/class/thermal/thermal_zone*/type: No such file or directory\ncat: /sys/class/thermal/thermal_zone*/temp: No such file or directory\n/sys/class/thermal/thermal_zone*\n"
    );
    assert_eq!(
        production(Some(12), line, &unlisted, 0).unwrap().0,
        unlisted
    );
    let (unreadable, _) = production(Some(9), line, reply, 0).unwrap();
    assert!(unreadable.contains("cat: /sys/class/thermal/thermal_zone1/temp: Permission denied\n/sys/class/thermal/thermal_zone1\n"), "{unreadable}");
    assert!(!unreadable.contains("41000"));
}

#[test]
fn smartperf_without_its_own_domain() {
    let power = "order:0 currentNow=-300\norder:1 voltageNow=4000000\n\ncommand exec finished!\n";
    let (said, _) = production(Some(10), "SP_daemon -N 5 -PKG a.b -p", power, 0).unwrap();
    assert_eq!(
        said,
        "order:0 currentNow=\norder:1 voltageNow=\n\ncommand exec finished!\n"
    );
    let gpu =
        "order:0 gpuFrequency=279000000\norder:1 gpuLoad=10.000000\n\ncommand exec finished!\n";
    let (said, status) = production(Some(9), "SP_daemon -N 5 -PKG a.b -g", gpu, 0).unwrap();
    assert!(
        !said.contains("order:") && said.contains("what():  stof"),
        "{said}"
    );
    assert_eq!(status, 134);
    assert_eq!(
        production(Some(11), "SP_daemon -N 5 -PKG a.b -g", gpu, 0)
            .unwrap()
            .0,
        gpu
    );
}
