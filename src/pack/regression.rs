//! The regression floor: how far a criterion's median may move against a baseline before the
//! move counts (`regression: { floor: 20ms }` or `{ floor: 5% }`, a percentage of the baseline
//! median), on a criterion or for the whole pack; without one, a default per probe unit.

use serde::{Deserialize, Serialize};

use crate::assertion::{Decimal, Unit, common_scale, first_quantity};

/// `regression:` as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RegressionDoc {
    /// `20ms`, `1ms/s`, `5%`.
    pub(crate) floor: String,
}

/// A validated floor.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Floor {
    /// A share of the baseline median (0.05 for 5 %).
    Share(f64),
    /// An amount in a unit (none: the probe's own).
    Amount { value: Decimal, unit: Option<Unit> },
}

/// Built-in floors by probe unit: the smallest move worth a verdict on a phone (research
/// field-2026-12 §4: 20 ms of start, 1 ms/s of jank, 10 MB of Pss), the layout probes'
/// resolution, one frame per second, a tenth of a contrast ratio, one counted item.
const DEFAULTS: &[(Option<&str>, f64)] = &[
    (Some("ms"), 20.0),
    (Some("ms/s"), 1.0),
    (Some("KB"), 10_240.0),
    (Some("fps"), 1.0),
    (Some("vp"), 0.5),
    (Some("ratio"), 0.1),
    (Some("°C"), 1.0),
    (Some("MHz"), 50.0),
    (Some("mW"), 50.0),
    (None, 1.0),
];

impl Floor {
    /// Parses `20ms`, `5%`, `0.5`.
    pub(crate) fn parse(text: &str) -> Result<Floor, String> {
        let text = text.trim();
        if let Some(share) = text.strip_suffix('%') {
            let share: f64 = share
                .trim()
                .parse()
                .map_err(|_| format!("`{text}` is not a percentage"))?;
            if !(share > 0.0 && share < 100.0) {
                return Err(format!("`{text}` is not between 0 and 100 %"));
            }
            return Ok(Floor::Share(share / 100.0));
        }
        let quantity = first_quantity(text)
            .map_err(|e| e.to_string())?
            .filter(|q| q.value > Decimal::new(0, 0))
            .ok_or_else(|| {
                format!("`{text}` is not a positive amount like 20ms or a share like 5%")
            })?;
        Ok(Floor::Amount {
            value: quantity.value,
            unit: quantity.unit,
        })
    }

    /// The floor in the probe's unit for a baseline median, or why this floor cannot apply
    /// to a probe measuring in `probe_unit`.
    pub(crate) fn amount(&self, probe_unit: Option<&str>, baseline: f64) -> Result<f64, String> {
        match self {
            Floor::Share(share) => Ok((share * baseline).abs()),
            Floor::Amount { value, unit } => {
                let probe = probe_unit.map(Unit::parse);
                match (probe.as_ref(), unit.as_ref()) {
                    (None, Some(unit)) => Err(format!("the probe counts; the floor is in {unit}")),
                    (Some(p), Some(u)) => {
                        let (one, factor) =
                            common_scale(Decimal::new(1, 0), Some(p), Some(u), None).map_err(
                                |_| format!("the probe measures in {p}, the floor is in {u}"),
                            )?;
                        Ok(value.to_f64() * factor.to_f64() / one.to_f64())
                    }
                    _ => Ok(value.to_f64()),
                }
            }
        }
    }

    /// The built-in floor of a probe unit.
    pub(crate) fn default_for(probe_unit: Option<&str>) -> f64 {
        DEFAULTS
            .iter()
            .find(|(unit, _)| *unit == probe_unit)
            .map_or(1.0, |(_, floor)| *floor)
    }
}

#[cfg(test)]
mod tests;
