//! Fingerprints of plain and git workspaces, the stat cache, and the gate over real commands.

use std::fs;
use std::path::Path;
use std::time::Duration;

use super::*;
use crate::config::VerifyCommand;
use crate::config::VerifyKind;
use crate::process::Cancel;
use crate::schema::CommandStatus;
use crate::test_support::block_on;

fn print(dir: &Path) -> String {
    block_on(fingerprint(dir, &mut StatCache::default(), &Cancel::new())).unwrap()
}

fn command(name: &str, argv: &[&str]) -> VerifyCommand {
    VerifyCommand {
        name: name.into(),
        argv: argv.iter().map(|a| (*a).to_owned()).collect(),
        timeout: Duration::from_secs(10),
        kind: VerifyKind::Command,
        haps: Vec::new(),
    }
}

/// A `kind: hvigor` command: a script that prints `stdout` and `stderr` and exits `code`.
#[cfg(unix)]
fn hvigor(dir: &Path, stdout: &str, stderr: &str, code: i32, haps: &[&str]) -> VerifyCommand {
    let script = dir.join("hvigorw");
    fs::write(
        &script,
        format!("#!/bin/sh\nprintf '%s' '{stdout}'\nprintf '%s' '{stderr}' >&2\nexit {code}\n"),
    )
    .unwrap();
    let mut permissions = fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    fs::set_permissions(&script, permissions).unwrap();
    VerifyCommand {
        kind: VerifyKind::Hvigor,
        haps: haps.iter().map(Into::into).collect(),
        ..command("build", &["./hvigorw", "assembleHap"])
    }
}

#[test]
#[cfg(unix)] // hvigorw stands in as a shell script
fn hvigor_is_read_by_its_output_never_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("entry/src")).unwrap();
    fs::write(dir.path().join("entry/src/Index.ets"), "x").unwrap();
    let run = |command: VerifyCommand| {
        block_on(verify(
            dir.path(),
            &[command],
            0,
            &mut StatCache::default(),
            &Cancel::new(),
        ))
        .unwrap()
        .commands
        .remove(0)
    };
    // Exit 0 after a failed compile, the conclusion on stderr.
    let failed = run(hvigor(
        dir.path(),
        "> hvigor ERROR: Failed :entry:default@CompileArkTS...\n1 ERROR: 10505001 ArkTS Compiler Error\nError Message: Cannot find name x. At File: entry/src/Index.ets:3:7\n\n",
        "COMPILE RESULT:FAIL {ERROR:1 WARN:0}\n> hvigor ERROR: BUILD FAILED in 2 s\n",
        0,
        &[],
    ));
    assert_eq!(failed.status, CommandStatus::Fail);
    assert_eq!(
        failed.reason.as_deref(),
        Some("hvigor exited 0, but its output shows a failure")
    );
    assert_eq!(
        (
            failed.errors[0].file.as_deref(),
            failed.errors[0].line,
            failed.errors[0].message.as_str()
        ),
        (Some("entry/src/Index.ets"), Some(3), "Cannot find name x.")
    );
    // BUILD SUCCESSFUL without the compile task: inconclusive, never a pass.
    let vague = run(hvigor(
        dir.path(),
        "> hvigor BUILD SUCCESSFUL in 1 s\n",
        "",
        0,
        &[],
    ));
    assert_eq!(vague.status, CommandStatus::Inconclusive);
    // A build that compiled; its declared HAP missing, then older than the source, then fresh.
    let built = "> hvigor Finished :entry:default@CompileArkTS... after 2 s\n> hvigor BUILD SUCCESSFUL in 4 s\n";
    let hap = "entry/build/default/outputs/default/entry-default-signed.hap";
    let missing = run(hvigor(dir.path(), built, "", 0, &[hap]));
    assert_eq!(missing.status, CommandStatus::Inconclusive);
    assert!(
        missing.reason.as_deref().unwrap().contains("was not built"),
        "{missing:?}"
    );
    fs::create_dir_all(dir.path().join(hap).parent().unwrap()).unwrap();
    fs::write(dir.path().join(hap), "hap").unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(dir.path().join(hap))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let stale = run(hvigor(dir.path(), built, "", 0, &[hap]));
    assert_eq!(stale.status, CommandStatus::Inconclusive, "{stale:?}");
    fs::File::options()
        .write(true)
        .open(dir.path().join(hap))
        .unwrap()
        .set_modified(std::time::SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    let fresh = run(hvigor(dir.path(), built, "", 0, &[hap]));
    assert_eq!(fresh.status, CommandStatus::Pass, "{fresh:?}");
    // Its exit code does not make a pass a failure either way: a non-zero exit with BUILD
    // SUCCESSFUL and the compile task is what its output says.
    let odd = run(hvigor(dir.path(), built, "", 1, &[]));
    assert_eq!(odd.status, CommandStatus::Pass);
}

#[test]
fn a_plain_folder_fingerprint_follows_content_and_skips_build_output() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("entry/src")).unwrap();
    fs::write(dir.path().join("entry/src/Index.ets"), "space: 8").unwrap();
    let first = print(dir.path());
    assert_eq!(first, print(dir.path()), "stable");
    for ignored in ["build", "oh_modules", ".hvigor", ".dwpipe"] {
        fs::create_dir_all(dir.path().join(ignored)).unwrap();
        fs::write(dir.path().join(ignored).join("out.bin"), "noise").unwrap();
    }
    assert_eq!(first, print(dir.path()), "ignored folders do not count");
    fs::write(dir.path().join("entry/src/Index.ets"), "space: 12").unwrap();
    assert_ne!(first, print(dir.path()), "an edit changes it");
    assert!(matches!(
        block_on(fingerprint(
            &dir.path().join("nope"),
            &mut StatCache::default(),
            &Cancel::new()
        )),
        Err(FingerprintError::Missing(_))
    ));
}

#[test]
fn the_stat_cache_reads_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..20 {
        fs::write(dir.path().join(format!("f{i}.txt")), format!("file {i}")).unwrap();
    }
    let mut cache = StatCache::default();
    block_on(fingerprint(dir.path(), &mut cache, &Cancel::new())).unwrap();
    assert_eq!(cache.hashed(), 20);
    let saved = dir.path().join("cache.json");
    cache.save(&saved).unwrap();
    let mut warm = StatCache::load(&saved);
    fs::write(dir.path().join("f3.txt"), "changed, longer").unwrap();
    block_on(fingerprint(dir.path(), &mut warm, &Cancel::new())).unwrap();
    assert_eq!(
        warm.hashed(),
        2,
        "the changed file and the cache file itself"
    );
}

fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(["-c", "user.email=t@t", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
}

#[test]
#[cfg_attr(windows, ignore = "git is not on the Windows test host")]
fn a_git_fingerprint_sees_head_changes_and_untracked_files() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    fs::write(dir.path().join("a.ets"), "one").unwrap();
    let unborn = print(dir.path());
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-qm", "one"]);
    let clean = print(dir.path());
    assert_ne!(unborn, clean);
    fs::write(dir.path().join("a.ets"), "two").unwrap();
    let modified = print(dir.path());
    assert_ne!(clean, modified);
    fs::write(dir.path().join("a.ets"), "three").unwrap();
    assert_ne!(
        modified,
        print(dir.path()),
        "the content of a changed file counts, not just its name"
    );
    fs::write(dir.path().join("a.ets"), "one").unwrap();
    fs::write(dir.path().join("new.ets"), "untracked").unwrap();
    let untracked = print(dir.path());
    assert_ne!(clean, untracked);
    fs::remove_file(dir.path().join("new.ets")).unwrap();
    assert_eq!(clean, print(dir.path()), "back to the committed state");
    // An agent that deletes .git: the workspace is then fingerprinted as a plain folder.
    fs::remove_dir_all(dir.path().join(".git")).unwrap();
    assert_ne!(clean, print(dir.path()));
}

#[test]
#[cfg_attr(windows, ignore = "its commands are `grep` and `true`")]
fn the_gate_runs_commands_and_records_failures() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("Index.ets"), "List({ space: 8 })").unwrap();
    let commands = [
        command("spacing", &["grep", "-q", "space: 12", "Index.ets"]),
        command("true", &["true"]),
    ];
    let report = block_on(verify(
        dir.path(),
        &commands,
        0,
        &mut StatCache::default(),
        &Cancel::new(),
    ))
    .unwrap();
    assert_eq!(report.verdict, CommandStatus::Fail);
    assert_eq!(
        (report.commands[0].status, report.commands[0].exit_code),
        (CommandStatus::Fail, Some(1))
    );
    assert_eq!(report.commands[1].status, CommandStatus::Pass);
    assert!(report.failure_fingerprint().is_some());
    assert!(!report.rerun);
    fs::write(dir.path().join("Index.ets"), "List({ space: 12 })").unwrap();
    let fixed = block_on(verify(
        dir.path(),
        &commands,
        1,
        &mut StatCache::default(),
        &Cancel::new(),
    ))
    .unwrap();
    assert_eq!(fixed.verdict, CommandStatus::Pass);
    assert!(
        fixed.is_fresh(&print(dir.path())),
        "fresh for the workspace it ran on"
    );
    fs::write(
        dir.path().join("Index.ets"),
        "List({ space: 12 }) // edited",
    )
    .unwrap();
    assert!(
        !fixed.is_fresh(&print(dir.path())),
        "stale once the code changes"
    );
}

#[test]
#[cfg_attr(windows, ignore = "its command is an `sh` script")]
fn a_workspace_changing_during_verification_is_verified_again() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("counter"), "0").unwrap();
    // The command edits the workspace the first time only.
    let script = "if [ ! -f touched ]; then echo 1 > touched; fi";
    let report = block_on(verify(
        dir.path(),
        &[command("drift", &["sh", "-c", script])],
        0,
        &mut StatCache::default(),
        &Cancel::new(),
    ))
    .unwrap();
    assert!(report.rerun);
    assert_eq!(report.fingerprint_before, report.fingerprint_after);
}

#[test]
#[cfg_attr(windows, ignore = "its hanging command is `sleep`")]
fn missing_and_hanging_commands() {
    let dir = tempfile::tempdir().unwrap();
    let missing = block_on(verify(
        dir.path(),
        &[command("build", &["hvigorw-not-installed", "assembleHap"])],
        0,
        &mut StatCache::default(),
        &Cancel::new(),
    ));
    let error = missing.unwrap_err();
    assert_eq!(error.code(), "E_VERIFY_COMMAND_NOT_FOUND");
    let mut hang = command("hang", &["sleep", "30"]);
    hang.timeout = Duration::from_millis(200);
    let report = block_on(verify(
        dir.path(),
        &[hang],
        0,
        &mut StatCache::default(),
        &Cancel::new(),
    ))
    .unwrap();
    assert_eq!(report.commands[0].status, CommandStatus::Timeout);
}
