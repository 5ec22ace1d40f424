//! `hidumper --mem <pid>`: the process's PSS, read from the `Total` row by the header's
//! `Pss Total` column, whatever the column count (HarmonyOS prints ten columns with the Heap
//! ones, OpenHarmony 3.x seven, ending at `SwapPss Total`).

use serde::Serialize;

use super::{DumpError, HIDUMPER_ERROR};

/// The `Total` row of `hidumper --mem <pid>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemoryTotal {
    /// PSS total, in KB.
    pub pss_kb: u64,
    /// The row it was read from.
    pub(crate) evidence: String,
}

/// Parses `hidumper --mem <pid>`.
pub fn memory_total(dump: &str) -> Result<MemoryTotal, DumpError> {
    if let Some(error) = HIDUMPER_ERROR.captures(dump) {
        return Err(DumpError::Hidumper(error[1].trim().to_owned()));
    }
    let Some((_, table)) = dump.split_once("[memory]") else {
        return Err(DumpError::MissingBlock("[memory]".to_owned()));
    };
    // The header is two lines of words (`Pss Shared …` over `Total Clean …`); a column is
    // named by both.
    let lines: Vec<&str> = table.lines().collect();
    let header = lines
        .windows(2)
        .find_map(|pair| {
            let (upper, lower): (Vec<&str>, Vec<&str>) = (
                pair[0].split_whitespace().collect(),
                pair[1].split_whitespace().collect(),
            );
            (upper.first() == Some(&"Pss") && upper.len() == lower.len()).then(|| {
                upper
                    .into_iter()
                    .zip(lower)
                    .map(|(u, l)| format!("{u} {l}"))
            })
        })
        .map(Iterator::collect::<Vec<String>>)
        .ok_or_else(|| {
            DumpError::Empty("no `Pss Total` column header in the [memory] table".to_owned())
        })?;
    let pss = header
        .iter()
        .position(|name| name == "Pss Total")
        .ok_or_else(|| DumpError::Empty("no `Pss Total` column in the header".to_owned()))?;
    let (line, row) = lines
        .iter()
        .map(|line| (line.trim(), line.split_whitespace().collect::<Vec<&str>>()))
        .find(|(_, fields)| fields.first() == Some(&"Total") && fields.len() == header.len() + 1)
        .ok_or_else(|| {
            DumpError::Empty(format!(
                "no `Total` row with the header's {} columns",
                header.len()
            ))
        })?;
    Ok(MemoryTotal {
        pss_kb: row[pss + 1].parse().map_err(|_| {
            DumpError::Empty(format!("the Total PSS `{}` is not a number", row[pss + 1]))
        })?,
        evidence: line.to_owned(),
    })
}

#[cfg(test)]
mod tests;
