//! The questions dwpipe asks every device itself, whatever the pack: its state (battery,
//! power, thermal zones, brightness, lock and the foreground user, screen, the displays and
//! the fold state), in one shell call
//! with each service's reply behind a marker line, and its clock before a trace begins. The
//! audit reads the replies (`audit::state`); a replay whose capture holds no state call answers
//! it with nothing, so every reading of it is named unread, and a capture recorded while dwpipe
//! asked either in an older form answers in that form (both are read).

use std::sync::LazyLock;

use crate::shell::ShellCommand;

/// Each reading's marker and command, in the order they are asked. `users` (AccountMgr's
/// accounts, SA 200) is no reading of its own: it names the foreground user, whose line of
/// ScreenlockService's decides the lock where it prints one a user (5.1 and later).
pub const STATE_FIELDS: [(&str, &str); 8] = [
    ("battery", "hidumper -s BatteryService -a -i"),
    ("power", "hidumper -s PowerManagerService -a -s"),
    ("thermal", "hidumper -s ThermalService -a -t"),
    ("display", "hidumper -s 3308 -a -a"),
    ("lock", "hidumper -s 3704 -a -all"),
    ("users", "hidumper -s 200 -a -os_account_infos"),
    ("screen", "hidumper -s RenderService -a screen"),
    ("displays", "hidumper -s DisplayManagerService -a -a"),
];

/// What precedes each reading's name in the reply.
pub const STATE_MARKER: &str = "__DWPIPE_STATE=";

/// The one shell command that reads the state.
pub fn state_command() -> ShellCommand {
    // Built once from constants: no value from outside enters it.
    static COMMAND: LazyLock<String> = LazyLock::new(|| {
        STATE_FIELDS
            .iter()
            .map(|(field, command)| format!("echo {STATE_MARKER}{field}; {command}"))
            .collect::<Vec<_>>()
            .join("; ")
    });
    ShellCommand::from_capture(&COMMAND).expect("the state command is valid")
}

/// The device's clock, read just before a trace begins: the reading `cat`'s own stat line,
/// whose field 22 is its start in ticks since boot (the boot clock hitrace stamps events with).
/// The hdc shell may read `/proc/self/stat` on every release; `/proc/uptime`, which dwpipe
/// read before, on none (device-fixtures/access.yaml).
pub fn clock_command() -> ShellCommand {
    ShellCommand::from_capture("cat /proc/self/stat").expect("the clock command is valid")
}

/// Whether `recorded`, a call a capture holds, is an older form of `asked`, one of the
/// questions above: the clock read from `/proc/uptime`, the state asked for fewer readings.
/// The recorded reply answers the question (the readers read both forms).
pub(crate) fn older_form(recorded: &ShellCommand, asked: &ShellCommand) -> bool {
    if *asked == clock_command() {
        return recorded.as_str() == "cat /proc/uptime";
    }
    *asked == state_command()
        && recorded != asked
        && recorded
            .as_str()
            .starts_with(&format!("echo {STATE_MARKER}{}; ", STATE_FIELDS[0].0))
}
