//! Exit codes, for every command (DESIGN §1). This is the only place they are defined.

/// Success; the verdict is pass.
pub const OK: i32 = 0;
/// The verdict is fail: a must criterion failed, the gate refused an audit.
pub const VERDICT_FAILED: i32 = 1;
/// Invalid input: usage, config, pack, capture or report that does not validate.
pub const INVALID_INPUT: i32 = 2;
/// Environment: a tool is missing, a device is unreachable, a file cannot be written.
pub const ENVIRONMENT: i32 = 3;
/// Interrupted by SIGINT or SIGTERM.
pub const INTERRUPTED: i32 = 130;
