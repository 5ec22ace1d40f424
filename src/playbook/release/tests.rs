//! Tests of `crate::playbook::release`.

use super::*;

#[test]
fn each_probe_on_the_release_families_that_refuse_its_reads() {
    let playbooks = Playbooks::load(None).unwrap();
    let table = access_table();
    let on = |probe: &str, api: u32| {
        probe_on(&playbooks, probe, table.family(api).unwrap())
            .unwrap()
            .readable
    };
    assert_eq!(on("perf.cpu", 9), Readable::Yes);
    assert_eq!(on("perf.cpu", 11), Readable::Partly);
    assert_eq!(on("perf.cpu-background", 10), Readable::Partly);
    assert_eq!(on("perf.cpu", 12), Readable::Yes);
    assert_eq!(on("perf.power", 9), Readable::No);
    assert_eq!(on("perf.power", 11), Readable::Yes);
    assert_eq!(on("perf.gpu", 10), Readable::No);
    // No release lets the shell read sysfs's zones: ThermalService's report stands.
    assert_eq!(on("perf.temperature", 20), Readable::Partly);
    assert_eq!(on("perf.memory", 9), Readable::Unchecked);
}
