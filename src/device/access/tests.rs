//! Tests of `crate::device::access`.

use super::*;

#[test]
fn the_shipped_table_parses_and_every_family_has_a_rule_for_every_read() {
    let table = access_table();
    for read in &table.reads {
        for family in &table.families {
            assert!(
                read.rule(family).is_some(),
                "{} has no rule on {}",
                read.read,
                family.name
            );
        }
    }
    let mut api = 9;
    for family in &table.families {
        assert_eq!(family.api[0], api, "families leave no API level out");
        api = family.api[1] + 1;
    }
}

#[test]
fn the_cpu_reads_by_release() {
    let table = access_table();
    let line = "cat /proc/self/stat /proc/{pid}/stat /proc/stat; sleep 2";
    let denied = |api| {
        let family = table.family(api).unwrap();
        table
            .reads_in(line)
            .filter(|r| r.refused_on(family).is_some())
            .map(|r| r.read.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(denied(9), Vec::<String>::new());
    assert_eq!(denied(10), ["/proc/stat"]);
    assert_eq!(denied(11), ["/proc/stat"]);
    assert_eq!(denied(12), Vec::<String>::new());
    assert_eq!(denied(20), Vec::<String>::new());
    assert!(table.family(8).is_none());
    let uptime = table.reads_in("cat /proc/uptime").collect::<Vec<_>>();
    assert_eq!(uptime.len(), 1);
    assert!(
        (9..=30).all(|api| uptime[0].refused_on(table.family(api).unwrap()).is_some()),
        "no release lets the shell read /proc/uptime"
    );
    // `-PKG` is not `-p`: only the power sampling reads the battery's nodes.
    let gpu = "SP_daemon -N 5 -PKG com.example -g";
    let reads: Vec<&str> = table.reads_in(gpu).map(|r| r.read.as_str()).collect();
    assert_eq!(reads.len(), 1, "{reads:?}");
    assert!(reads[0].contains("GPU"));
}
