//! Tests of `crate::probe::sysfs`.

use super::*;

#[test]
fn every_zone_that_reads_and_the_refusals_of_those_that_do_not() {
    let reply = format!(
        "…ThermalService…\n{MARKER}\n/sys/class/thermal/thermal_zone0 soc_thermal 41500\n/sys/class/thermal/thermal_zone1 shell_front 36000\n"
    );
    let read = zones(&reply).unwrap();
    assert_eq!(read.zones.len(), 2);
    assert_eq!(
        (read.zones[0].zone.as_str(), read.zones[0].temperature),
        ("soc_thermal", 41500)
    );
    // One flaky zone among the others is that zone not read, whatever the errno.
    for error in [
        "I/O error",
        "No data available",
        "Resource temporarily unavailable",
        "No such device",
        "Invalid argument",
    ] {
        let flaky = format!(
            "{reply}cat: /sys/class/thermal/thermal_zone2/temp: {error}\n/sys/class/thermal/thermal_zone2 gpu\n"
        );
        let read = zones(&flaky).unwrap();
        assert_eq!(read.zones.len(), 2, "{error}");
        assert_eq!(read.unread.len(), 1, "{error}");
        assert!(read.unread[0].contains(error));
    }
}

#[test]
fn a_shell_that_may_read_no_zone_says_so() {
    // 4.0 and later under OpenHarmony's policy: the folder does not list.
    let unexpanded = format!(
        "{MARKER}\ncat: /sys/class/thermal/thermal_zone*/type: No such file or directory\ncat: /sys/class/thermal/thermal_zone*/temp: No such file or directory\n/sys/class/thermal/thermal_zone*\n"
    );
    let e = zones(&unexpanded).unwrap_err();
    assert!(matches!(e, SysfsError::NotReadable(_)));
    assert!(
        e.to_string()
            .starts_with("the shell could not list /sys/class/thermal"),
        "{e}"
    );
    // 3.2: listed, but no file reads.
    let denied = format!(
        "{MARKER}\ncat: /sys/class/thermal/thermal_zone0/type: Permission denied\ncat: /sys/class/thermal/thermal_zone0/temp: Permission denied\n/sys/class/thermal/thermal_zone0\n"
    );
    let e = zones(&denied).unwrap_err();
    assert!(matches!(e, SysfsError::NotReadable(_)));
    assert!(e.to_string().contains("Permission denied"), "{e}");
    for (tail, said) in [
        (
            "/sys/class/thermal/thermal_zone0 soc 99000x\n",
            "not a whole number",
        ),
        (
            "/sys/class/thermal/thermal_zone0 soc -1\n",
            "not a cold zone",
        ),
        (
            "/sys/class/thermal/thermal_zone0 soc 1 2\n",
            "is not `<zone>",
        ),
        ("/sys/devices/x soc 1\n", "not a thermal zone"),
    ] {
        let e = zones(&format!("{MARKER}\n{tail}")).unwrap_err();
        assert!(e.to_string().contains(said), "{tail}: {e}");
        assert!(matches!(e, SysfsError::Unreadable(_)), "{tail}");
    }
    assert!(
        zones(&format!("{MARKER}\n"))
            .unwrap_err()
            .to_string()
            .contains("no thermal zone")
    );
    assert!(zones("no marker").is_err());
}
