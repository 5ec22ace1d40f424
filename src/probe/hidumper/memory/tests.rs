//! Tests of `crate::probe::hidumper::memory`.

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
