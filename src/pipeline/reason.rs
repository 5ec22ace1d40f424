//! Why a delivery ended (DESIGN §6): one terminal reason per run, the word `deliver.json`, the
//! ledger and the summary line say.

use crate::words::words;

words! {
    /// Why a delivery ended.
    pub(crate) enum TerminalReason {
        /// Every verification command passed after a change, and the audit passed.
        Verified = "verified",
        /// The agent changed nothing.
        NoChanges = "no_changes",
        /// Verification failed and no repair is left.
        VerificationFailed = "verification_failed",
        /// The audit failed and no repair is left.
        AuditFailed = "audit_failed",
        /// The same failure came back more often than allowed.
        RepeatedFailure = "repeated_failure",
        /// The repair rounds ran out.
        BudgetExhausted = "budget_exhausted",
        /// The pre-review blocked dispatch.
        ReviewBlocked = "review_blocked",
        /// A signal (SIGINT, SIGTERM) stopped it.
        Interrupted = "interrupted",
        /// A tool, a device or the machine failed.
        EnvironmentError = "environment_error",
        /// The run's own records (its lock, spec, `run.json`, ledger) changed under it while
        /// the agent or a verification command ran: nothing it would say can be trusted.
        RecordsTampered = "records_tampered",
        /// DevEco Code's run did not finish (killed, stalled, ended on `tool-calls`, a
        /// permission rejected, a session error) and it changed nothing.
        AgentIncomplete = "agent_incomplete",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_the_words_deliver_json_has_always_said() {
        assert_eq!(
            serde_json::to_string(&TerminalReason::RepeatedFailure).unwrap(),
            "\"repeated_failure\""
        );
        assert_eq!(
            TerminalReason::WORDS,
            [
                "verified",
                "no_changes",
                "verification_failed",
                "audit_failed",
                "repeated_failure",
                "budget_exhausted",
                "review_blocked",
                "interrupted",
                "environment_error",
                "records_tampered",
                "agent_incomplete"
            ]
        );
    }
}
