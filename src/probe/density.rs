//! Display density from `hidumper -s DisplayManagerService -a -a`: the `VirtualPixelRatio`
//! (px per vp), else `Density:` (anchored, so `DensityInCurResolution:` is not read), else the
//! legacy `VPR` field. Values outside the platform's limits (0.5–6.25) are not densities.

use std::sync::LazyLock;

use regex::Regex;

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
}
