//! Cancellation shared between the signal handler and every running child, and the registry
//! of the process groups still alive, so that a second signal can kill them all at once.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

use super::group::Group;

/// A cancellation signal: cloneable, observed by every [`super::run`] in flight.
#[derive(Clone, Debug)]
pub struct Cancel {
    inner: Arc<Inner>,
    /// The signal of the run a [`Cancel::child`] belongs to: it fires this one too.
    parent: Option<Arc<Inner>>,
}

#[derive(Debug)]
struct Inner {
    fired: watch::Sender<bool>,
    /// Process groups of children that have not been reaped yet, and whether the run was
    /// aborted (no more grace for anyone); shared by a run's children.
    groups: Arc<Mutex<Groups>>,
}

#[derive(Debug, Default)]
struct Groups {
    live: BTreeMap<u32, Group>,
    aborted: bool,
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
            inner: Arc::new(Inner {
                fired: watch::channel(false).0,
                groups: Arc::new(Mutex::new(Groups::default())),
            }),
            parent: None,
        }
    }

    /// A signal that fires with this one, or on its own (an agent stopped by its idle
    /// watchdog), sharing this one's registry of live groups and its abort.
    pub(crate) fn child(&self) -> Cancel {
        Cancel {
            inner: Arc::new(Inner {
                fired: watch::channel(false).0,
                groups: Arc::clone(&self.inner.groups),
            }),
            parent: Some(Arc::clone(&self.inner)),
        }
    }

    /// Fires the signal: every child is stopped (SIGTERM, grace, SIGKILL).
    /// A signal that does not fire with this one, sharing its registry of live groups and its
    /// abort: work that must still be done after a signal (putting the candidate build back
    /// on a device) runs on it, and a second signal still kills it.
    pub(crate) fn sheltered(&self) -> Cancel {
        Cancel {
            inner: Arc::new(Inner {
                fired: watch::channel(false).0,
                groups: Arc::clone(&self.inner.groups),
            }),
            parent: None,
        }
    }

    pub(crate) fn cancel(&self) {
        self.inner.fired.send_replace(true);
    }

    /// Fires the signal and kills every live child group now, without a grace period;
    /// children started later are killed as they start.
    pub(crate) fn abort(&self) {
        self.cancel();
        let mut groups = self.groups();
        groups.aborted = true;
        for group in groups.live.values() {
            group.kill();
        }
    }

    /// Whether the signal fired.
    pub(crate) fn is_cancelled(&self) -> bool {
        *self.inner.fired.borrow() || self.parent.as_ref().is_some_and(|p| *p.fired.borrow())
    }

    /// Whether a child's process group is still alive.
    pub(crate) fn has_live_children(&self) -> bool {
        !self.groups().live.is_empty()
    }

    /// Whether the run was aborted (a second signal).
    pub(crate) fn is_aborted(&self) -> bool {
        self.groups().aborted
    }

    /// Resolves once the signal fires.
    pub(crate) async fn cancelled(&self) {
        let mut own = self.inner.fired.subscribe();
        // `wait_for` checks the current value first, so a signal fired earlier is seen.
        let own = async move {
            let _ = own.wait_for(|fired| *fired).await;
        };
        match &self.parent {
            None => own.await,
            Some(parent) => {
                let mut theirs = parent.fired.subscribe();
                tokio::select! {
                    () = own => {}
                    _ = theirs.wait_for(|fired| *fired) => {}
                }
            }
        }
    }

    /// Registers a child's process group until the returned guard is dropped (after the child
    /// was reaped). A group started after an abort is killed at once.
    pub(super) fn track(&self, group: &Group) -> Tracked<'_> {
        let mut groups = self.groups();
        if groups.aborted {
            group.kill();
        }
        let id = group.id();
        groups.live.insert(id, group.clone());
        Tracked { cancel: self, id }
    }

    /// Live child groups (for tests).
    #[cfg(test)]
    pub(super) fn live(&self) -> Vec<u32> {
        self.groups().live.keys().copied().collect()
    }

    fn groups(&self) -> MutexGuard<'_, Groups> {
        // A set of integers cannot be left half-updated by a panic.
        self.inner
            .groups
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// A registered child group; dropping it forgets the group.
#[derive(Debug)]
pub(super) struct Tracked<'a> {
    cancel: &'a Cancel,
    id: u32,
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.cancel.groups().live.remove(&self.id);
    }
}
