//! SmartPerf's samples: every sample or none, its units and its refusals.

use super::*;

/// Samples in SmartPerf's layout, as the real `-f` captures show it.
fn output(samples: &[&[(&str, &str)]]) -> String {
    use std::fmt::Write;
    let mut text = String::from("\n");
    for pairs in samples {
        for (i, (k, v)) in pairs.iter().enumerate() {
            let _ = writeln!(text, "order:{i} {k}={v}");
        }
        text.push('\n');
    }
    text.push_str("command exec finished!\n");
    text
}

#[test]
fn gpu_and_power_samples_as_smartperf_prints_them() {
    let gpu_out = output(&[
        &[("gpuFrequency", "279000000"), ("gpuLoad", "40.000000")],
        &[("gpuFrequency", "279000000"), ("gpuLoad", "50.000000")],
    ]);
    assert_eq!(
        gpu(&gpu_out, None).unwrap(),
        Gpu {
            load_percent: 45.0,
            frequency_mhz: 279.0,
            samples: 2
        }
    );
    // mA and µV (OpenHarmony's units), a discharging battery's current negative: 350 mA and
    // 450 mA at 4 V.
    let power_out = output(&[
        &[("currentNow", "-350"), ("voltageNow", "4000000")],
        &[("currentNow", "-450"), ("voltageNow", "4000000")],
    ]);
    let p = power(&power_out, None).unwrap();
    assert_eq!(
        (p.current_ma, p.voltage_v, p.milliwatts),
        (400.0, 4.0, 1600.0)
    );
    // SmartPerf's own sample from a phone (its README: currentNow=278, voltageNow=4250532),
    // discharging: about 1.2 W, never 1.2 mW.
    let readme = power(
        &output(&[
            &[("currentNow", "-278"), ("voltageNow", "4250532")],
            &[("currentNow", "-303"), ("voltageNow", "4251570")],
        ]),
        None,
    )
    .unwrap();
    assert_eq!((readme.current_ma, readme.milliwatts), (290.5, 1234.937));
    // A two-cell pack (6.1+ multiplies by the cells) is a phone's too.
    let two = power(
        &output(&[&[("currentNow", "-200"), ("voltageNow", "8400000")]]),
        None,
    );
    assert_eq!(two.unwrap().milliwatts, 1680.0);
}

#[test]
fn values_no_phone_has_in_openharmonys_units_are_no_reading() {
    for (pairs, said) in [
        // A device printing µA, as the Linux ABI would: 290 A is no phone's.
        (
            [("currentNow", "-290000"), ("voltageNow", "4250532")],
            "outside what the device can report",
        ),
        // A 4 mV battery (a value in mV, or no cell at all).
        (
            [("currentNow", "-300"), ("voltageNow", "4000")],
            "0.004 V, outside a Li-ion cell's range",
        ),
        // 1 mA at 4 V: 4 mW is not a phone with its screen on.
        (
            [("currentNow", "-1"), ("voltageNow", "4000000")],
            "is 4 mW, not what a phone draws",
        ),
    ] {
        let e = power(&output(&[&pairs]), None).unwrap_err();
        assert!(e.to_string().contains(said), "{pairs:?}: {e}");
    }
    // BatteryService's nowCurrent (mA by the same API) holds the unit: a thousandfold apart is
    // not one unit; a draw that moved is.
    let p = power(
        &output(&[&[("currentNow", "-300"), ("voltageNow", "4000000")]]),
        None,
    )
    .unwrap();
    assert!(
        p.against_battery(Some(-280))
            .unwrap()
            .contains("agrees in unit")
    );
    assert!(p.against_battery(Some(-60)).is_ok());
    let e = p.against_battery(Some(-280_000)).unwrap_err();
    assert!(e.to_string().contains("not one unit"), "{e}");
    assert!(
        p.against_battery(Some(0))
            .unwrap()
            .contains("not cross-checked")
    );
    assert!(p.against_battery(None).unwrap().contains("not read"));
}

#[test]
fn what_is_not_a_measurement_is_said_never_read_as_one() {
    let rows: Vec<(String, bool, &str)> = vec![
        (
            output(&[&[("failed", "RK does not support power acquisition")]]),
            false,
            "RK does not support",
        ),
        (
            output(&[&[("gpuFrequency", "NA"), ("gpuLoad", "NA")]]),
            true,
            "(`NA`)",
        ),
        // 4.1+: no devfreq node prints zeros, never NA.
        (
            output(&[
                &[("gpuFrequency", "0"), ("gpuLoad", "0.000000")],
                &[("gpuFrequency", "0"), ("gpuLoad", "0.000000")],
            ]),
            true,
            "no GPU devfreq node",
        ),
        // 4.1+: a clocked GPU whose load node did not read prints a load of 0 every time.
        (
            output(&[
                &[("gpuFrequency", "279000000"), ("gpuLoad", "0.000000")],
                &[("gpuFrequency", "279000000"), ("gpuLoad", "0.000000")],
                &[("gpuFrequency", "279000000"), ("gpuLoad", "0.000000")],
            ]),
            true,
            "gpuLoad=0.000000 in all 3 samples while the GPU ran at 279 MHz",
        ),
        // Every sample or none: a negative load, a comma decimal, a unit.
        (
            output(&[&[("gpuFrequency", "279000000"), ("gpuLoad", "-282.000000")]]),
            true,
            "`order:1 gpuLoad=-282.000000` is outside",
        ),
        (
            output(&[
                &[("gpuFrequency", "279000000"), ("gpuLoad", "10.000000")],
                &[("gpuFrequency", "279000000"), ("gpuLoad", "95,000000")],
            ]),
            true,
            "`order:1 gpuLoad=95,000000` does not hold a plain number",
        ),
        (
            output(&[&[("currentNow", "-350mA"), ("voltageNow", "4000000")]]),
            false,
            "`order:0 currentNow=-350mA`",
        ),
        (
            output(&[&[("currentNow", "-350"), ("voltageNow", "-4000000")]]),
            false,
            "outside what the device can report",
        ),
        // A charging battery: its current is the charge.
        (
            output(&[
                &[("currentNow", "-350"), ("voltageNow", "4000000")],
                &[("currentNow", "120"), ("voltageNow", "4000000")],
            ]),
            false,
            "charging in 1 of 2 samples",
        ),
        ("order:0 gpuLoad\n".to_owned(), true, "is not `order:<i>"),
        // No load is ever negative: `-0` is not a zero load.
        (
            output(&[
                &[("gpuFrequency", "279000000"), ("gpuLoad", "40.000000")],
                &[("gpuFrequency", "279000000"), ("gpuLoad", "-0")],
            ]),
            true,
            "is signed where gpuLoad never is",
        ),
        (
            output(&[&[("gpuFrequency", "279000000"), ("gpuLoad", "-0.000000")]]),
            true,
            "is signed where gpuLoad never is",
        ),
        (
            "Not a development mode state\n".to_owned(),
            true,
            "developer mode is off",
        ),
        (
            output(&[
                &[("gpuFrequency", "279000000"), ("gpuLoad", "1.0")],
                &[("gpuLoad", "1.0")],
            ]),
            true,
            "missing from the others",
        ),
    ];
    for (text, is_gpu, said) in rows {
        let error = if is_gpu {
            gpu(&text, None).unwrap_err()
        } else {
            power(&text, None).unwrap_err()
        };
        assert!(error.to_string().contains(said), "{text}: {error}");
    }
    // Fewer samples than the step asked for are not the reading it asked for.
    let one = output(&[&[("gpuFrequency", "279000000"), ("gpuLoad", "40.000000")]]);
    assert!(gpu(&one, Some(1)).is_ok());
    let short = gpu(&one, Some(5)).unwrap_err().to_string();
    assert!(
        short.contains("1 sample(s) where its step asked for 5"),
        "{short}"
    );
    let one = output(&[&[("currentNow", "-350"), ("voltageNow", "4000000")]]);
    assert!(power(&one, Some(5)).is_err());
    // Samples with no blank line between them still part at a repeated key.
    assert_eq!(
        samples("order:0 gpuLoad=1\norder:0 gpuLoad=3\n")
            .unwrap()
            .len(),
        2
    );
}
