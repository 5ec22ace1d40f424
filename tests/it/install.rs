//! The audit measures the build that was verified: after verification passes, `deliver`
//! installs the HAPs the verification commands declare on the device (`install -r`, judged by
//! hdc's text), records their SHA-256 in the audit and `deliver.json`, and only then audits.
//! Through fake-hdc: the install succeeds, fails with the bundle manager's real failure text,
//! or the device vanishes mid-install.

use dwpipe::schema::{DeliverReport, TerminalReason};
use std::fs;
use std::path::Path;

use crate::support::delivery::{FIXING_AGENT, project, repo, run_dir};
use crate::support::{EXIT_CODES, Ran, Test, fake_hdc};

/// Verification that checks the spacing and "builds" the HAP.
const BUILD: &str = "  - name: build\n    argv: [sh, -c, \"grep -q 'List({ space: 12 })' entry/src/main/ets/pages/Index.ets && mkdir -p entry/build && echo hap > entry/build/entry-default-signed.hap\"]\n    hap: entry/build/entry-default-signed.hap\n";

/// The passing capture with `install` (the exchange's YAML) recorded first.
fn capture_installing(root: &Path, install: &str) -> String {
    let capture = root.join("phone");
    crate::support::copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml"))
        .unwrap()
        .replacen("exchanges:\n", &format!("exchanges:\n{install}"), 1);
    fs::write(capture.join("transcript.yaml"), transcript).unwrap();
    capture.display().to_string()
}

/// `deliver --json --device FMR0223C13000649` through fake-hdc serving `capture`.
#[track_caller]
fn deliver_on(dir: &Path, capture: &str) -> (i32, DeliverReport) {
    let hdc = fake_hdc(dir, "hdc", &[capture.to_owned()], "");
    let playbooks = crate::support::no_sleeps(dir);
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = Test::new(dir)
        .args([
            "--hdc",
            hdc.to_str().unwrap(),
            "deliver",
            "--pack",
            "pack.yaml",
            "--json",
            "--device",
            "FMR0223C13000649",
            "--playbooks",
            &playbooks,
        ])
        .status_in(EXIT_CODES)
        .run();
    let summary: DeliverReport =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    (code, summary)
}

#[test]
fn the_verified_hap_is_installed_and_recorded_before_the_audit() {
    let dir = project(FIXING_AGENT, BUILD, "notes-pass", "");
    let capture = capture_installing(dir.path(), "  - install: entry-default-signed.hap\n");
    let (code, summary) = deliver_on(dir.path(), &capture);
    assert_eq!(code, 0, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::Verified);
    let sha = dwpipe::hash::sha256_hex(b"hap\n");
    let installed: Vec<(&str, &str)> = summary
        .installed
        .iter()
        .map(|hap| (hap.path.as_str(), hap.sha256.as_str()))
        .collect();
    assert_eq!(
        installed,
        [("entry/build/entry-default-signed.hap", sha.as_str())]
    );
    let run = run_dir(&summary, dir.path());
    let audit: dwpipe::schema::AuditReport =
        crate::support::read(run.join("audit-round-1/audit-1.json"));
    assert_eq!(audit.inputs.unwrap().installed[0].sha256, sha);
}

#[test]
fn a_delivery_with_a_key_attests_the_hap_it_installed() {
    let dir = project(FIXING_AGENT, BUILD, "notes-pass", "");
    let capture = capture_installing(dir.path(), "  - install: entry-default-signed.hap\n");
    let key = crate::support::attestation::key(dir.path(), "signer", false);
    let config = fs::read_to_string(dir.path().join("dwpipe.yaml")).unwrap();
    fs::write(
        dir.path().join("dwpipe.yaml"),
        format!("{config}\nattest:\n  key: signer.pem\n"),
    )
    .unwrap();
    let (code, summary) = deliver_on(dir.path(), &capture);
    assert_eq!(code, 0, "{summary:?}");
    let attestation = "audit-round-1/audit-1.intoto.jsonl";
    assert!(
        summary.reports.iter().any(|r| r == attestation),
        "{summary:?}"
    );
    let run = run_dir(&summary, dir.path());
    let page = fs::read_to_string(run.join("deliver.html")).unwrap();
    assert!(
        page.contains(&format!("<a href=\"{attestation}\">")),
        "{page}"
    );
    let hap = dir
        .path()
        .join("project/entry/build/entry-default-signed.hap");
    let file = run.join(attestation);
    Test::new(dir.path())
        .args(["verify-attestation", file.to_str().unwrap(), "--key"])
        .args([key.1.to_str().unwrap(), "--subject", hap.to_str().unwrap()])
        .args([
            "--evidence",
            run.join("audit-round-1").to_str().unwrap(),
            "--require-passed",
        ])
        .stdout_contains("VERIFIED  ")
        .stdout_contains("says PASSED of entry-default-signed.hap (device)")
        .run();
}

#[test]
fn a_key_others_can_read_is_refused_before_the_delivery_starts() {
    let dir = project(FIXING_AGENT, BUILD, "notes-pass", "");
    let (private, _) = crate::support::attestation::key(dir.path(), "signer", false);
    let mut permissions = fs::metadata(&private).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o640);
    fs::set_permissions(&private, permissions).unwrap();
    Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml", "--sign-key", "signer.pem"])
        .status(2)
        .stderr_contains("E_KEY_EXPOSED")
        .stderr_contains("chmod 600 signer.pem")
        .run();
    assert!(
        !dir.path().join(".dwpipe/runs").exists(),
        "no run was begun"
    );
}

#[test]
fn a_refused_install_is_reported_with_the_fix() {
    let dir = project(FIXING_AGENT, BUILD, "notes-pass", "");
    let refused = "  - install: entry-default-signed.hap\n    reply: \"[Info]App install path:/data/entry-default-signed.hap, queuesize:0, msg:error: failed to install bundle. code:9568332 error: install sign info inconsistent.\\r\\nAppMod finish\\r\\n\"\n";
    let capture = capture_installing(dir.path(), refused);
    let (code, summary) = deliver_on(dir.path(), &capture);
    assert_eq!(code, 3, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::EnvironmentError);
    let detail = summary.detail.as_deref().unwrap();
    assert!(detail.contains("could not be installed"), "{detail}");
    assert!(detail.contains("9568332"), "{detail}");
    assert!(detail.contains("signed by another certificate"), "{detail}");
    let run = run_dir(&summary, dir.path());
    assert!(
        !run.join("audit-round-1/audit-1.json").exists(),
        "nothing was audited"
    );
}

#[test]
fn a_device_that_vanishes_mid_install_is_an_environment_error() {
    let dir = project(FIXING_AGENT, BUILD, "notes-pass", "");
    let capture = capture_installing(
        dir.path(),
        "  - install: entry-default-signed.hap\n    fault: vanish\n",
    );
    let (code, summary) = deliver_on(dir.path(), &capture);
    assert_eq!(code, 3, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::EnvironmentError);
    assert!(
        summary.detail.as_deref().unwrap().contains("E_DEVICE"),
        "{summary:?}"
    );
}

#[test]
fn without_a_declared_hap_the_summary_says_nothing_was_installed() {
    let dir = project(
        FIXING_AGENT,
        crate::support::delivery::SPACING,
        "notes-pass",
        "",
    );
    let capture = capture_installing(dir.path(), "");
    let (code, summary) = deliver_on(dir.path(), &capture);
    assert_eq!(code, 0, "{summary:?}");
    assert!(
        summary
            .not_installed
            .as_deref()
            .unwrap()
            .contains("the app on the device was not installed by this run"),
        "{summary:?}"
    );
}

/// An install is a success only when the bundle manager said so and nothing said otherwise:
/// a failure line before the success line, a failure after it, and an uninstall's success are
/// each an install that failed.
#[test]
fn an_install_is_judged_by_every_line_of_the_reply() {
    let replies = [
        "[Fail] install failed: insufficient storage\\r\\n[Info]App install path:/data/a.hap, queuesize:0, msg:install bundle successfully.\\r\\nAppMod finish\\r\\n",
        "[Info]App install path:/data/a.hap, queuesize:0, msg:install bundle successfully.\\r\\nerror: failed to install bundle. code:9568329\\r\\nAppMod finish\\r\\n",
        "[Info]App uninstall path:, queuesize:0, msg:uninstall bundle successfully.\\r\\nAppMod finish\\r\\n",
    ];
    for reply in replies {
        let dir = project(FIXING_AGENT, BUILD, "notes-pass", "");
        let install = format!("  - install: entry-default-signed.hap\n    reply: \"{reply}\"\n");
        let capture = capture_installing(dir.path(), &install);
        let (code, summary) = deliver_on(dir.path(), &capture);
        assert_eq!(code, 3, "{reply}: {summary:?}");
        assert_eq!(summary.terminal_reason, TerminalReason::EnvironmentError);
        let detail = summary.detail.as_deref().unwrap();
        assert!(detail.contains("could not be installed"), "{detail}");
        let run = run_dir(&summary, dir.path());
        assert!(!run.join("audit-round-1/audit-1.json").exists(), "{reply}");
    }
}

/// A declared HAP is the file it resolves to: a symlink the build left pointing outside the
/// workspace is refused, named, before anything is installed.
#[test]
fn a_declared_hap_that_resolves_outside_the_workspace_is_refused() {
    let outside = "  - name: build\n    argv: [sh, -c, \"grep -q 'List({ space: 12 })' entry/src/main/ets/pages/Index.ets && mkdir -p entry/build && echo other > ../elsewhere.hap && ln -sf ../../../elsewhere.hap entry/build/entry-default-signed.hap\"]\n    hap: entry/build/entry-default-signed.hap\n";
    let dir = project(FIXING_AGENT, outside, "notes-pass", "");
    let capture = capture_installing(dir.path(), "  - install: entry-default-signed.hap\n");
    let (code, summary) = deliver_on(dir.path(), &capture);
    assert_eq!(code, 3, "{summary:?}");
    let detail = summary.detail.as_deref().unwrap();
    assert!(
        detail.contains("E_DELIVER_NO_HAP") && detail.contains("outside the workspace"),
        "{detail}"
    );
}
