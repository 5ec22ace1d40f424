//! dwpipe's integration tests, one binary: each module drives the real binary (or the
//! library) through one area. The shared helpers are in `support`.
//!
//! `portable` runs on every host. The others drive dwpipe with shell-scripted agents and
//! hdc wrappers, Unix modes and signals, or Linux-only servers: on Windows (the suite
//! cross-compiled and run under Wine by `.ci/run`) each is one ignored test named after it,
//! saying why.

mod support;

mod portable;

/// Modules that need a Unix host: compiled there; on Windows, one ignored test each.
macro_rules! unix_only {
    ($why:literal: $($module:ident)*) => {$(
        #[cfg(unix)]
        mod $module;
        #[cfg(not(unix))]
        #[test]
        #[ignore = $why]
        fn $module() {}
    )*};
}

unix_only! {
    "needs a Unix host: sh-scripted agents and hdc wrappers, Unix modes and signals, or a Linux-only server (real hdcd, PostgreSQL, xdevice, Chromium)":
    ab agent_runtime attest audit browser ci_examples cli compare deliver deveco device
    device_state device_tools evidence flows fuzz history history_guard history_pg hook hostile
    house inspect install lab lease newcomer points preflight readings readme real_hdc rebuilt
    records releases reports resume review schemas screens stability trust variance xdevice
}
