//! One child process, from spawn to a recorded outcome.

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::PoisonError;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::{Notify, watch};

use super::bounded::BoundedOutput;
use super::cancel::Cancel;
use super::group::Group;
use super::observe::{LineObserver, Pipe, Splitter};

mod stdin;
use stdin::feed_stdin;
pub(crate) use stdin::{NotSent, StdinFeed, StdinSender, stdin_feed};

/// A line longer than this is seen in windows by default.
const OBSERVED_LINE: usize = 64 * 1024;

/// What a child reads on stdin.
#[derive(Clone, Default)]
pub(crate) enum Stdin {
    /// /dev/null.
    #[default]
    Null,
    /// These bytes, then end of file.
    Bytes(Vec<u8>),
    /// Whatever is sent through the feed's sender while the child runs (a conversation such
    /// as JSON-RPC); end of file once every sender is dropped.
    Feed(StdinFeed),
}

/// What to run and under which limits.
#[derive(Clone)]
pub struct ProcessSpec {
    /// The program (a path, or a name looked up on `PATH`).
    pub(crate) program: PathBuf,
    /// Its arguments, passed as argv: never through a shell.
    pub(crate) args: Vec<OsString>,
    /// What the child reads on stdin.
    pub(crate) stdin: Stdin,
    /// Working directory.
    pub(crate) cwd: Option<PathBuf>,
    /// Extra environment variables.
    pub(crate) env: Vec<(OsString, OsString)>,
    /// Wall-clock limit; `None` waits for ever (only cancellation stops it).
    pub(crate) timeout: Option<Duration>,
    /// Time between SIGTERM and SIGKILL.
    pub(crate) grace: Duration,
    /// How long to wait, after the child exits, for its pipes to close before calling the
    /// processes still holding them leaked.
    pub(crate) leak_wait: Duration,
    /// Leading bytes kept of each stream.
    pub(crate) head_limit: usize,
    /// Trailing bytes kept of each stream.
    pub(crate) tail_limit: usize,
    /// Who reads the output line by line as it streams, if anyone.
    pub(crate) lines: Option<LineObserver>,
    /// The longest line the observer sees whole; a longer one arrives in windows.
    pub(crate) line_limit: usize,
}

impl std::fmt::Debug for ProcessSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessSpec")
            .field("program", &self.program)
            .field("args", &self.args)
            .field("cwd", &self.cwd)
            .field("timeout", &self.timeout)
            .field("observed", &self.lines.is_some())
            .finish_non_exhaustive()
    }
}

impl ProcessSpec {
    /// A spec with dwpipe's defaults: no timeout, 2 s grace, 500 ms leak wait, 4 MiB head and
    /// 1 MiB tail per stream.
    pub fn new(
        program: impl Into<PathBuf>,
        args: impl IntoIterator<Item = impl Into<OsString>>,
    ) -> ProcessSpec {
        ProcessSpec {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            stdin: Stdin::Null,
            cwd: None,
            env: Vec::new(),
            timeout: None,
            grace: Duration::from_secs(2),
            leak_wait: Duration::from_millis(500),
            head_limit: 4 * 1024 * 1024,
            tail_limit: 1024 * 1024,
            lines: None,
            line_limit: OBSERVED_LINE,
        }
    }

    /// Sets the wall-clock limit.
    pub(crate) fn timeout(mut self, timeout: Duration) -> ProcessSpec {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the time between SIGTERM and SIGKILL.
    pub(crate) fn grace(mut self, grace: Duration) -> ProcessSpec {
        self.grace = grace;
        self
    }

    /// Feeds these bytes to stdin.
    pub(crate) fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> ProcessSpec {
        self.stdin = Stdin::Bytes(bytes.into());
        self
    }
}

/// How the child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// It exited with this status.
    Exited(i32),
    /// A signal it did not get from dwpipe ended it.
    Signalled(i32),
    /// The timeout fired; the group was stopped.
    TimedOut,
    /// Cancellation fired; the group was stopped.
    Cancelled,
}

/// Everything recorded about one run.
#[derive(Clone, Debug)]
pub struct ProcessOutcome {
    /// How it ended.
    pub(crate) completion: Completion,
    /// Its stdout, bounded.
    pub(crate) stdout: BoundedOutput,
    /// Its stderr, bounded.
    pub(crate) stderr: BoundedOutput,
    /// Wall-clock time from spawn to the end of output.
    pub(crate) duration: Duration,
    /// It left something running: in its group (stopped, like a timeout), or outside it
    /// holding its output pipes after the leak wait (never waited for).
    pub(crate) leaked: bool,
}

/// The child could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// No such program.
    #[error("`{}` not found", program.display())]
    NotFound {
        /// What was tried.
        program: PathBuf,
    },
    /// Anything else the OS refused.
    #[error("cannot start `{}`", program.display())]
    Io {
        /// What was tried.
        program: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
}

/// Runs a child to completion under the spec's limits, stopping it on `cancel`.
pub async fn run(spec: &ProcessSpec, cancel: &Cancel) -> Result<ProcessOutcome, SpawnError> {
    let started = Instant::now();
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(match spec.stdin {
            Stdin::Null => Stdio::null(),
            Stdin::Bytes(_) | Stdin::Feed(_) => Stdio::piped(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own process group (Unix) or job (Windows), so that a timeout reaches grandchildren.
    Group::prepare(&mut command);
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    let mut child = command.spawn().map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => SpawnError::NotFound {
            program: spec.program.clone(),
        },
        _ => SpawnError::Io {
            program: spec.program.clone(),
            source,
        },
    })?;
    let group = Group::adopt(&mut child).map_err(|source| SpawnError::Io {
        program: spec.program.clone(),
        source,
    })?;
    // Known until reaped, so that a second signal can kill the group without waiting.
    let _tracked = cancel.track(&group);
    if let Some(pipe) = child.stdin.take() {
        // A child that never reads its stdin must not block us: write from a task of its own.
        match &spec.stdin {
            Stdin::Null => {}
            Stdin::Bytes(input) => {
                let input = input.clone();
                let mut pipe = pipe;
                tokio::spawn(async move {
                    let _ = pipe.write_all(&input).await;
                });
            }
            Stdin::Feed(StdinFeed(feed)) => {
                let taken = feed.lock().unwrap_or_else(PoisonError::into_inner).take();
                if let Some((receiver, queued)) = taken {
                    tokio::spawn(feed_stdin(pipe, receiver, queued));
                }
            }
        }
    }
    let (stop_reading, stop) = watch::channel(false);
    let limits = (spec.head_limit, spec.tail_limit);
    let drained = Notify::new();
    let (stdout_pipe, stderr_pipe) = (child.stdout.take(), child.stderr.take());
    // Both pipes are drained while the child runs (never wait-then-read: a full pipe would
    // block the child for ever).
    let draining = async {
        let streams = tokio::join!(
            drain(stdout_pipe, limits, stop.clone(), splitter(spec, Pipe::Out)),
            drain(stderr_pipe, limits, stop, splitter(spec, Pipe::Err))
        );
        drained.notify_one();
        streams
    };
    let waiting = async {
        let completion = wait(&mut child, &group, spec, cancel).await;
        // Nothing outlives its stage: whatever the child left running in its group is
        // stopped now, as a timeout would stop it.
        let left_running = group.alive();
        if left_running {
            stop_members(&group, spec.grace).await;
        }
        // Its pipes close when every holder is gone. A process that left the group (setsid)
        // and keeps them open is reported, never waited for.
        let holds_pipes = tokio::time::timeout(spec.leak_wait, drained.notified())
            .await
            .is_err();
        if holds_pipes {
            let _ = stop_reading.send(true);
        }
        (completion, left_running || holds_pipes)
    };
    let ((completion, leaked), (stdout, stderr)) = tokio::join!(waiting, draining);
    Ok(ProcessOutcome {
        completion,
        stdout,
        stderr,
        duration: started.elapsed(),
        leaked,
    })
}

/// Waits for the child, the deadline or cancellation, stopping the group on the latter two.
async fn wait(child: &mut Child, group: &Group, spec: &ProcessSpec, cancel: &Cancel) -> Completion {
    let deadline = async {
        match spec.timeout {
            Some(timeout) => tokio::time::sleep(timeout).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        status = child.wait() => {
            // An abort kills groups itself, before this select can choose cancellation.
            return if group.was_killed() && cancel.is_aborted() {
                Completion::Cancelled
            } else {
                from_status(&status)
            };
        }
        () = deadline => {}
        () = cancel.cancelled() => {
            stop_group(child, group, spec.grace, cancel).await;
            return Completion::Cancelled;
        }
    }
    stop_group(child, group, spec.grace, cancel).await;
    Completion::TimedOut
}

/// Asks the group to end (SIGTERM; Ctrl-Break on Windows), up to `grace` for the leader to
/// exit (cut short by an abort, which kills the group itself), then kills the group (which
/// also ends any member that ignored the request).
async fn stop_group(child: &mut Child, group: &Group, grace: Duration, cancel: &Cancel) {
    if !cancel.is_aborted() && group.terminate() {
        let _ = tokio::time::timeout(grace, child.wait()).await;
    }
    group.kill();
    let _ = child.wait().await;
}

/// The members a reaped leader left in its group: asked to end, up to `grace` for them to
/// go, then killed.
async fn stop_members(group: &Group, grace: Duration) {
    if group.terminate() {
        let deadline = Instant::now() + grace;
        while group.alive() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    group.kill();
}

fn from_status(status: &io::Result<ExitStatus>) -> Completion {
    let Ok(status) = status else {
        return Completion::Exited(-1);
    };
    if let Some(code) = status.code() {
        return Completion::Exited(code);
    }
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(status) {
        return Completion::Signalled(signal);
    }
    Completion::Exited(-1)
}

/// Reads, once told to stop, at most this many buffers already written (a leaked writer that
/// never stops is not read for ever).
const LAST_READS: usize = 64;

/// The observer of a spec's pipe, if it has one.
fn splitter(spec: &ProcessSpec, pipe: Pipe) -> Option<Splitter> {
    let observer = spec.lines.clone()?;
    Some(Splitter::new(observer, pipe, spec.line_limit))
}

/// Reads a pipe to its end (or until told to stop) into bounded memory, each line seen by
/// `lines` as it arrives.
pub(super) async fn drain(
    pipe: Option<impl AsyncRead + Unpin>,
    (head, tail): (usize, usize),
    mut stop: watch::Receiver<bool>,
    mut lines: Option<Splitter>,
) -> BoundedOutput {
    let mut output = BoundedOutput::new(head, tail);
    let Some(mut pipe) = pipe else {
        return output;
    };
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        tokio::select! {
            read = pipe.read(&mut buffer) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    output.push(&buffer[..n]);
                    if let Some(lines) = &mut lines {
                        lines.push(&buffer[..n]);
                    }
                }
            },
            // Told to stop (a leaked holder keeps the pipe open), what the child wrote before
            // it exited is still taken: on a loaded host this task may not have run for the
            // whole leak wait, and a reply lost here would read as an empty one.
            _ = stop.changed() => {
                for _ in 0..LAST_READS {
                    match tokio::time::timeout(Duration::ZERO, pipe.read(&mut buffer)).await {
                        Ok(Ok(n @ 1..)) => output.push(&buffer[..n]),
                        _ => break,
                    }
                }
                break;
            }
        }
    }
    if let Some(lines) = &mut lines {
        lines.finish();
    }
    output
}
