//! Cancellation shared between the Ctrl-C handler and every running child.

use tokio::sync::watch;

/// A cancellation signal: cloneable, observed by every [`super::run`] in flight.
#[derive(Clone, Debug)]
pub struct Cancel {
    sender: std::sync::Arc<watch::Sender<bool>>,
}

impl Default for Cancel {
    fn default() -> Self {
        Cancel::new()
    }
}

impl Cancel {
    /// A signal that has not fired.
    pub fn new() -> Cancel {
        Cancel {
            sender: std::sync::Arc::new(watch::channel(false).0),
        }
    }

    /// Fires the signal: every child is stopped (SIGTERM, grace, SIGKILL).
    pub fn cancel(&self) {
        self.sender.send_replace(true);
    }

    /// Whether the signal fired.
    pub fn is_cancelled(&self) -> bool {
        *self.sender.borrow()
    }

    /// Resolves once the signal fires.
    pub async fn cancelled(&self) {
        let mut receiver = self.sender.subscribe();
        // `wait_for` checks the current value first, so a signal fired earlier is seen.
        let _ = receiver.wait_for(|fired| *fired).await;
    }
}
