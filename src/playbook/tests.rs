//! Playbooks parsed, embedded and overridden.

use super::*;
use crate::pack::CATALOG;

#[test]
fn the_embedded_playbooks_cover_the_catalog() {
    let playbooks = Playbooks::load(None).unwrap();
    assert_eq!(playbooks.probes.len(), CATALOG.len());
    assert_eq!(playbooks.probes["perf.cold-start"].runs, 3);
    assert_eq!(playbooks.probes["perf.cold-start"].tolerance, 0.25);
    let ui = &playbooks.sessions["ui"];
    assert!(
        ui.steps
            .iter()
            .any(|s| matches!(s, Step::Screenshot { save } if save == crate::probe::Evidence::Screen.as_str()))
    );
    // A dump the engine knows as one: after a flow, the flow's own may serve.
    assert!(ui.steps.iter().any(
        |s| matches!(s, Step::Dump { save } if save == crate::probe::Evidence::Layout.as_str())
    ));
    let users: Vec<&str> = playbooks
        .probes
        .values()
        .filter(|p| p.session == "ui")
        .map(|p| p.probe.as_str())
        .collect();
    assert_eq!(
        users.len(),
        7,
        "one ui session serves layout and accessibility probes: {users:?}"
    );
}

#[test]
fn overrides_are_validated_like_packs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("perf.memory.yaml"), "probe: perf.memory\nsession: memory\nextract: memory\nruns: 5\ntolerance: 10%\nresolution: 1\n").unwrap();
    assert_eq!(
        Playbooks::load(Some(dir.path())).unwrap().probes["perf.memory"].runs,
        5
    );
    let rows = [
        (
            "perf.memory.yaml",
            "probe: perf.memory\nsession: memory\nextract: memory\nruns: 5\ntolerance: 10%\nresolution: 1\nretries: 2\n",
            "retries",
        ),
        (
            "perf.memory.yaml",
            "probe: perf.memory\nsession: nowhere\nextract: memory\nruns: 1\ntolerance: 10%\nresolution: 1\n",
            "does not exist",
        ),
        (
            "perf.memory.yaml",
            "probe: perf.memory\nsession: memory\nextract: guess\nruns: 1\ntolerance: 10%\nresolution: 1\n",
            "unknown extractor",
        ),
        (
            "perf.memory.yaml",
            "probe: perf.memory\nsession: memory\nextract: memory\nruns: 1\ntolerance: ten\nresolution: 1\n",
            "percentage",
        ),
        (
            "sessions/memory.yaml",
            "session: memory\nsteps:\n  - shell: rm -rf \"/\"\n",
            "double quotes",
        ),
        (
            "sessions/memory.yaml",
            "session: memory\nsteps:\n  - shell: echo {secret}\n",
            "placeholder",
        ),
        (
            "sessions/memory.yaml",
            "session: memory\nsteps:\n  - pull: /data/local/tmp/x\n",
            "needs `save`",
        ),
        (
            "sessions/memory.yaml",
            "session: memory\nsteps:\n  - shell: ls\n    save: ../x\n",
            "plain file name",
        ),
        (
            "sessions/memory.yaml",
            "session: memory\nsteps:\n  - shell: ls\n    sleep: 1s\n",
            "exactly one",
        ),
        (
            "sessions/ui.yaml",
            "session: ui\nsteps:\n  - dump: layout.json\n    screenshot: screen.png\n",
            "exactly one of shell, pull, sleep, ready, screenshot or dump",
        ),
        (
            "sessions/ui.yaml",
            "session: ui\nsteps:\n  - dump: layout.json\n  - screenshot: layout.json\n",
            "`screenshot: layout.json` is not a new plain file name",
        ),
        (
            "sessions/ui.yaml",
            "session: ui\nsteps:\n  - dump: ../layout.json\n",
            "`dump: ../layout.json` is not a new plain file name",
        ),
        (
            "sessions/memory.yaml",
            "session: memory\nsteps:\n  - ready: window\n",
            "needs `within`",
        ),
        (
            "sessions/memory.yaml",
            "session: memory\nsteps:\n  - ready: file\n    within: 1s\n",
            "can say `window`",
        ),
        (
            "sessions/memory.yaml",
            "session: memory\nsteps:\n  - ready: window\n    within: 2m\n",
            "at most 60 s",
        ),
        (
            "sessions/memory.yaml",
            "session: memory\nsteps:\n  - pull: /data/local/tmp/x\n    save: x\n    within: 1s\n",
            "belongs to `ready` and `shell` steps",
        ),
        (
            "sessions/hypium.yaml",
            "session: hypium\nsteps:\n  - shell: aa test -b {bundle} -m {module}_test -s timeout 60000\n    within: 30s\n",
            "shorter than the suite's own per-case limit (60000 ms)",
        ),
        (
            "sessions/cold-start.yaml",
            "session: cold-start\nsteps:\n  - shell: hitrace -b 65536 app --trace_begin\n  - shell: aa start -b {bundle} -a {ability}\n  - ready: window\n    within: 3s\n  - shell: hitrace --trace_finish -o /data/local/tmp/x.ftrace\n",
            "inside a traced window",
        ),
    ];
    for (name, text, expected) in rows {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        let error = Playbooks::load(Some(dir.path())).unwrap_err().to_string();
        assert!(error.contains(expected), "{name}: {error}");
    }
}
