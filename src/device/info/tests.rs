//! Tests of `crate::device::info`.

use super::*;

#[test]
fn reads_the_density_the_way_apps_see_it() {
    let dump = "[SCREEN INFO]\nVirtualWidth:                 387\nDensityInCurResolution:       3.0\nVirtualPixelRatio:            3.25\n";
    assert_eq!(virtual_pixel_ratio(dump), Some(3.25));
    assert_eq!(
        virtual_pixel_ratio("DensityInCurResolution: 3.0\nDensity:  2.5\n"),
        Some(2.5)
    );
    assert_eq!(virtual_pixel_ratio("ID  VPR  W  H\nVPR: 3.5\n"), Some(3.5));
    assert_eq!(virtual_pixel_ratio("VirtualPixelRatio: 99\n"), None);
    assert_eq!(virtual_pixel_ratio(""), None);
    assert_eq!(
        refresh_rate(
            "  supportedMode[0]: 1260x2720, refreshrate=120\n  activeMode: 1260x2720, refreshrate=60\n"
        ),
        Some(60)
    );
    assert_eq!(
        refresh_rate("activeMode: 1280x2800, refreshRate=90\n"),
        Some(90)
    );
    assert_eq!(refresh_rate("activeMode: 1280x2800, refreshRate=0\n"), None);
}

/// The legacy dmserver refuses SceneBoard's `-a -a` and prints `VPR:` for `-a '-d 0'`
/// (`dmserver/src/display_dumper.cpp`); the identity asks both and reads them in order.
#[test]
fn density_on_either_display_manager() {
    let reply = |display: &str, legacy: &str| {
        format!("{MARKER}display\n{display}\n{MARKER}display-legacy\n{legacy}\n{MARKER}screen\n")
    };
    let refused = "The arguments are illegal and you can enter '-h' for help.";
    let legacy = "-------------------------------DisplayManagerService-------------------------------\n[DISPLAY INFO]\nID:                           0\nScreenId:                     0\nName:                         display0\nVPR:                          1.5\nDPI:                          240\n";
    let scene_board = "[SCREEN INFO]\nVirtualPixelRatio:            3.25\n";
    let rows = [
        (reply(refused, legacy), Some(1.5)),
        (reply(scene_board, refused), Some(3.25)),
        (reply(scene_board, legacy), Some(3.25)),
        (reply(refused, refused), None),
    ];
    for (text, expected) in rows {
        assert_eq!(
            parse_identity("x", &text).virtual_pixel_ratio,
            expected,
            "{text}"
        );
    }
    assert!(identity_command().as_str().contains("-a '-d 0'"));
    assert_eq!(
        render_size("screen[0]: id=0, render resolution=1280x2800, physical"),
        Some([1280, 2800])
    );
}

/// What a shell, the tool or hdc print in a value's place is not the value: the real
/// hdcd's shell without `param` answered `/bin/sh: 1: param: not found`.
#[test]
fn an_error_in_a_values_place_is_no_value() {
    for said in [
        "/bin/sh: 1: param: not found",
        "sh: param: not found",
        "/system/bin/sh: param: inaccessible or not found",
        "/bin/sh: 1: /system/bin/param: Permission denied",
        "Get parameter \"const.product.model\" fail! errNum is:106!",
        "[Fail][E001005] Device not found or connected",
        "ALN-AL00\nALN-AL00",
        "",
    ] {
        assert!(!is_parameter_value(said), "{said:?}");
        let reply = format!("{MARKER}model\n{said}\n");
        assert_eq!(parse_identity("x", &reply).model, None, "{said:?}");
    }
    for value in ["ALN-AL00", "HUAWEI Mate 60 Pro", "Not Found Phone X"] {
        assert!(is_parameter_value(value), "{value}");
    }
}

#[test]
fn identity_round_trips_through_its_reply() {
    let info = DeviceInfo {
        serial: "FMR0223C13000649".into(),
        name: Some("HUAWEI Mate 60 Pro".into()),
        model: Some("ALN-AL00".into()),
        software_version: Some("ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)".into()),
        api_level: Some(12),
        virtual_pixel_ratio: Some(3.25),
        refresh_rate: Some(120),
        display_size: Some([1260, 2720]),
        server: None,
    };
    assert_eq!(
        parse_identity("FMR0223C13000649", &render_identity(&info)),
        info
    );
    let sparse = DeviceInfo {
        serial: "x".into(),
        ..DeviceInfo::default()
    };
    assert_eq!(parse_identity("x", &render_identity(&sparse)), sparse);
    assert!(!identity_command().as_str().contains('"'));
}
