//! A device's identity (`device.yaml`) and how it is read from a real device: one shell call
//! that prints the product parameters and the display density, each behind a marker line.
//!
//! The density comes from `hidumper -s DisplayManagerService -a -a`: the `VirtualPixelRatio`
//! (px per vp), else `Density:` (anchored, so `DensityInCurResolution:` is not read), else the
//! legacy `VPR` field. Values outside the platform's limits (0.5–6.25) are not densities.

use std::fmt::Write;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::shell::ShellCommand;

/// Who a device is: what `device.yaml` holds and `dwpipe devices` prints.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DeviceInfo {
    /// The connect key.
    pub serial: String,
    /// Marketing name (`const.product.name`).
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// Model (`const.product.model`).
    #[serde(default)]
    pub model: Option<String>,
    /// Software version (`const.product.software.version`).
    #[serde(default)]
    pub(crate) software_version: Option<String>,
    /// API level (`const.ohos.apiversion`).
    #[serde(default)]
    pub api_level: Option<u32>,
    /// px per vp, from DisplayManagerService.
    #[serde(default)]
    pub virtual_pixel_ratio: Option<f64>,
}

const FIELDS: [(&str, &str); 5] = [
    ("name", "param get const.product.name"),
    ("model", "param get const.product.model"),
    (
        "software-version",
        "param get const.product.software.version",
    ),
    ("api-level", "param get const.ohos.apiversion"),
    ("display", "hidumper -s DisplayManagerService -a -a"),
];

const MARKER: &str = "__DWPIPE_FIELD=";

/// The one shell command that reads a device's identity.
pub fn identity_command() -> ShellCommand {
    // Built once from constants: no value from outside enters it.
    static COMMAND: LazyLock<String> = LazyLock::new(|| {
        FIELDS
            .iter()
            .map(|(field, command)| format!("echo {MARKER}{field}; {command}"))
            .collect::<Vec<_>>()
            .join("; ")
    });
    ShellCommand::from_capture(&COMMAND).expect("the identity command is valid")
}

/// Reads the reply of [`identity_command`].
pub(crate) fn parse_identity(serial: &str, reply: &str) -> DeviceInfo {
    let mut info = DeviceInfo {
        serial: serial.to_owned(),
        ..DeviceInfo::default()
    };
    let mut sections = reply.split(MARKER).skip(1);
    for section in sections.by_ref() {
        let (field, body) = section.split_once('\n').unwrap_or((section, ""));
        let value = body.trim();
        // `param get` failures print `Get parameter "x" fail! errNum is:106!`.
        let usable = !value.is_empty() && !value.contains("fail! errNum");
        match field.trim() {
            "name" if usable => info.name = Some(value.to_owned()),
            "model" if usable => info.model = Some(value.to_owned()),
            "software-version" if usable => info.software_version = Some(value.to_owned()),
            "api-level" => info.api_level = value.parse().ok(),
            "display" => info.virtual_pixel_ratio = virtual_pixel_ratio(body),
            _ => {}
        }
    }
    info
}

/// What a fake or replayed device answers to [`identity_command`].
pub fn render_identity(info: &DeviceInfo) -> String {
    let value = |v: &Option<String>| {
        v.clone()
            .unwrap_or_else(|| "Get parameter \"x\" fail! errNum is:106!".to_owned())
    };
    let mut reply = String::new();
    for (field, _) in FIELDS {
        let _ = writeln!(reply, "{MARKER}{field}");
        let line = match field {
            "name" => value(&info.name),
            "model" => value(&info.model),
            "software-version" => value(&info.software_version),
            "api-level" => info
                .api_level
                .map_or_else(|| value(&None), |a| a.to_string()),
            _ => info.virtual_pixel_ratio.map_or_else(String::new, |vpr| {
                format!("[SCREEN INFO]\nVirtualPixelRatio:            {vpr}")
            }),
        };
        reply.push_str(&line);
        reply.push('\n');
    }
    reply
}

static PATTERNS: LazyLock<[Regex; 3]> = LazyLock::new(|| {
    [
        Regex::new(r"(?m)^\s*VirtualPixelRatio:\s*([0-9]+(?:\.[0-9]+)?)").expect("static regex"),
        Regex::new(r"(?m)^\s*Density:\s*([0-9]+(?:\.[0-9]+)?)").expect("static regex"),
        Regex::new(r"\bVPR:?\s*([0-9]+(?:\.[0-9]+)?)").expect("static regex"),
    ]
});

/// The first density the dump states, in order of preference.
pub fn virtual_pixel_ratio(dump: &str) -> Option<f64> {
    PATTERNS.iter().find_map(|pattern| {
        let value: f64 = pattern.captures(dump)?.get(1)?.as_str().parse().ok()?;
        (0.5..=6.25).contains(&value).then_some(value)
    })
}

#[cfg(test)]
mod tests {
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
}
