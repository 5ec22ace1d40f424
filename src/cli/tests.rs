//! Arguments as the user types them, and the edge's own rules.

use clap::CommandFactory;

use super::args::Cli;
use clap::Parser;

#[test]
fn the_clap_definition_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn accepts_and_rejects_command_lines() {
    let ok = [
        vec!["dwpipe", "freeze", "pack.yaml"],
        vec!["dwpipe", "freeze", "pack.json", "--out", "o", "--json"],
        vec!["dwpipe", "gate", "--pack", "l.json", "--audit", "a.json"],
        vec!["dwpipe", "init"],
        vec!["dwpipe", "init", "dir", "--force"],
        vec![
            "dwpipe",
            "devices",
            "--server",
            "10.0.0.5:8710",
            "--server",
            "[::1]:8710",
            "--json",
        ],
        vec![
            "dwpipe",
            "--hdc",
            "/opt/hdc",
            "capture",
            "--device",
            "FMR0223C13000649",
            "--out",
            "cap",
        ],
    ];
    for line in ok {
        assert!(Cli::try_parse_from(&line).is_ok(), "{line:?}");
    }
    let rejected = [
        vec!["dwpipe"],
        vec!["dwpipe", "freeze"],
        vec!["dwpipe", "gate", "--pack", "l.json"],
        vec!["dwpipe", "gate", "--audit", "a.json"],
        vec!["dwpipe", "freeze", "p.yaml", "--bogus"],
        vec!["dwpipe", "devices", "--server", "10.0.0.5"],
        vec!["dwpipe", "devices", "--server", "-t:1"],
        vec!["dwpipe", "devices", "--call-timeout", "soon"],
        vec!["dwpipe", "identify", "--out", "cap"],
    ];
    for line in rejected {
        assert!(Cli::try_parse_from(&line).is_err(), "{line:?}");
    }
}
