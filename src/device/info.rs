//! A device's identity (`device.yaml`) and how it is read from a real device: one shell call
//! that prints the product parameters and the display density, each behind a marker line.
//!
//! The density is asked in the form each DisplayManagerService dumper answers, and read in
//! order: SceneBoard's (`-a -a`: `VirtualPixelRatio`, px per vp, else `Density:`, anchored so
//! `DensityInCurResolution:` is not read), then the legacy dmserver's, which refuses `-a -a`
//! (it takes two arguments) and prints `VPR:` for `-a '-d 0'` (OpenHarmony 3.2–4.1 and builds
//! without SceneBoard). Values outside the platform's limits (0.5–6.25) are not densities.
//! The display's render size (what gestures are placed in) comes from RenderService's screen.

use std::fmt::Write;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::shell::ShellCommand;

/// Who a device is: what `device.yaml` holds and `dwpipe devices` prints.
#[derive(schemars::JsonSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DeviceInfo {
    /// The connect key.
    pub serial: String,
    /// Marketing name (`const.product.name`).
    #[serde(default)]
    pub name: Option<String>,
    /// Model (`const.product.model`).
    #[serde(default)]
    pub model: Option<String>,
    /// Software version (`const.product.software.version`).
    #[serde(default)]
    pub software_version: Option<String>,
    /// API level (`const.ohos.apiversion`).
    #[serde(default)]
    pub api_level: Option<u32>,
    /// px per vp, from DisplayManagerService.
    #[serde(default)]
    pub virtual_pixel_ratio: Option<f64>,
    /// The active refresh rate in Hz, from RenderService's active mode (absent in identities
    /// recorded before dwpipe read it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_rate: Option<u32>,
    /// The first screen's render size in px, width and height (absent in identities recorded
    /// before dwpipe read it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_size: Option<[u32; 2]>,
    /// The hdc server it was reached through (`local` or `HOST:PORT`): host-side, so absent
    /// where no server was asked (a fake's identity, one recorded before dwpipe noted it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

const FIELDS: [(&str, &str); 7] = [
    ("name", "param get const.product.name"),
    ("model", "param get const.product.model"),
    (
        "software-version",
        "param get const.product.software.version",
    ),
    ("api-level", "param get const.ohos.apiversion"),
    ("display", "hidumper -s DisplayManagerService -a -a"),
    (
        "display-legacy",
        "hidumper -s DisplayManagerService -a '-d 0'",
    ),
    ("screen", "hidumper -s RenderService -a screen"),
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
        let usable = is_parameter_value(value);
        match field.trim() {
            "name" if usable => info.name = Some(value.to_owned()),
            "model" if usable => info.model = Some(value.to_owned()),
            "software-version" if usable => info.software_version = Some(value.to_owned()),
            "api-level" => info.api_level = value.parse().ok(),
            "display" => info.virtual_pixel_ratio = virtual_pixel_ratio(body),
            "display-legacy" if info.virtual_pixel_ratio.is_none() => {
                info.virtual_pixel_ratio = virtual_pixel_ratio(body);
            }
            "screen" => {
                info.refresh_rate = refresh_rate(body);
                info.display_size = render_size(body);
            }
            _ => {}
        }
    }
    info
}

/// Whether `param get`'s reply is a value: one line, not its own failure (`Get parameter "x"
/// fail! errNum is:106!`), nor the shell's (`/bin/sh: 1: param: not found`, toybox's
/// `param: inaccessible or not found`, `Permission denied`), nor hdc's (`[Fail]…`).
fn is_parameter_value(value: &str) -> bool {
    static ERROR: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)fail! errNum|^\[Fail\]|(: )(not found|inaccessible or not found|permission denied|no such file or directory|command not found|cannot execute)\b",
        )
        .expect("static regex")
    });
    !value.is_empty()
        && !value.contains('\n')
        && !value.chars().any(char::is_control)
        && !ERROR.is_match(value)
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
            "display" => info.virtual_pixel_ratio.map_or_else(String::new, |vpr| {
                format!("[SCREEN INFO]\nVirtualPixelRatio:            {vpr}")
            }),
            // SceneBoard's answer above is the one a fake gives; the legacy form is refused.
            "display-legacy" => {
                "The arguments are illegal and you can enter '-h' for help.".to_owned()
            }
            _ => {
                let mut screen = String::from("-- ScreenInfo");
                if let Some([w, h]) = info.display_size {
                    let _ = write!(
                        screen,
                        "\n  screen[0]: id=0, powerstatus=POWER_STATUS_ON, render size: {w}x{h}, physical screen resolution: {w}x{h}, isvirtual=false"
                    );
                }
                if let Some(hz) = info.refresh_rate {
                    let _ = write!(screen, "\n  activeMode: 0x0, refreshrate={hz}");
                }
                screen
            }
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

static ACTIVE_MODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?mi)^\s*activeMode:\s*\d+x\d+,\s*refreshrate=(\d+)").expect("static regex")
});

/// The refresh rate of the first screen's active mode (`activeMode: 1260x2720,
/// refreshrate=60` on 5.x, `refreshRate=` on 6.x).
pub(crate) fn refresh_rate(dump: &str) -> Option<u32> {
    ACTIVE_MODE
        .captures(dump)?
        .get(1)?
        .as_str()
        .parse()
        .ok()
        .filter(|hz| (1..=1000).contains(hz))
}

static RENDER_SIZE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?mi)render (?:size:\s*|resolution=)(\d+)x(\d+)").expect("static regex")
});

/// The first screen's render size (`render size: 1260x2720` on 5.x, `render
/// resolution=1260x2720` on 6.x).
pub(crate) fn render_size(dump: &str) -> Option<[u32; 2]> {
    let c = RENDER_SIZE.captures(dump)?;
    let size = [c[1].parse().ok()?, c[2].parse().ok()?];
    size.iter()
        .all(|px| (1..=100_000).contains(px))
        .then_some(size)
}

/// The first density the dump states, in order of preference.
pub fn virtual_pixel_ratio(dump: &str) -> Option<f64> {
    PATTERNS.iter().find_map(|pattern| {
        let value: f64 = pattern.captures(dump)?.get(1)?.as_str().parse().ok()?;
        (0.5..=6.25).contains(&value).then_some(value)
    })
}

#[cfg(test)]
mod tests;
