//! `dwpipe attest` and `dwpipe verify-attestation` through the real binary: an audit of a live
//! (fake-hdc) device attested with Ed25519 and ECDSA P-256 keys and verified, down to its
//! evidence; then every way an attestation can lie is refused (a doctored payload, another key,
//! another subject, a replay not asked for, a failing audit attested PASSED by hand), and
//! in-toto's reference library (securesystemslib) checks the same file without dwpipe.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::support::attestation::{key, payloads, set_mode, sign_by_hand};
use crate::support::{Ran, Test, copy_tree, repo};

const SERIAL: &str = "FMR0223C13000649";

/// The example pack frozen (with `failing`, its cold start held to 100 ms, which the phone
/// misses), and the notes phone audited live through fake-hdc into `live/`: made once each,
/// copied for each test.
fn live_audit(failing: bool) -> tempfile::TempDir {
    static PASSING: OnceLock<PathBuf> = OnceLock::new();
    static FAILING: OnceLock<PathBuf> = OnceLock::new();
    let cell = if failing { &FAILING } else { &PASSING };
    let made = cell.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let pack = fs::read_to_string(repo().join("examples/notes/pack.yaml")).unwrap();
        let pack = if failing {
            pack.replacen("expected: 800", "expected: 100", 1)
        } else {
            pack
        };
        fs::write(dir.join("pack.yaml"), pack).unwrap();
        Test::new(&dir).args(["freeze", "pack.yaml"]).run();
        crate::lab::lab_audit(
            &dir,
            "hdc",
            &notes_phone(),
            &["--device", SERIAL, "--out", "live"],
        )
        .status(if failing { 1 } else { 0 })
        .run();
        dir
    });
    let dir = tempfile::tempdir().unwrap();
    copy_tree(made, dir.path());
    fs::write(dir.path().join("app.hap"), b"PK\x03\x04 the app's HAP").unwrap();
    fs::write(dir.path().join("other.hap"), b"PK\x03\x04 another build").unwrap();
    dir
}

/// The example's phone, served by fake-hdc from its recording.
fn notes_phone() -> [String; 1] {
    [repo()
        .join("device-fixtures/notes-pass")
        .display()
        .to_string()]
}

/// `dwpipe attest live/audit-1.json --key KEY --subject app.hap`, plus `extra`.
fn attest(dir: &Path, key: &Path, extra: &[&str]) -> Test {
    Test::new(dir)
        .args([
            "attest",
            "live/audit-1.json",
            "--key",
            key.to_str().unwrap(),
        ])
        .args(["--subject", "app.hap"])
        .args(extra)
}

/// `dwpipe verify-attestation FILE --key PUB`, plus `extra`.
fn verify(dir: &Path, file: &str, public: &Path, extra: &[&str]) -> Test {
    Test::new(dir)
        .args([
            "verify-attestation",
            file,
            "--key",
            public.to_str().unwrap(),
        ])
        .args(extra)
}

/// The statements of an attestation file, decoded.
fn statements(path: &Path) -> Vec<Value> {
    payloads(path)
        .iter()
        .map(|p| serde_json::from_slice(p).unwrap())
        .collect()
}

fn sha256(bytes: &[u8]) -> String {
    dwpipe::hash::sha256_hex(bytes)
}

#[test]
fn a_live_audit_is_attested_and_verified_down_to_its_evidence() {
    let dir = live_audit(false);
    for ecdsa in [false, true] {
        let name = if ecdsa { "p256" } else { "ed25519" };
        let (private, public) = key(dir.path(), name, ecdsa);
        let out = format!("{name}.intoto.jsonl");
        let Ran { stdout, .. } = attest(dir.path(), &private, &["--out", &out, "--json"]).run();
        let written: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(written["result"], "PASSED", "{stdout}");
        assert_eq!(written["subject-named-by"], "user", "{stdout}");
        let Ran { stdout, .. } = verify(dir.path(), &out, &public, &[])
            .args([
                "--subject",
                "app.hap",
                "--pack",
                "pack.lock.json",
                "--evidence",
                "live",
            ])
            .args(["--require-passed"])
            .stdout_contains("VERIFIED  ")
            .stdout_contains("2 of 2 signature(s)")
            .stdout_contains("rebuilt from its evidence")
            .run();
        assert!(
            stdout.contains("says PASSED of app.hap (device)"),
            "{stdout}"
        );
        let lines = statements(&dir.path().join(&out));
        assert_eq!(
            lines[0]["predicateType"],
            "https://slsa.dev/verification_summary/v1"
        );
        assert_eq!(lines[1]["predicateType"], "https://dwpipe.dev/verdict/v1");
        let vsa = &lines[0]["predicate"];
        let lock = fs::read(dir.path().join("pack.lock.json")).unwrap();
        let hap = sha256(b"PK\x03\x04 the app's HAP");
        assert_eq!(lines[0]["subject"][0]["digest"]["sha256"], hap.as_str());
        assert_eq!(vsa["verificationResult"], "PASSED");
        assert_eq!(
            vsa["policy"]["digest"]["sha256"],
            lines[1]["predicate"]["audit"]["packSha256"],
        );
        assert_ne!(sha256(&lock), "", "the lock is read");
        let verdict_payload = payloads(&dir.path().join(&out)).remove(1);
        assert_eq!(
            vsa["inputAttestations"][1]["digest"]["sha256"],
            sha256(&verdict_payload).as_str(),
            "the VSA names the verdict statement by its payload's digest"
        );
        let criteria = lines[1]["predicate"]["criteria"].as_array().unwrap();
        assert!(criteria.iter().all(|c| c["result"] == "pass"));
        assert!(
            criteria
                .iter()
                .any(|c| !c["evidence"].as_array().unwrap().is_empty()),
            "evidence digests are kept"
        );
    }
}

#[test]
fn a_doctored_payload_another_key_and_another_subject_are_refused() {
    let dir = live_audit(false);
    let (private, public) = key(dir.path(), "ours", false);
    let (_, theirs) = key(dir.path(), "theirs", true);
    attest(dir.path(), &private, &["--out", "a.intoto.jsonl"]).run();
    // Another key.
    verify(dir.path(), "a.intoto.jsonl", &theirs, &[])
        .status(1)
        .stdout_contains("was not made by this key over this payload")
        .stdout_contains("NOT VERIFIED")
        .run();
    // Another subject.
    verify(
        dir.path(),
        "a.intoto.jsonl",
        &public,
        &["--subject", "other.hap"],
    )
    .status(1)
    .stdout_contains("`other.hap`")
    .stdout_contains("is not a subject of this attestation")
    .run();
    // A doctored payload: one criterion's reading changed, the signature kept.
    let path = dir.path().join("a.intoto.jsonl");
    let text = fs::read_to_string(&path).unwrap();
    let mut envelopes: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut statement = statements(&path)[1].clone();
    statement["predicate"]["criteria"][0]["measured"] = "fail".into();
    envelopes[1]["payload"] = STANDARD
        .encode(serde_json::to_vec(&statement).unwrap())
        .into();
    let doctored: Vec<String> = envelopes.iter().map(Value::to_string).collect();
    fs::write(
        dir.path().join("b.intoto.jsonl"),
        doctored.join("\n") + "\n",
    )
    .unwrap();
    verify(dir.path(), "b.intoto.jsonl", &public, &[])
        .status(1)
        .stdout_contains("line 2: signature 1 was not made by this key")
        .stdout_contains("does not name this verdict statement")
        .run();
    // Not an attestation at all, and a key file others can read.
    fs::write(dir.path().join("c.intoto.jsonl"), "{\"not\": \"dsse\"}\n").unwrap();
    verify(dir.path(), "c.intoto.jsonl", &public, &[])
        .status(2)
        .stderr_contains("E_ATTESTATION_INVALID")
        .run();
    set_mode(&private, 0o644);
    attest(dir.path(), &private, &[])
        .status(2)
        .stderr_contains("E_KEY_EXPOSED")
        .stderr_contains("chmod 600")
        .run();
    set_mode(&private, 0o600);
    attest(dir.path(), &public, &[])
        .status(2)
        .stderr_contains("E_KEY_UNSUPPORTED")
        .stderr_contains("a public key (`BEGIN PUBLIC KEY`), not a private one")
        .run();
}

#[test]
fn an_audit_that_does_not_verify_is_not_attested() {
    let dir = live_audit(false);
    let (private, _) = key(dir.path(), "k", false);
    let path = dir.path().join("live/audit-1.json");
    let mut report: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    report["checks"][0]["actual"] = "a reading nobody measured".into();
    fs::write(&path, serde_json::to_string_pretty(&report).unwrap()).unwrap();
    attest(dir.path(), &private, &[])
        .status(2)
        .stderr_contains("E_ATTEST_UNVERIFIED")
        .stderr_contains("does not hold up against its evidence")
        .run();
    assert!(
        !dir.path().join("live/audit-1.intoto.jsonl").exists(),
        "nothing is written"
    );
}

#[test]
fn a_replay_is_never_a_release_pass() {
    let dir = crate::support::frozen_example();
    let capture = repo().join("device-fixtures/notes-pass");
    crate::support::replay_audit_into(dir.path(), &capture, "live").run();
    fs::write(dir.path().join("app.hap"), b"PK\x03\x04 the app's HAP").unwrap();
    let (private, public) = key(dir.path(), "k", false);
    attest(dir.path(), &private, &[])
        .status(2)
        .stderr_contains("E_ATTEST_REPLAY")
        .stderr_contains("--allow-replay")
        .run();
    attest(dir.path(), &private, &["--allow-replay"])
        .status(1)
        .stdout_contains("FAILED")
        .stdout_contains("a replay of a recorded capture")
        .run();
    let file = "live/audit-1.intoto.jsonl";
    let lines = statements(&dir.path().join(file));
    assert_eq!(lines[0]["predicate"]["verificationResult"], "FAILED");
    assert_eq!(lines[1]["predicate"]["source"]["kind"], "replay");
    assert_eq!(lines[1]["predicate"]["source"]["capture"], "notes-pass");
    assert_eq!(
        lines[1]["predicate"]["verdict"], "pass",
        "the audit itself passed"
    );
    let text = fs::read_to_string(dir.path().join(file)).unwrap();
    assert!(
        !text.contains(dir.path().to_str().unwrap())
            && !statements(&dir.path().join(file))
                .iter()
                .any(|s| s.to_string().contains(capture.to_str().unwrap())),
        "no host path in what is published"
    );
    verify(dir.path(), file, &public, &[])
        .status(1)
        .stdout_contains("a replay of the capture `notes-pass`")
        .run();
    verify(
        dir.path(),
        file,
        &public,
        &["--allow-replay", "--evidence", "live"],
    )
    .stdout_contains("says FAILED")
    .run();
    verify(
        dir.path(),
        file,
        &public,
        &["--allow-replay", "--require-passed"],
    )
    .status(1)
    .stdout_contains("--require-passed asks for PASSED")
    .run();
}

#[test]
fn a_failing_audit_attested_passed_by_hand_is_refused() {
    let dir = live_audit(true);
    let (private, public) = key(dir.path(), "k", false);
    attest(dir.path(), &private, &[])
        .status(1)
        .stdout_contains("FAILED")
        .run();
    let file = dir.path().join("live/audit-1.intoto.jsonl");
    let honest = statements(&file);
    assert_eq!(honest[1]["predicate"]["verdict"], "fail");
    // The VSA alone says PASSED, signed with the right key: its own verdict statement says no.
    let mut lines = honest.clone();
    lines[0]["predicate"]["verificationResult"] = "PASSED".into();
    sign_by_hand(&dir.path().join("vsa.intoto.jsonl"), &lines, &private);
    verify(dir.path(), "vsa.intoto.jsonl", &public, &[])
        .status(1)
        .stdout_contains("the VSA says PASSED, but its verdict statement says fail")
        .run();
    // Both statements made to pass, consistently: only the evidence tells.
    let mut lines = honest;
    let verdict = &mut lines[1]["predicate"];
    verdict["release"] = "PASSED".into();
    verdict["notPassed"] = Value::Array(Vec::new());
    verdict["verdict"] = "pass".into();
    let fail = verdict["audit"]["fail"].as_u64().unwrap();
    verdict["audit"]["pass"] = (verdict["audit"]["pass"].as_u64().unwrap() + fail).into();
    verdict["audit"]["fail"] = 0.into();
    for criterion in verdict["criteria"].as_array_mut().unwrap() {
        criterion["result"] = "pass".into();
        criterion["why"] = Value::Null;
    }
    let digest = sha256(&serde_json::to_vec(&lines[1]).unwrap());
    lines[0]["predicate"]["verificationResult"] = "PASSED".into();
    lines[0]["predicate"]["inputAttestations"][1]["digest"]["sha256"] = digest.into();
    sign_by_hand(&dir.path().join("both.intoto.jsonl"), &lines, &private);
    verify(dir.path(), "both.intoto.jsonl", &public, &[])
        .stdout_contains("VERIFIED  ")
        .run();
    verify(
        dir.path(),
        "both.intoto.jsonl",
        &public,
        &["--evidence", "live"],
    )
    .status(1)
    .stdout_contains("DIFFERENT  ")
    .stdout_contains("verificationResult")
    .stdout_contains("NOT VERIFIED")
    .run();
}

#[test]
fn an_ab_session_attests_each_arm_about_the_build_it_installed() {
    let dir = crate::support::frozen_fixture("packs/cold-start.yaml");
    let (private, public) = key(dir.path(), "k", true);
    let phone = repo()
        .join("device-fixtures/ab-phone-1")
        .display()
        .to_string();
    let hdc = crate::support::fake_hdc(dir.path(), "hdc", &[phone], "");
    let Ran { stderr, .. } = Test::new(dir.path())
        .args(crate::ab::ab_args(
            dir.path(),
            &hdc,
            &["--device", "AB0PHONE01"],
            "16",
        ))
        .args(["--sign-key", private.to_str().unwrap()])
        .run();
    for (arm, version) in [("baseline", "1.0"), ("candidate", "1.1")] {
        let file = format!("out/{arm}/audit-1.intoto.jsonl");
        assert!(
            stderr.contains(&format!("attested out/{arm}/audit-1.json: PASSED")),
            "{stderr}"
        );
        let lines = statements(&dir.path().join(&file));
        let hap = crate::ab::hap(version);
        assert_eq!(
            lines[0]["subject"][0]["name"],
            format!("notes-{version}.hap")
        );
        assert_eq!(lines[1]["predicate"]["subjectNamedBy"], "installed");
        verify(
            dir.path(),
            &file,
            &public,
            &["--subject", &hap, "--evidence"],
        )
        .args([format!("out/{arm}")])
        .stdout_contains("VERIFIED  ")
        .run();
        // The other arm's build is not what this attestation is about, and `attest` refuses
        // to name it.
        let other = crate::ab::hap(if version == "1.0" { "1.1" } else { "1.0" });
        verify(dir.path(), &file, &public, &["--subject", &other])
            .status(1)
            .stdout_contains("is not a subject of this attestation")
            .run();
        Test::new(dir.path())
            .args(["attest", &format!("out/{arm}/audit-1.json"), "--key"])
            .args([
                private.to_str().unwrap(),
                "--subject",
                &other,
                "--out",
                "x.jsonl",
            ])
            .status(2)
            .stderr_contains("E_ATTEST_SUBJECT")
            .stderr_contains("is not a HAP this audit installed")
            .run();
    }
    assert!(
        !dir.path().join("out/warm-up").read_dir().unwrap().any(|e| e
            .unwrap()
            .path()
            .join("audit-1.intoto.jsonl")
            .exists())
    );
}

#[test]
fn a_lab_audit_that_installs_nothing_must_name_its_hap_before_it_starts() {
    let dir = live_audit(false);
    let (private, _) = key(dir.path(), "k", false);
    let args = [
        "--device",
        SERIAL,
        "--out",
        "again",
        "--sign-key",
        private.to_str().unwrap(),
    ];
    crate::lab::lab_audit(dir.path(), "hdc", &notes_phone(), &args)
        .status(2)
        .stderr_contains("E_ATTEST_SUBJECT")
        .stderr_contains("--subject")
        .run();
    assert!(
        !dir.path().join("again/audit-1.json").exists(),
        "nothing ran"
    );
}

#[test]
fn in_totos_reference_library_verifies_the_envelope() {
    let Some(python) = crate::support::attestation::attest_python("securesystemslib check") else {
        return;
    };
    let dir = live_audit(false);
    for ecdsa in [false, true] {
        let (private, public) = key(dir.path(), "k", ecdsa);
        attest(dir.path(), &private, &["--out", "a.intoto.jsonl"]).run();
        let script = repo().join("integrations/attest/verify.py");
        let schema = repo().join("docs/schema/dwpipe-verdict-v1.schema.json");
        let run = |public: &Path| {
            std::process::Command::new(&python)
                .args([&script, public, &dir.path().join("a.intoto.jsonl"), &schema])
                .output()
                .unwrap()
        };
        let out = run(&public);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["result"], "PASSED");
        assert_eq!(lines[1]["predicateType"], "https://dwpipe.dev/verdict/v1");
        let first = fs::read_to_string(dir.path().join("a.intoto.jsonl")).unwrap();
        let ours: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
        assert_eq!(
            lines[0]["keyid"], ours["signatures"][0]["keyid"],
            "the same key id"
        );
        // Another key: securesystemslib refuses too.
        let (_, other) = key(dir.path(), "other", !ecdsa);
        assert!(!run(&other).status.success());
    }
}
