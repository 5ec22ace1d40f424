//! The hook's vocabulary, shared by the harnesses' contracts, the decision and the session's
//! record: which harness runs the hook, and what the hook said at a stop.

use crate::words::words;

words! {
    /// The harness whose hook runs dwpipe.
    pub(crate) enum Harness {
        /// Claude Code's `Stop` hook.
        ClaudeCode = "claude-code",
        /// Codex's `Stop` hook.
        Codex = "codex",
        /// Cursor's `stop` hook.
        Cursor = "cursor",
        /// dwpipe's plugin for OpenCode and DevEco Code (`integrations/opencode/`).
        Opencode = "opencode",
    }
}

words! {
    /// What the hook said, as the session's record keeps it.
    pub(crate) enum Said {
        /// The gate passed: the agent may stop.
        Verified = "verified",
        /// Sent back with the repair brief.
        Repair = "repair",
        /// Rounds out under `warn`: sent back once, to say the change is unverified.
        Warned = "warned",
        /// Rounds out under `closed`: refused again, and said so.
        Refused = "refused",
        /// Let stop without being verified (`open`, or `warn` once it was said).
        AllowedUnverified = "allowed-unverified",
        /// The agent's loop ended otherwise than by finishing: not gated.
        NotGated = "not-gated",
    }
}

impl Said {
    /// Whether the agent was let stop (a new stop after it begins a new loop).
    pub(crate) fn lets_stop(self) -> bool {
        matches!(
            self,
            Said::Verified | Said::AllowedUnverified | Said::NotGated
        )
    }
}
