//! Audits through the real client, server and daemons: one phone recorded live and replayed to
//! the same verdicts (the verdicts fake-hdc's replay of the same material gives), a lab of two
//! phones and the lease a second job waits for, an A/B session that installs and uninstalls the
//! fixture HAPs through hdc's real file transfer and install path, and a server that dies
//! mid-audit.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use dwpipe::gate::CheckResult;
use dwpipe::schema::{AbRecord, AuditReport, LabReport, Regression, Restored};

use super::stack::{Stack, Tools};
use crate::support::{
    Audited, EXIT_CODES, Matrix, Ran, frozen_example, frozen_fixture, no_sleeps, own_leases, read,
    replay_audit_into,
};

/// Each criterion's verdict and what was measured, in the audit report at `path`.
#[track_caller]
fn verdicts(path: &Path) -> BTreeMap<String, (CheckResult, Option<String>)> {
    let report: AuditReport = read(path);
    report
        .checks
        .into_iter()
        .map(|c| (c.check.criterion_id, (c.check.result, c.check.actual)))
        .collect()
}

/// `dwpipe audit` of the frozen pack in `dir` through the stack's server: `target` (`--device
/// KEY` or `--devices all`) into `out`, with `playbooks`, then `extra`; its output piped.
fn audit(
    stack: &Stack,
    dir: &Path,
    target: &[&str],
    (out, playbooks): (&str, &str),
    extra: &[&str],
) -> std::process::Command {
    let mut command = stack.dwpipe(dir);
    command
        .args(["audit", "--pack", "pack.lock.json"])
        .args(target)
        .args([
            "--server",
            &stack.server,
            "--out",
            out,
            "--playbooks",
            playbooks,
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Waits (60 s at most) for a folder a running audit makes.
#[track_caller]
fn wait_for(folder: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !folder.is_dir() {
        assert!(Instant::now() < deadline, "{} never came", folder.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An ended child's exit code and both its streams.
fn ended(child: std::process::Child) -> (Option<i32>, String) {
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

#[test]
fn live_audits_through_the_real_stack_record_what_their_replays_judge_alike() {
    let dir = frozen_example();
    let dir = dir.path();
    let Some(mut stack) = Stack::start(dir) else {
        return;
    };
    let playbooks = no_sleeps(dir);
    let materials = [("notes-pass", 0), ("notes-fail", 1)];
    // Both phones audited at once (each call through the real stack costs about 0.1 s).
    let audits: Vec<_> = materials
        .iter()
        .map(|(material, _)| {
            let key = stack.phone(Tools::Serving(material)).key.clone();
            let (out, capture) = (format!("live-{material}"), format!("cap-{material}"));
            audit(
                &stack,
                dir,
                &["--device", &key],
                (&out, &playbooks),
                &["--record", &capture],
            )
            .spawn()
            .unwrap()
        })
        .collect();
    for ((material, expected_code), audit) in materials.into_iter().zip(audits) {
        let (code, said) = ended(audit);
        assert_eq!(code, Some(expected_code), "{said}{}", stack.logs());
        let live = verdicts(&dir.join(format!("live-{material}/audit-1.json")));
        // Its recording replays to the same verdicts and values…
        replay_audit_into(
            dir,
            &dir.join(format!("cap-{material}")),
            &format!("replay-{material}"),
        )
        .args(["--playbooks", &playbooks])
        .status(expected_code)
        .run();
        let replayed = verdicts(&dir.join(format!("replay-{material}/audit-1.json")));
        assert_eq!(live, replayed, "{material}");
        // …which are the verdicts of the material itself, served by fake-hdc's replay.
        let Ran { stdout, stderr, .. } = replay_audit_into(
            dir,
            Path::new(&repo(&format!("device-fixtures/{material}"))),
            &format!("fake-{material}"),
        )
        .status_in(&[0, 1])
        .run();
        let served = verdicts(&dir.join(format!("fake-{material}/audit-1.json")));
        assert_eq!(live, served, "{material}: {stdout}{stderr}");
        if material == "notes-pass" && std::env::var_os("DWPIPE_RECORD_FIXTURES").is_some() {
            let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORDED);
            let _ = fs::remove_dir_all(&fixture);
            crate::support::copy_tree(&dir.join(format!("cap-{material}")), &fixture);
        }
    }

    // Both phones as a lab behind the one server, while a second job asks for one of them:
    // it finds the lab's lease and, not waiting, says who holds it.
    let leases = own_leases();
    let lab = audit(&stack, dir, &["--devices", "all"], ("lab", &playbooks), &[])
        .env("DWPIPE_LEASES", &leases)
        .spawn()
        .unwrap();
    let first = stack.phones[0].key.clone();
    wait_for(
        &dir.join("lab")
            .join(first.replace(':', "_"))
            .join("evidence"),
    );
    let second = audit(
        &stack,
        dir,
        &["--device", &first],
        ("second", &playbooks),
        &["--lease-wait", "0s"],
    )
    .env("DWPIPE_LEASES", &leases)
    .spawn()
    .unwrap();
    let (code, said) = ended(second);
    assert_eq!(code, Some(3), "{said}");
    assert!(
        said.contains("E_DEVICE_LEASED") && said.contains("is leased to"),
        "{said}"
    );
    let (code, said) = ended(lab);
    assert_eq!(code, Some(1), "{said}");
    let matrix: LabReport = read(dir.join("lab/lab.json"));
    let mut listed = matrix.device_verdicts();
    listed.sort_unstable();
    let mut expected = [
        (first.as_str(), "pass"),
        (stack.phones[1].key.as_str(), "fail"),
    ];
    expected.sort_unstable();
    assert_eq!(listed, expected, "{matrix:?}");
}

/// The passing notes audit as recorded through the real client, server and daemon (with the
/// suite's playbooks, which do not sleep): `DWPIPE_RECORD_FIXTURES=1` on the live test above
/// records it again.
const RECORDED: &str = "device-fixtures/notes-pass-real-hdc";

#[test]
fn a_capture_recorded_through_the_real_hdc_replays_strictly_to_its_materials_verdicts() {
    let dir = frozen_example();
    let dir = dir.path();
    let playbooks = no_sleeps(dir);
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = replay_audit_into(dir, Path::new(&repo(RECORDED)), "recorded")
        .args(["--playbooks", &playbooks, "--strict"])
        .status_in(EXIT_CODES)
        .run();
    assert_eq!(
        code, 0,
        "{stdout}{stderr}\n(a changed playbook? record it again: DWPIPE_RECORD_FIXTURES=1 cargo test --test integration real_hdc::audits::live)"
    );
    replay_audit_into(
        dir,
        Path::new(&repo("device-fixtures/notes-pass")),
        "material",
    )
    .status_in(EXIT_CODES)
    .run();
    assert_eq!(
        verdicts(&dir.join("recorded/audit-1.json")),
        verdicts(&dir.join("material/audit-1.json"))
    );
}

#[test]
fn an_ab_session_switches_builds_through_the_real_install_path() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let dir = dir.path();
    let Some(mut stack) = Stack::start(dir) else {
        return;
    };
    let phone = stack.phone(Tools::Serving("ab-phone-4"));
    let (key, root) = (phone.key.clone(), phone.root.clone());
    let server = stack.server.clone();
    let args = crate::ab::ab_args(
        dir,
        &stack.hdc,
        &["--device", &key, "--server", &server],
        "16",
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = stack.run(dir, &args);
    // The 10 % slower candidate regresses, as it does served by fake-hdc (ab.rs).
    assert_eq!(code, 1, "{stdout}{stderr}{}", stack.logs());
    let record: AbRecord = read(dir.join("out/ab.json"));
    assert_eq!(record.regression, Regression::Regressed, "{record:?}");
    assert_eq!(stderr.matches("installing the").count(), 4, "{stderr}");
    // hdc moved each HAP to the phone and hdcd ran the bundle manager on it, which knew the
    // build by the version inside it; the device is left with the candidate.
    assert_eq!(record.left_installed, Restored::Candidate, "{record:?}");
    assert_eq!(
        fs::read_to_string(root.join("data/fake-phone/phone.installed")).unwrap(),
        "notes-1.1.hap"
    );
}

#[test]
fn a_server_that_dies_mid_audit_ends_it_as_an_environment_error() {
    let dir = frozen_example();
    let dir = dir.path();
    let Some(mut stack) = Stack::start(dir) else {
        return;
    };
    let playbooks = no_sleeps(dir);
    let key = stack.phone(Tools::Serving("notes-pass")).key.clone();
    let server = stack.server.clone();
    let running = audit(&stack, dir, &["--device", &key], ("out", &playbooks), &[])
        .spawn()
        .unwrap();
    wait_for(&dir.join("out/evidence"));
    stack.kill_server();
    let killed = Instant::now();
    let (code, said) = ended(running);
    assert_eq!(code, Some(3), "{said}");
    assert!(
        said.contains("E_HDC_SERVER_UNREACHABLE")
            && said.contains(&format!("hdc server {server} is unreachable")),
        "{said}"
    );
    // One wait for hdc's connection retries, not one per remaining call.
    assert!(
        killed.elapsed() < Duration::from_secs(60),
        "{:?}",
        killed.elapsed()
    );
    assert!(
        !said.contains("PASS"),
        "an audit cut short never passes: {said}"
    );
}

/// A phone of OpenHarmony 4.1 through the real client, server and daemon: its tools answer as
/// that release's shell does (the `/proc/stat` it may not read refused, as toybox prints it),
/// and they run as the shell user, never root.
#[test]
fn a_phone_answers_as_its_release_and_its_shell_user() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    fs::write(
        dir.join("pack.yaml"),
        "version: 1\napp:\n  bundle: com.example.notes\n  ability: EntryAbility\ncriteria:\n  - id: P-05\n    dimension: performance\n    statement: The app's CPU load stays at or under 20% of all cores\n    weight: should\n    assertion: { matcher: lte, expected: 20, unit: \"%\", probe: { id: perf.cpu, runs: 1 } }\n  - id: P-07\n    dimension: performance\n    statement: The app keeps at most one and a half cores busy\n    weight: should\n    assertion: { matcher: lte, expected: 150, unit: \"%\", probe: { id: perf.cpu, metric: one-core, runs: 1 } }\n",
    )
    .unwrap();
    crate::support::Test::new(dir)
        .args(["freeze", "pack.yaml"])
        .run();
    let Some(mut stack) = Stack::start(dir) else {
        return;
    };
    let key = stack.phone(Tools::Serving("releases-4.1")).key.clone();
    let user = stack.hdc(&["-t", &key, "shell", "id -u"]);
    assert_eq!(user.trim(), "2000", "{}", stack.logs());
    let playbooks = no_sleeps(dir);
    let (code, said) = ended(
        audit(&stack, dir, &["--device", &key], ("live", &playbooks), &[])
            .spawn()
            .unwrap(),
    );
    assert!(code.is_some_and(|c| EXIT_CODES.contains(&c)), "{said}");
    let report: AuditReport = read(dir.join("live/audit-1.json"));
    let p05 = &report.check("P-05").check;
    assert_eq!(
        p05.result,
        CheckResult::Unverified,
        "{said}{}",
        stack.logs()
    );
    assert!(
        p05.evidence
            .contains("/proc/stat: `cat: /proc/stat: Permission denied`"),
        "{}",
        p05.evidence
    );
    assert_eq!(report.actual("P-07"), Some("96%"), "{said}");
}

/// The example's touch-target criterion alone.
const TOUCH_TARGET_PACK: &str = "version: 1
app: { bundle: com.example.notes, ability: EntryAbility }
criteria:
  - id: X-01
    dimension: accessibility
    statement: Every clickable control is at least 48vp on its smallest side
    weight: must
    assertion: { matcher: gte, expected: 48, unit: vp, probe: { id: a11y.touch-target } }
";

#[test]
fn a_lab_names_every_phone_its_server_lists_and_passes_only_on_what_it_needs() {
    // One criterion read from one layout dump: the lab, not the audit, is under test.
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    fs::write(dir.join("pack.yaml"), TOUCH_TARGET_PACK).unwrap();
    crate::support::Test::new(dir)
        .args(["freeze", "pack.yaml"])
        .run();
    let Some(mut stack) = Stack::start(dir) else {
        return;
    };
    let playbooks = no_sleeps(dir);
    let connected = stack.phone(Tools::Serving("notes-pass")).key.clone();
    let unauthorized = stack.phone(Tools::Unauthorized).key.clone();
    let offline = [stack.offline_device(), stack.offline_device()];

    // One phone passes, three cannot be driven: the lab is not a pass, and says why of each.
    let (code, said) = ended(
        audit(&stack, dir, &["--devices", "all"], ("lab", &playbooks), &[])
            .spawn()
            .unwrap(),
    );
    assert_eq!(code, Some(3), "{said}{}", stack.logs());
    assert!(
        said.contains("lab audit of 4 device(s): INCOMPLETE — 1 passed, 0 failed, 0 unverified, 3 not measured ("),
        "{said}"
    );
    let matrix: LabReport = read(dir.join("lab/lab.json"));
    let mut listed = matrix.device_verdicts();
    listed.sort_unstable();
    let mut expected = vec![
        (connected.as_str(), "pass"),
        (unauthorized.as_str(), "not-measured"),
        (offline[0].as_str(), "not-measured"),
        (offline[1].as_str(), "not-measured"),
    ];
    expected.sort_unstable();
    assert_eq!(listed, expected, "{matrix:?}");
    let reason = |key: &str| {
        matrix
            .devices
            .iter()
            .find(|d| d.serial == key)
            .and_then(|d| d.error.clone())
            .unwrap_or_default()
    };
    assert!(
        reason(&unauthorized).contains("lists the device as Unauthorized"),
        "{matrix:?}"
    );
    assert!(
        reason(&unauthorized).contains("accept this host's key"),
        "{matrix:?}"
    );
    assert!(
        reason(&offline[0]).contains("lists the device as Offline"),
        "{matrix:?}"
    );
    for key in [&unauthorized, &offline[0], &offline[1]] {
        assert!(said.contains(key.as_str()), "{key}: {said}");
    }

    // A lab that needs one phone passes on the one, and still names the three.
    let (code, said) = ended(
        audit(
            &stack,
            dir,
            &["--devices", "all"],
            ("lab-one", &playbooks),
            &["--need", "1"],
        )
        .spawn()
        .unwrap(),
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(
            "lab audit of 4 device(s): PASS — 1 passed, 0 failed, 0 unverified, 3 not measured ("
        ) && said.contains("(1 needed to pass, --need)"),
        "{said}"
    );
    let matrix: LabReport = read(dir.join("lab-one/lab.json"));
    assert_eq!(
        (matrix.need, matrix.devices.len()),
        (Some(1), 4),
        "{matrix:?}"
    );
    // Needing two of one passing phone is not a pass.
    let (code, said) = ended(
        audit(
            &stack,
            dir,
            &["--devices", "all"],
            ("lab-two", &playbooks),
            &["--need", "2"],
        )
        .spawn()
        .unwrap(),
    );
    assert_eq!(code, Some(3), "{said}");
}
