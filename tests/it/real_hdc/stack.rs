//! OpenHarmony's real hdc, for the suite: the real `hdc` server on a loopback port of this
//! host, and phones, each a real `hdcd` (a Linux build) chrooted in a network and mount
//! namespace of its own (`device-fixtures/real-hdc/phone.sh`), its tools fake-hdc's phone half
//! serving a device folder. The server reaches a phone through a relay (a loopback port here,
//! connections made inside the phone's namespace) after `hdc tconn`, as it reaches any TCP
//! device; its connect key is `127.0.0.1:<relay port>`.
//!
//! `.ci/real-hdc` builds the binaries into target/real-hdc. Outside CI a missing build, or a
//! host where namespaces cannot be made (not root), skips with a line; inside CI both fail.

use std::fmt::Write as _;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::support::{Group, own_leases};

/// The port hdcd listens on inside each phone's namespace.
const DEVICE_PORT: u16 = 15555;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_owned()
}

/// The real binaries, when built and usable here; `None` (with a line) outside CI.
#[track_caller]
fn binaries() -> Option<(PathBuf, PathBuf)> {
    let dir = repo().join("target/real-hdc");
    let (hdc, hdcd) = (dir.join("hdc"), dir.join("hdcd"));
    let skip = |why: &str| {
        assert!(
            std::env::var_os("CI").is_none(),
            "the real-hdc suite cannot run: {why}"
        );
        crate::support::skipped!("the real-hdc suite ({why})");
        None
    };
    if !hdc.is_file() || !hdcd.is_file() {
        return skip("no real hdc in target/real-hdc: run `bash .ci/real-hdc`");
    }
    // Phones live in network and mount namespaces of their own: root's to make.
    let works = Command::new("unshare")
        .args(["--net", "--mount", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !works {
        return skip("`unshare --net --mount` fails here: run the suite as root");
    }
    Some((hdc, hdcd))
}

/// A loopback port nobody listens on (for a moment).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

#[track_caller]
fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// How a phone is set up.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tools {
    /// Its tools answer from this device folder (under device-fixtures).
    Serving(&'static str),
    /// A shell without the phone's tools (`param: not found`).
    None,
    /// It wants the host authorized, and nobody answers on the device: Unauthorized.
    Unauthorized,
}

/// One phone: hdcd in its namespaces, and the relay the server reaches it through.
pub(crate) struct Phone {
    /// Its connect key on the server.
    pub(crate) key: String,
    /// Its `/`, as the host sees it (while it runs).
    pub(crate) root: PathBuf,
    daemon: Option<Group>,
    relay: Relay,
}

impl Phone {
    /// Freezes the phone (SIGSTOP to its daemon's group): its connection stays up, nothing
    /// answers on it, as a phone hung in the kernel does.
    pub(crate) fn freeze(&self) {
        let daemon = self.daemon.as_ref().expect("a running phone");
        let status = Command::new("kill")
            .args(["-STOP", "--", &format!("-{}", daemon.0.id())])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Kills the phone's daemon (as a crash or a pulled cable would), from any thread.
    pub(crate) fn kill(pid: u32) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .status();
    }

    /// Its daemon's process group, for [`Phone::kill`].
    pub(crate) fn group(&self) -> u32 {
        self.daemon.as_ref().expect("a running phone").0.id()
    }

    /// Ends the phone (its daemon killed, its relay closed): the server sees it go.
    pub(crate) fn stop(&mut self) {
        self.daemon.take();
        self.relay.stop();
    }
}

/// The stack: a server and its phones, all stopped when dropped.
pub(crate) struct Stack {
    /// The test's folder (the hdc client's own files, logs, phones' roots).
    pub(crate) dir: PathBuf,
    pub(crate) hdc: PathBuf,
    hdcd: PathBuf,
    /// The server's address, as `--server` takes it.
    pub(crate) server: String,
    server_process: Option<Group>,
    pub(crate) phones: Vec<Phone>,
}

impl Stack {
    /// The real server on a loopback port, no phone yet; `None` when the suite skips.
    pub(crate) fn start(dir: &Path) -> Option<Stack> {
        Stack::start_on(dir, free_port())
    }

    /// The real server on this loopback port (8710 is where tools that look for the local
    /// server find it).
    pub(crate) fn start_on(dir: &Path, port: u16) -> Option<Stack> {
        let (hdc, hdcd) = binaries()?;
        let mut stack = Stack {
            dir: dir.to_owned(),
            hdc,
            hdcd,
            server: format!("127.0.0.1:{port}"),
            server_process: None,
            phones: Vec::new(),
        };
        for own in ["hdc-tmp", "hdc-home"] {
            fs::create_dir_all(dir.join(own)).unwrap();
        }
        stack.start_server();
        Some(stack)
    }

    fn start_server(&mut self) {
        let log = fs::File::create(self.dir.join("server.log")).unwrap();
        let mut command = self.hdc_command();
        command
            .args(["-s", &self.server, "-m"])
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        self.server_process = Some(Group(command.spawn().unwrap()));
        let address = self.server.clone();
        wait_until("the hdc server listens", Duration::from_secs(10), || {
            TcpStream::connect(&address).is_ok()
        });
    }

    /// Kills the server (as a crash would).
    pub(crate) fn kill_server(&mut self) {
        self.server_process.take();
    }

    /// The real client, with the stack's own temporary and home folders (its log, its key).
    pub(crate) fn hdc_command(&self) -> Command {
        let mut command = Command::new(&self.hdc);
        command
            .env("TMPDIR", self.dir.join("hdc-tmp"))
            .env("HOME", self.dir.join("hdc-home"));
        command
    }

    /// `hdc -s SERVER ARGS…`: its stdout.
    pub(crate) fn hdc(&self, args: &[&str]) -> String {
        let output = self
            .hdc_command()
            .args(["-s", &self.server, "-p"])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// A phone joined to the server; waits until the server lists it in `status`.
    #[track_caller]
    pub(crate) fn phone(&mut self, tools: Tools) -> &mut Phone {
        let n = self.phones.len();
        let home = self.dir.join(format!("phone-{n}"));
        fs::create_dir_all(&home).unwrap();
        let root = home.join("root");
        let (device, mode) = match tools {
            Tools::Serving(device) => (device, "open"),
            Tools::None => ("", "open"),
            Tools::Unauthorized => ("", "secure"),
        };
        let log = fs::File::create(home.join("hdcd.log")).unwrap();
        let daemon = Command::new("unshare")
            .args(["--net", "--mount"])
            .arg(repo().join("device-fixtures/real-hdc/phone.sh"))
            .arg(&root)
            .arg(&self.hdcd)
            .arg(env!("CARGO_BIN_EXE_fake-hdc"))
            .arg(repo().join("device-fixtures"))
            .arg(device)
            .arg(DEVICE_PORT.to_string())
            .arg(mode)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let pid = daemon.id();
        let daemon = Group(daemon);
        // The namespace is the daemon's once phone.sh has exec'd into it.
        let log_path = home.join("hdcd.log");
        wait_until(
            "hdcd listens in its namespace",
            Duration::from_secs(20),
            || fs::read_to_string(&log_path).is_ok_and(|l| l.contains("TCP listen on port")),
        );
        let relay = Relay::start(pid);
        let key = format!("127.0.0.1:{}", relay.port);
        // hdcd says it listens a moment before it takes connections; an unauthorized device's
        // first `tconn` says `Connect failed` and leaves the target known.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let said = self.hdc(&["tconn", &key]);
            if said.contains("Connect OK") || said.contains("Target is connected") {
                break;
            }
            // An unauthorized device may answer `Connect failed` to every `tconn` on a busy
            // host: it is joined once the server lists it.
            if tools == Tools::Unauthorized
                && self
                    .hdc(&["list", "targets", "-v"])
                    .lines()
                    .any(|l| l.starts_with(&key) && l.contains("Unauthorized"))
            {
                break;
            }
            assert!(Instant::now() < deadline, "tconn {key}: {said}");
            std::thread::sleep(Duration::from_millis(100));
        }
        let status = if tools == Tools::Unauthorized {
            "Unauthorized"
        } else {
            "Connected"
        };
        wait_until(
            &format!("the server lists {key} {status}"),
            Duration::from_secs(20),
            || {
                let listed = self
                    .hdc(&["list", "targets", "-v"])
                    .lines()
                    .any(|l| l.starts_with(&key) && l.contains(status));
                // hdcd refuses an unknown host's key and the server may drop the target with
                // it (daemon.cpp sends E000002, then E000003 once the dialog is refused): on a
                // busy host the listing can miss it, and a new `tconn` is a new handshake.
                if !listed && tools == Tools::Unauthorized {
                    self.hdc(&["tconn", &key]);
                }
                listed
            },
        );
        self.phones.push(Phone {
            key,
            root,
            daemon: Some(daemon),
            relay,
        });
        self.phones.last_mut().unwrap()
    }

    /// A device the server knows at a port nobody serves: Offline. Its connect key.
    pub(crate) fn offline_device(&self) -> String {
        let key = format!("127.0.0.1:{}", free_port());
        let said = self.hdc(&["tconn", &key]);
        wait_until(
            &format!("the server lists {key} Offline ({said})"),
            Duration::from_secs(20),
            || {
                self.hdc(&["list", "targets", "-v"])
                    .lines()
                    .any(|l| l.starts_with(&key) && l.contains("Offline"))
            },
        );
        key
    }

    /// The real `dwpipe` in `dir`, its hdc the real client (with the stack's folders), its
    /// leases its own.
    pub(crate) fn dwpipe(&self, dir: &Path) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dwpipe"));
        command
            .current_dir(dir)
            .env("DWPIPE_HDC", &self.hdc)
            .env("DWPIPE_LEASES", own_leases())
            .env("TMPDIR", self.dir.join("hdc-tmp"))
            .env("HOME", self.dir.join("hdc-home"));
        command
    }

    /// Runs `dwpipe ARGS` in `dir`: `(exit code, stdout, stderr)`.
    pub(crate) fn run(&self, dir: &Path, args: &[&str]) -> (i32, String, String) {
        let output = self.dwpipe(dir).args(args).output().unwrap();
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// The logs of the server and every phone, for a failure's message.
    pub(crate) fn logs(&self) -> String {
        let mut logs = String::new();
        let mut add = |name: String, path: PathBuf| {
            let text = fs::read_to_string(&path).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(30).collect();
            let _ = writeln!(logs, "--- {name} (last lines) ---");
            for line in tail.into_iter().rev() {
                let _ = writeln!(logs, "{line}");
            }
        };
        add("server.log".into(), self.dir.join("server.log"));
        for n in 0..self.phones.len() {
            add(
                format!("phone-{n}/hdcd.log"),
                self.dir.join(format!("phone-{n}/hdcd.log")),
            );
        }
        logs
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        for phone in &mut self.phones {
            phone.stop();
        }
        self.server_process.take();
    }
}

/// A loopback port here whose connections are made to hdcd inside a phone's network
/// namespace (`setns` on the thread that connects; the socket stays in that namespace).
struct Relay {
    port: u16,
    stopped: Arc<AtomicBool>,
}

impl Relay {
    fn start(pid: u32) -> Relay {
        let namespace = fs::File::open(format!("/proc/{pid}/ns/net")).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stopped = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&stopped);
        std::thread::spawn(move || {
            for host_side in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(host_side) = host_side else { continue };
                let Ok(namespace) = namespace.try_clone() else {
                    continue;
                };
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    // This thread only: the socket it makes stays in the phone's namespace.
                    if nix::sched::setns(&namespace, nix::sched::CloneFlags::CLONE_NEWNET).is_err()
                    {
                        return;
                    }
                    let Ok(phone_side) = TcpStream::connect(("127.0.0.1", DEVICE_PORT)) else {
                        return;
                    };
                    pump(host_side, phone_side, &stop);
                });
            }
        });
        Relay { port, stopped }
    }

    fn stop(&mut self) {
        if !self.stopped.swap(true, Ordering::SeqCst) {
            // Wakes the accepting thread, which then sees the flag.
            let _ = TcpStream::connect(("127.0.0.1", self.port));
        }
    }
}

/// Copies both ways until either side closes (or the relay stops), then closes both.
fn pump(a: TcpStream, b: TcpStream, stop: &Arc<AtomicBool>) {
    let (a2, b2) = (a.try_clone().unwrap(), b.try_clone().unwrap());
    let forward = std::thread::spawn(move || copy(a2, b2));
    let stop = Arc::clone(stop);
    copy_until(b, a, &stop);
    let _ = forward.join();
}

fn copy(mut from: TcpStream, mut to: TcpStream) {
    let mut buffer = [0u8; 64 * 1024];
    while let Ok(n) = from.read(&mut buffer) {
        if n == 0 || to.write_all(&buffer[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
    let _ = from.shutdown(std::net::Shutdown::Both);
}

fn copy_until(from: TcpStream, to: TcpStream, stop: &Arc<AtomicBool>) {
    let _ = from.set_read_timeout(Some(Duration::from_millis(200)));
    let (mut from, mut to) = (from, to);
    let mut buffer = [0u8; 64 * 1024];
    loop {
        match from.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                if to.write_all(&buffer[..n]).is_err() {
                    break;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
    let _ = from.shutdown(std::net::Shutdown::Both);
}
