//! The config's sections validated, table-tested.

/// The bundled example's config.
const EXAMPLE_CONFIG: &str = include_str!("../../examples/notes/dwpipe.yaml");

use super::Store;
use super::*;
use std::path::Path;
use std::time::Duration;

#[test]
fn the_history_is_a_file_beside_the_config_or_a_server_without_a_password() {
    let config = Config::parse(Path::new("proj/dwpipe.yaml"), "history: lab/h.sqlite\n").unwrap();
    assert_eq!(
        config.history,
        Some(Store::Sqlite("proj/lab/h.sqlite".into()))
    );
    let config = Config::parse(
        Path::new("dwpipe.yaml"),
        "history: postgres://lab@db/dwpipe\n",
    )
    .unwrap();
    assert_eq!(
        config.history.unwrap().to_string(),
        "postgres://lab@db/dwpipe"
    );
    let refused = Config::parse(
        Path::new("dwpipe.yaml"),
        "history: postgres://lab:s3cret@db/dwpipe\n",
    )
    .unwrap_err();
    assert!(
        refused.message.contains("carries a password"),
        "{}",
        refused.message
    );
    assert!(!refused.message.contains("s3cret"), "{}", refused.message);
}

#[test]
fn the_example_config_parses() {
    let config = Config::parse(Path::new("proj/dwpipe.yaml"), EXAMPLE_CONFIG).unwrap();
    assert_eq!(config.workspace, Path::new("proj/project"));
    assert_eq!(config.agent.as_ref().unwrap().kind, AgentKind::Command);
    assert!(!config.verify.is_empty());
    assert_eq!(
        (config.repair.max_rounds, config.repair.max_same_failure),
        (4, 2)
    );
    assert_eq!(config.review.fail_mode, FailMode::Warn);
    let init = Config::parse(Path::new("dwpipe.yaml"), crate::template::INIT_CONFIG).unwrap();
    assert_eq!(init.agent.unwrap().kind, AgentKind::Deveco);
    assert_eq!(init.verify[0].argv[0], "hvigorw");
}

#[test]
fn mistakes_are_errors_with_their_path() {
    let rows = [
        (
            "agent:\n  kind: command\n  argv: [x]\n  timout: 5m\n",
            "agent.timout",
        ),
        ("verify:\n  - name: build\n    argv: []\n", "non-empty list"),
        (
            "verify:\n  - name: a\n    argv: [x]\n  - name: a\n    argv: [y]\n",
            "used twice",
        ),
        ("review:\n  fail-mode: strict\n", "not open, warn or closed"),
        ("agent:\n  kind: copilot\n", "not deveco, acp or command"),
        (
            "agent:\n  kind: deveco\n  transport: http\n",
            "agent.transport `http` is not run or acp",
        ),
        (
            "agent:\n  kind: acp\n  argv: [gemini, --experimental-acp]\n  transport: acp\n",
            "an acp agent is its argv",
        ),
        (
            "verify:\n  - name: a\n    argv: [x]\n    timeout: soon\n",
            "verify timeout",
        ),
        ("repair:\n  maxRounds: 3\n", "maxRounds"),
        (
            "agent:\n  kind: command\n  argv: [x]\n  program: opencode\n",
            "are for `kind: deveco`",
        ),
        (
            "agent:\n  kind: deveco\n  config-env: \"OPENCODE CONFIG\"\n",
            "not an environment variable's name",
        ),
        (
            "agent:\n  kind: deveco\n  config: [model]\n",
            "agent.config must be a mapping",
        ),
    ];
    let opencode = Config::parse(
        Path::new("dwpipe.yaml"),
        "agent:\n  kind: deveco\n  program: opencode\n  mode: build\n  config-env: OPENCODE_CONFIG_CONTENT\n  config: { model: scripted/scripted }\n",
    )
    .unwrap()
    .agent
    .unwrap();
    assert_eq!(
        (
            opencode.program.as_str(),
            opencode.mode.as_str(),
            opencode.config_env.as_str()
        ),
        ("opencode", "build", "OPENCODE_CONFIG_CONTENT")
    );
    assert_eq!(
        opencode.config.as_deref(),
        Some(r#"{"model":"scripted/scripted"}"#)
    );
    assert!(!opencode.speaks_acp(), "`run` unless asked");
    for (text, speaks) in [
        ("agent:\n  kind: deveco\n  transport: acp\n", true),
        (
            "agent:\n  kind: acp\n  argv: [gemini, --experimental-acp]\n",
            true,
        ),
        ("agent:\n  kind: command\n  argv: [x]\n", false),
    ] {
        let agent = Config::parse(Path::new("dwpipe.yaml"), text)
            .unwrap()
            .agent
            .unwrap();
        assert_eq!(agent.speaks_acp(), speaks, "{text}");
    }
    for (text, expected) in rows {
        let error = Config::parse(Path::new("dwpipe.yaml"), text).unwrap_err();
        assert_eq!(error.code, "E_CONFIG_INVALID");
        assert!(error.to_string().contains(expected), "{text}: {error}");
    }
    let defaults = Config::parse(
        Path::new("dwpipe.yaml"),
        "verify:\n  - name: t\n    argv: [true]\n",
    )
    .unwrap();
    assert_eq!(defaults.verify[0].timeout, Duration::from_secs(600));
    assert_eq!(defaults.review.max_rounds, 3);
}

#[test]
fn the_attestation_key_is_a_file_beside_the_config() {
    let config = Config::parse(
        Path::new("proj/dwpipe.yaml"),
        "attest:\n  key: keys/lab.pem\n",
    )
    .unwrap();
    assert_eq!(config.sign_key, Some("proj/keys/lab.pem".into()));
    assert_eq!(
        Config::parse(Path::new("dwpipe.yaml"), "{}\n")
            .unwrap()
            .sign_key,
        None
    );
    let refused = Config::parse(Path::new("dwpipe.yaml"), "attest:\n  kee: k.pem\n").unwrap_err();
    assert_eq!(refused.code, "E_CONFIG_INVALID");
    assert!(refused.message.contains("kee"), "{}", refused.message);
}
