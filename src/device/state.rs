//! The one shell call that asks a device for its state (battery, power, thermal zones,
//! brightness, lock, screen), each service's reply behind a marker line. The audit reads the
//! replies (`audit::state`); a replay whose capture holds no such call answers it with
//! nothing, so every reading of it is named unread.

use std::sync::LazyLock;

use crate::shell::ShellCommand;

/// Each reading's marker and command, in the order they are asked.
pub const STATE_FIELDS: [(&str, &str); 6] = [
    ("battery", "hidumper -s BatteryService -a -i"),
    ("power", "hidumper -s PowerManagerService -a -s"),
    ("thermal", "hidumper -s ThermalService -a -t"),
    ("display", "hidumper -s 3308 -a -a"),
    ("lock", "hidumper -s 3704 -a -all"),
    ("screen", "hidumper -s RenderService -a screen"),
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
