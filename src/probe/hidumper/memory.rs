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
mod tests {
    use super::*;

    #[test]
    fn ten_and_seven_columns_and_errors() {
        let ten = "-------------------------------[memory]-------------------------------\n\n                        Pss        Shared        Shared       Private       Private          Swap       SwapPss          Heap          Heap          Heap\n                    Total         Clean         Dirty         Clean         Dirty         Total         Total          Size         Alloc          Free\n                    ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )\n native heap           924             0             0           924             0          1948          1948             0             0             0\n        Total          4275          1564           856          1688            72          2216          2216             0             0             0\n";
        assert_eq!(memory_total(ten).unwrap().pss_kb, 4275);
        // OpenHarmony 3.x (tests/fixtures/hidumper/mem_seven_columns.txt): seven columns, no Heap
        // ones; the total is the rows' PSS, added by hand.
        let seven = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/hidumper/mem_seven_columns.txt"),
        )
        .unwrap();
        let total = memory_total(&seven).unwrap();
        assert_eq!(total.pss_kb, 2312 + 1180);
        assert!(total.evidence.starts_with("Total          3492"));
        assert_eq!(
            memory_total("hidumper: No such process: 99999\n"),
            Err(DumpError::Hidumper("No such process: 99999".into()))
        );
        assert!(matches!(
            memory_total("[memory]\n Pss Shared\n Total Clean\n Total 12\n"),
            Err(DumpError::Empty(_))
        ));
        assert!(matches!(
            memory_total("nothing"),
            Err(DumpError::MissingBlock(_))
        ));
    }
}
