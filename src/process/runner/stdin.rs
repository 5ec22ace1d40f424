//! What a child reads on its standard input: nothing, fixed bytes, or a feed the caller writes to
//! while it runs (a queue the runner drains into the pipe, closed when the caller says).

use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// The reading end of a conversation on a child's stdin: taken by the first run of the spec.
#[derive(Clone)]
pub(crate) struct StdinFeed(pub(super) Arc<Mutex<Option<Fed>>>);
/// What a feed's child reads: the messages, and the count of their bytes not yet written.
pub(super) type Fed = (mpsc::UnboundedReceiver<Vec<u8>>, Queued);
/// Bytes sent and not yet written to the child.
pub(super) type Queued = Arc<std::sync::atomic::AtomicUsize>;
/// The writing end of a conversation on a child's stdin, bounded: what the child has not read
/// yet waits in memory up to `limit` bytes, and past it a send is refused (a child that
/// stopped reading its input never grows dwpipe's memory).
#[derive(Clone, Debug)]
pub(crate) struct StdinSender {
    sender: mpsc::UnboundedSender<Vec<u8>>,
    queued: Queued,
    limit: usize,
}

/// Why a message was not sent to a child's stdin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NotSent {
    /// The child has not read this many bytes sent before: it stopped reading.
    Unread(usize),
    /// Its stdin is closed.
    Closed,
}

impl StdinSender {
    /// Queues `bytes` for the child's stdin.
    pub(crate) fn send(&self, bytes: Vec<u8>) -> Result<(), NotSent> {
        use std::sync::atomic::Ordering;
        let queued = self.queued.load(Ordering::Relaxed);
        if queued + bytes.len() > self.limit {
            return Err(NotSent::Unread(queued));
        }
        self.queued.fetch_add(bytes.len(), Ordering::Relaxed);
        self.sender.send(bytes).map_err(|_| NotSent::Closed)
    }
}

#[cfg(test)]
impl StdinFeed {
    /// What was sent and no child has taken (a test reads a conversation without a child).
    pub(crate) fn drain(&self) -> Vec<Vec<u8>> {
        let mut taken = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some((receiver, queued)) = taken.as_mut() else {
            return Vec::new();
        };
        std::iter::from_fn(|| receiver.try_recv().ok())
            .inspect(|m| {
                queued.fetch_sub(m.len(), std::sync::atomic::Ordering::Relaxed);
            })
            .collect()
    }
}

/// A feed for [`Stdin::Feed`](super::Stdin::Feed) and the sender that writes to it, holding at most `limit` bytes
/// the child has not read.
pub(crate) fn stdin_feed(limit: usize) -> (StdinSender, StdinFeed) {
    let (sender, receiver) = mpsc::unbounded_channel();
    let queued = Queued::default();
    (
        StdinSender {
            sender,
            queued: Arc::clone(&queued),
            limit,
        },
        StdinFeed(Arc::new(Mutex::new(Some((receiver, queued))))),
    )
}

/// Writes what the feed sends, each message whole and flushed, until every sender is gone
/// (then stdin closes) or the child stops reading.
pub(super) async fn feed_stdin(
    mut pipe: tokio::process::ChildStdin,
    mut receiver: mpsc::UnboundedReceiver<Vec<u8>>,
    queued: Queued,
) {
    while let Some(message) = receiver.recv().await {
        if pipe.write_all(&message).await.is_err() || pipe.flush().await.is_err() {
            return;
        }
        queued.fetch_sub(message.len(), std::sync::atomic::Ordering::Relaxed);
    }
}
