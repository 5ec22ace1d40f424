//! Why two audits cannot be compared.

/// Why two audits cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// An audit of an outside auditor's report has no device and no runs.
    #[error("`{0}` is not an audit of a device (it holds an outside auditor's checks)")]
    NoDevice(String),
    /// The devices differ in what moves the numbers.
    #[error("the audits were made on different devices: {0}")]
    DeviceDiffers(String),
    /// No criterion of the pack was measured in both audits: a gate that compared nothing.
    #[error("no criterion of the pack was measured in both audits: nothing would be compared")]
    NothingInCommon,
}

impl CompareError {
    /// The stable code.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            CompareError::NoDevice(_) => "E_COMPARE_NOT_AN_AUDIT",
            CompareError::DeviceDiffers(_) => "E_COMPARE_DEVICE_DIFFERS",
            CompareError::NothingInCommon => "E_COMPARE_NOTHING_IN_COMMON",
        }
    }

    /// How to put it right.
    pub(crate) fn fix(&self) -> &'static str {
        match self {
            CompareError::NoDevice(_) | CompareError::DeviceDiffers(_) => {
                "compare audits of one device model, software version and refresh rate"
            }
            CompareError::NothingInCommon => {
                "compare two audits of the same pack (or of packs that share criteria with probes)"
            }
        }
    }
}
