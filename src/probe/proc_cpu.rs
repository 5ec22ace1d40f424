//! A process's CPU over a window dwpipe controls: two reads, a known time apart, of the
//! device's uptime (`/proc/uptime`), the process's CPU time (`/proc/<pid>/stat`: `utime` and
//! `stime`, fields 14 and 15) and every core's (`/proc/stat`: the `cpu` line, and one
//! `cpuN` line per online core), in one shell call:
//! `cat /proc/uptime /proc/<pid>/stat /proc/stat; sleep S; echo __DWPIPE_CPU_AGAIN; cat …`.
//! Every release has these files and prints them the kernel's way (clock ticks of USER_HZ).
//!
//! The load is the process's ticks over every online core's ticks in the window: a share of
//! all cores, as hidumper and hiview state theirs (at most 100 %); times the number of online
//! cores, a share of one core. Since 4.1 `hidumper --cpuusage` reads hiview's collector, which
//! samples processes every 10 s: a young app has no row, an older one a random 0–10 s
//! interval (research/device-tools-2.md §3a) — so dwpipe measures the window itself.

use serde::Serialize;

/// The line between the two reads.
pub const AGAIN: &str = "__DWPIPE_CPU_AGAIN";

/// Why the reads hold no load.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProcCpuError {
    /// The reply is not two reads apart by [`AGAIN`].
    #[error("the reply holds {0} read(s) of /proc, not two apart by `{AGAIN}`")]
    Reads(usize),
    /// A file of a read is missing or does not read: which, and the line.
    #[error("{file} does not read ({why})")]
    Unreadable {
        /// `/proc/uptime`, `/proc/<pid>/stat` or `/proc/stat`.
        file: &'static str,
        /// Why, with the line quoted.
        why: String,
    },
    /// The process of the second read is not the first's: it ended (and maybe started again)
    /// within the window.
    #[error("the process changed within the window ({0})")]
    OtherProcess(String),
    /// The window is too short (or runs backwards) to measure over.
    #[error("the window is {0:.3} s long: too short to measure a load over")]
    Window(f64),
}

/// One read of the three files.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    /// Seconds since boot.
    uptime: f64,
    pid: u32,
    comm: String,
    /// The process's start, in ticks since boot: the same process has the same.
    start: u64,
    /// The process's user and system ticks.
    ticks: u64,
    /// Every online core's ticks (the `cpu` line, guest time inside user time).
    total: u64,
    /// Online cores (`cpuN` lines).
    cores: u32,
}

/// A process's load over the window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProcCpu {
    /// The process.
    pub pid: u32,
    /// Its name as the kernel keeps it (at most 15 bytes).
    pub name: String,
    /// Its share of every online core, percent (at most 100).
    pub all_cores_percent: f64,
    /// Online cores at the end of the window.
    pub cores: u32,
    /// The window, seconds of device uptime.
    pub seconds: f64,
    /// The device's uptime at its start and end.
    pub from_s: f64,
    /// See `from_s`.
    pub to_s: f64,
    /// The process's ticks in the window, and every core's.
    pub ticks: u64,
    /// See `ticks`.
    pub total_ticks: u64,
}

impl ProcCpu {
    /// Its share of one core, percent (above 100 when it kept several busy).
    pub fn one_core_percent(&self) -> f64 {
        self.all_cores_percent * f64::from(self.cores)
    }

    /// The reading in words, for the report.
    pub fn evidence(&self) -> String {
        format!(
            "{} (pid {}): {} of {} ticks of {} online cores over {:.3} s (device uptime {:.2} → {:.2} s): {:.2}% of all cores ({:.2}% of one core)",
            self.name,
            self.pid,
            self.ticks,
            self.total_ticks,
            self.cores,
            self.seconds,
            self.from_s,
            self.to_s,
            self.all_cores_percent,
            self.one_core_percent()
        )
    }
}

/// The line, bounded for quoting.
fn quoted(line: &str) -> String {
    crate::text::one_line(line, 120).into_owned()
}

/// One read: `/proc/uptime`, `/proc/<pid>/stat`, `/proc/stat`, in that order.
fn snapshot(text: &str) -> Result<Snapshot, ProcCpuError> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let unreadable = |file: &'static str, why: String| ProcCpuError::Unreadable { file, why };
    let uptime_line = lines
        .next()
        .ok_or_else(|| unreadable("/proc/uptime", "nothing was printed".to_owned()))?;
    let uptime: f64 = uptime_line
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| unreadable("/proc/uptime", format!("`{}`", quoted(uptime_line))))?;
    let stat_line = lines
        .next()
        .ok_or_else(|| unreadable("/proc/<pid>/stat", "nothing was printed".to_owned()))?;
    let stat_err = || unreadable("/proc/<pid>/stat", format!("`{}`", quoted(stat_line)));
    // `pid (comm) state …`: the name may hold spaces and parentheses; it ends at the last `)`.
    let (head, rest) = stat_line.rsplit_once(')').ok_or_else(stat_err)?;
    let (pid, comm) = head.split_once(" (").ok_or_else(stat_err)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| -> Result<u64, ProcCpuError> {
        // Field n (1-based, as proc(5) numbers them); the state is field 3.
        fields
            .get(n - 3)
            .and_then(|v| v.parse().ok())
            .ok_or_else(stat_err)
    };
    let ticks = field(14)? + field(15)?;
    let start = field(22)?;
    let pid: u32 = pid.trim().parse().map_err(|_| stat_err())?;
    let mut total = None;
    let mut cores = 0;
    for line in lines {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("cpu") => {
                let ticks: Option<Vec<u64>> = words.take(8).map(|v| v.parse().ok()).collect();
                let ticks = ticks
                    .filter(|t| t.len() >= 4)
                    .ok_or_else(|| unreadable("/proc/stat", format!("`{}`", quoted(line))))?;
                total = Some(ticks.iter().sum());
            }
            Some(name) if name.starts_with("cpu") && name[3..].parse::<u32>().is_ok() => {
                cores += 1;
            }
            _ => {}
        }
    }
    let total = total.ok_or_else(|| unreadable("/proc/stat", "no `cpu` line".to_owned()))?;
    if cores == 0 {
        return Err(unreadable("/proc/stat", "no `cpuN` line".to_owned()));
    }
    Ok(Snapshot {
        uptime,
        pid,
        comm: comm.to_owned(),
        start,
        ticks,
        total,
        cores,
    })
}

/// Reads the reply of the two reads.
pub fn proc_cpu(reply: &str) -> Result<ProcCpu, ProcCpuError> {
    let reads: Vec<&str> = reply.split(AGAIN).collect();
    let [first, second] = reads.as_slice() else {
        return Err(ProcCpuError::Reads(reads.len()));
    };
    let (before, after) = (snapshot(first)?, snapshot(second)?);
    if (before.pid, before.start) != (after.pid, after.start) {
        return Err(ProcCpuError::OtherProcess(format!(
            "pid {} started at tick {}, then pid {} started at tick {}",
            before.pid, before.start, after.pid, after.start
        )));
    }
    let seconds = after.uptime - before.uptime;
    if seconds < 0.5 {
        return Err(ProcCpuError::Window(seconds));
    }
    let ticks = after.ticks.checked_sub(before.ticks);
    let total = after.total.checked_sub(before.total).filter(|t| *t > 0);
    let (Some(ticks), Some(total)) = (ticks, total) else {
        return Err(ProcCpuError::Unreadable {
            file: "/proc/stat",
            why: "its counters went backwards within the window".to_owned(),
        });
    };
    let share = (ticks as f64 / total as f64 * 100.0).min(100.0);
    Ok(ProcCpu {
        pid: after.pid,
        name: after.comm,
        all_cores_percent: (share * 100.0).round() / 100.0,
        cores: after.cores,
        seconds: (seconds * 1000.0).round() / 1000.0,
        from_s: before.uptime,
        to_s: after.uptime,
        ticks,
        total_ticks: total,
    })
}

/// The reply of the two reads as a fake or replayed device prints it: the process `pid`
/// (`name`) kept `percent` of all of `cores` cores busy over `seconds` from `uptime`.
pub fn render(
    pid: u32,
    name: &str,
    (percent, cores): (f64, u32),
    (uptime, seconds): (f64, f64),
) -> String {
    use std::fmt::Write;
    let read = |uptime: f64, ticks: u64, total: u64| {
        let per_core = total / u64::from(cores);
        let mut text = format!(
            "{uptime:.2} {:.2}\n{pid} ({name}) S 600 600 0 0 -1 4194560 5000 0 0 0 {} {} 0 0 20 0 40 0 1500 4000000000 20000 0 0 0\n",
            uptime * 3.5,
            ticks / 2,
            ticks - ticks / 2
        );
        let _ = writeln!(
            text,
            "cpu  {} 0 {} {} 0 0 0 0 0 0",
            total / 4,
            total / 4,
            total - 2 * (total / 4)
        );
        for core in 0..cores {
            let _ = writeln!(text, "cpu{core} {per_core} 0 0 0 0 0 0 0 0 0");
        }
        text.push_str("intr 0\nctxt 0\nbtime 0\nprocesses 1\nprocs_running 1\nprocs_blocked 0\n");
        text
    };
    let total_before = (uptime * 100.0) as u64 * u64::from(cores);
    let window = (seconds * 100.0).round() as u64 * u64::from(cores);
    let busy = (window as f64 * percent / 100.0).round() as u64;
    format!(
        "{}{AGAIN}\n{}",
        read(uptime, 1000, total_before),
        read(uptime + seconds, 1000 + busy, total_before + window)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_over_the_window_as_the_kernel_prints_it() {
        let reply = render(5000, "com.example.not", (12.5, 8), (120.0, 2.0));
        let cpu = proc_cpu(&reply).unwrap();
        assert_eq!((cpu.pid, cpu.cores, cpu.seconds), (5000, 8, 2.0));
        assert_eq!(cpu.all_cores_percent, 12.5);
        assert_eq!(cpu.one_core_percent(), 100.0);
        assert_eq!((cpu.ticks, cpu.total_ticks), (200, 1600));
        assert!(
            cpu.evidence()
                .contains("12.50% of all cores (100.00% of one core)")
        );
        // A name with spaces and a parenthesis is read to the last `)`.
        let odd = reply.replace("(com.example.not)", "(a (b) c)");
        assert_eq!(proc_cpu(&odd).unwrap().name, "a (b) c");
    }

    #[test]
    fn reads_that_do_not_measure_a_window_say_why() {
        let reply = render(5000, "com.example.not", (12.5, 8), (120.0, 2.0));
        let restarted = {
            let (first, second) = reply.split_once(AGAIN).unwrap();
            format!("{first}{AGAIN}{}", second.replace(" 0 1500 ", " 0 1900 "))
        };
        for (text, said) in [
            (reply.replace(AGAIN, ""), "not two apart"),
            (restarted, "the process changed within the window"),
            (
                reply
                    .replacen("cat: /proc", "", 1)
                    .replacen("5000 (", "x (", 1),
                "/proc/<pid>/stat does not read",
            ),
            (
                "cat: /proc/5000/stat: No such file or directory\n".to_owned(),
                "not two apart",
            ),
            (
                render(5000, "n", (1.0, 4), (120.0, 0.2)),
                "too short to measure",
            ),
        ] {
            let e = proc_cpu(&text).unwrap_err();
            assert!(e.to_string().contains(said), "{text}: {e}");
        }
    }
}
