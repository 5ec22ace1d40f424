//! Tests of `crate::shell`.

use super::*;

#[test]
fn values_must_match_their_pattern() {
    assert!(ShellValue::bundle("com.example.notes").is_ok());
    for bad in [
        "com.x; rm -rf /",
        "com",
        "com.x$(id)",
        "com.x`id`",
        "com.x\ncom.y",
        "com.x'y",
        "",
    ] {
        assert!(ShellValue::bundle(bad).is_err(), "{bad:?}");
    }
    assert!(ShellValue::identifier("ability", "EntryAbility").is_ok());
    assert!(ShellValue::identifier("ability", "Entry Ability").is_err());
    assert!(ShellValue::remote_path("/data/local/tmp/trace-1.ftrace").is_ok());
    for bad in [
        "/data/local/tmp/../../etc/passwd",
        "/etc/passwd",
        "/data/local/tmp/a b",
        "/data/local/tmp/",
        "/data/local/tmp/x;rm",
    ] {
        assert!(ShellValue::remote_path(bad).is_err(), "{bad:?}");
    }
    assert!(ShellValue::serial("127.0.0.1:5555").is_ok());
    assert!(ShellValue::serial("FMR0223C13000649").is_ok());
    assert!(ShellValue::serial("-s x").is_err());
    assert_eq!(
        ShellValue::number("pid", " 4321\n").unwrap().as_str(),
        "4321"
    );
    for bad in ["", "12 34", "1;reboot", "-1", "4321\n4322"] {
        assert!(ShellValue::number("pid", bad).is_err(), "{bad:?}");
    }
}

#[test]
fn templates_take_only_validated_values() {
    let bundle = ShellValue::bundle("com.example.notes").unwrap();
    let ability = ShellValue::identifier("ability", "EntryAbility").unwrap();
    let command = ShellCommand::render(
        "aa start -b {bundle} -a {ability}",
        &[("bundle", &bundle), ("ability", &ability)],
    )
    .unwrap();
    assert_eq!(
        command.as_str(),
        "aa start -b com.example.notes -a EntryAbility"
    );
    assert!(ShellCommand::render("aa start -b {bundle}", &[]).is_err());
    assert!(ShellCommand::render("echo \"x\"", &[]).is_err());
    assert!(ShellCommand::render("echo {unclosed", &[]).is_err());
    assert!(ShellCommand::from_capture("hidumper -s RenderService -a 'composer fps'").is_ok());
}
