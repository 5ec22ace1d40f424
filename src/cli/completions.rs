//! `dwpipe completions SHELL`'s arguments (the script comes from the whole command line's
//! definitions: `args.rs` writes it).

/// `dwpipe completions`.
#[derive(Debug, clap::Args)]
pub(super) struct CompletionsArgs {
    /// The shell.
    pub(super) shell: clap_complete::Shell,
}
