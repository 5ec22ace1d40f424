//! A process's CPU over a window dwpipe controls: two reads, a known time apart, of the
//! device's clock, the process's CPU time (`/proc/<pid>/stat`: `utime` and `stime`, fields 14
//! and 15) and every core's (`/proc/stat`: the `cpu` line, and one `cpuN` line per online
//! core), in one shell call:
//! `cat /proc/self/stat /proc/<pid>/stat /proc/stat; sleep S; echo __DWPIPE_CPU_AGAIN; cat …`.
//! The kernel prints them in clock ticks of USER_HZ (100 on every ARM kernel).
//!
//! The clock is the `cat` process's own start (`/proc/self/stat` field 22, ticks since boot on
//! the boot clock hitrace stamps with), which the hdc shell may read on every release: it may
//! not read `/proc/uptime` on any (research/device-tools-3.md §2). Reads recorded before this
//! began with `/proc/uptime` and are still read.
//!
//! The load is the process's ticks over every online core's ticks in the window: a share of
//! all cores, as hidumper and hiview state theirs (at most 100 %); times the number of online
//! cores, a share of one core. Where the shell may not read `/proc/stat` (4.0 user builds,
//! 4.1), the share of all cores is unknown, with the refusal quoted, and the share of one core
//! is the process's ticks over the window's. Counters that run backwards (wrapped), a process
//! that counted more ticks than the cores had, or a second read with fewer cores than the
//! first (a truncated reply) are no reading: never clamped, never read as fewer cores. Since
//! 4.1 `hidumper --cpuusage` reads hiview's collector, which samples processes every 10 s
//! (research/device-tools-2.md §3a) — so dwpipe measures the window itself.

use serde::Serialize;

/// The line between the two reads.
pub const AGAIN: &str = "__DWPIPE_CPU_AGAIN";

/// Clock ticks a second, as `/proc` counts them (the kernel's USER_HZ).
const USER_HZ: f64 = 100.0;

/// The most cores a phone has: a process that kept more busy counted impossible ticks.
const MAX_CORES: f64 = 64.0;

/// Why the reads hold no load.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProcCpuError {
    /// The reply is not two reads apart by [`AGAIN`].
    #[error("the reply holds {0} read(s) of /proc, not two apart by `{AGAIN}`")]
    Reads(usize),
    /// A file of a read is missing or does not read: which, and the line.
    #[error("{file} does not read ({why})")]
    Unreadable {
        /// `/proc/self/stat`, `/proc/<pid>/stat` or `/proc/stat`.
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
    /// The counters say what no device counts: why.
    #[error("the counters cannot be read as a load: {0}")]
    Impossible(String),
}

/// One read.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    /// The device's clock at the read, seconds since boot.
    clock: f64,
    /// What the clock was read from.
    source: &'static str,
    /// The process.
    process: Process,
    /// Every online core's ticks and their number, or the shell's refusal, quoted.
    cores: Result<(u64, u32), String>,
}

/// A `/proc/<pid>/stat` line.
#[derive(Clone, Debug, PartialEq)]
struct Process {
    pid: u32,
    comm: String,
    /// User and system ticks.
    ticks: u64,
    /// Its start, in ticks since boot: the same process has the same.
    start: u64,
}

/// A process's load over the window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProcCpu {
    /// The process.
    pub pid: u32,
    /// Its name as the kernel keeps it (at most 15 bytes).
    pub name: String,
    /// Its share of every online core, percent (at most 100); unknown where the shell may not
    /// read `/proc/stat`.
    pub all_cores_percent: Option<f64>,
    /// Why the share of all cores is unknown (the refusal quoted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_cores_unread: Option<String>,
    /// Its share of one core, percent (above 100 when it kept several busy).
    pub one_core_percent: f64,
    /// Online cores at the end of the window, where `/proc/stat` read.
    pub cores: Option<u32>,
    /// The window, seconds of the device's clock.
    pub seconds: f64,
    /// The device's clock at its start and end.
    pub from_s: f64,
    /// See `from_s`.
    pub to_s: f64,
    /// What the clock was read from (`/proc/self/stat`; `/proc/uptime` in older reads).
    pub clock: &'static str,
    /// The process's ticks in the window.
    pub ticks: u64,
    /// Every core's ticks in the window, where `/proc/stat` read.
    pub total_ticks: Option<u64>,
}

impl ProcCpu {
    /// The reading in words, for the report.
    pub fn evidence(&self) -> String {
        let window = format!(
            "over {:.3} s ({} {:.2} → {:.2} s)",
            self.seconds, self.clock, self.from_s, self.to_s
        );
        match (self.all_cores_percent, self.total_ticks, self.cores) {
            (Some(all), Some(total), Some(cores)) => format!(
                "{} (pid {}): {} of {total} ticks of {cores} online cores {window}: {all:.2}% of all cores ({:.2}% of one core)",
                self.name, self.pid, self.ticks, self.one_core_percent
            ),
            _ => format!(
                "{} (pid {}): {} ticks {window}: {:.2}% of one core; the share of all cores is unknown ({})",
                self.name,
                self.pid,
                self.ticks,
                self.one_core_percent,
                self.all_cores_unread
                    .as_deref()
                    .unwrap_or("/proc/stat did not read")
            ),
        }
    }
}

/// The line, bounded for quoting.
fn quoted(line: &str) -> String {
    format!("`{}`", crate::text::one_line(line, 120))
}

/// A `pid (comm) state …` line: the name may hold spaces and parentheses; it ends at the last
/// `)`. Fields are numbered as proc(5) numbers them; the state is field 3.
fn stat_line(line: &str) -> Option<Process> {
    let (head, rest) = line.rsplit_once(')')?;
    let (pid, comm) = head.split_once(" (")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| -> Option<u64> { fields.get(n - 3)?.parse().ok() };
    Some(Process {
        pid: pid.trim().parse().ok()?,
        comm: comm.to_owned(),
        ticks: field(14)?.checked_add(field(15)?)?,
        start: field(22)?,
    })
}

/// The clock line: the `cat` process's own stat line (its start, ticks since boot), or, in a
/// read recorded before dwpipe read that, `/proc/uptime` (seconds since boot, then idle).
fn clock_line(line: &str) -> Result<(f64, &'static str), ProcCpuError> {
    let unreadable = |file, why| ProcCpuError::Unreadable { file, why };
    if line.starts_with("cat: /proc/uptime") {
        return Err(unreadable("/proc/uptime", quoted(line)));
    }
    if line.starts_with("cat:") {
        return Err(unreadable("/proc/self/stat", quoted(line)));
    }
    if let Some(own) = stat_line(line) {
        return Ok((own.start as f64 / USER_HZ, "/proc/self/stat"));
    }
    let mut words = line.split_whitespace();
    match (
        words.next().map(str::parse::<f64>),
        words.next(),
        words.next(),
    ) {
        (Some(Ok(up)), Some(_), None) if up.is_finite() && up >= 0.0 => Ok((up, "/proc/uptime")),
        _ => Err(unreadable("/proc/self/stat", quoted(line))),
    }
}

/// Every online core's ticks and their number, from the lines of `/proc/stat`, or the
/// shell's refusal of it, quoted.
fn cores(lines: &[&str]) -> Result<Result<(u64, u32), String>, ProcCpuError> {
    let unreadable = |why| ProcCpuError::Unreadable {
        file: "/proc/stat",
        why,
    };
    if let Some(refused) = lines.iter().find(|l| l.starts_with("cat:")) {
        return Ok(Err(quoted(refused)));
    }
    let mut total = None;
    let mut cores = 0;
    for line in lines {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("cpu") => {
                let ticks: Option<Vec<u64>> = words.take(8).map(|v| v.parse().ok()).collect();
                let ticks = ticks
                    .filter(|t| t.len() >= 4)
                    .ok_or_else(|| unreadable(quoted(line)))?;
                let sum = ticks
                    .iter()
                    .try_fold(0u64, |sum, t| sum.checked_add(*t))
                    .ok_or_else(|| {
                        unreadable(format!("{}: ticks beyond counting", quoted(line)))
                    })?;
                total = Some(sum);
            }
            Some(name) if name.starts_with("cpu") && name[3..].parse::<u32>().is_ok() => {
                cores += 1;
            }
            _ => {}
        }
    }
    let total = total.ok_or_else(|| unreadable("no `cpu` line".to_owned()))?;
    if cores == 0 {
        return Err(unreadable("no `cpuN` line".to_owned()));
    }
    Ok(Ok((total, cores)))
}

/// One read: the clock, `/proc/<pid>/stat`, `/proc/stat`, in that order (each file's content,
/// or the shell's `cat: FILE: …` in its place).
fn snapshot(text: &str) -> Result<Snapshot, ProcCpuError> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let nothing = |file| ProcCpuError::Unreadable {
        file,
        why: "nothing was printed".to_owned(),
    };
    let (clock, source) = clock_line(lines.first().ok_or(nothing("/proc/self/stat"))?)?;
    let stat = lines.get(1).ok_or(nothing("/proc/<pid>/stat"))?;
    let process = stat_line(stat).ok_or_else(|| ProcCpuError::Unreadable {
        file: "/proc/<pid>/stat",
        why: quoted(stat),
    })?;
    Ok(Snapshot {
        clock,
        source,
        process,
        cores: cores(&lines[2..])?,
    })
}

/// Reads the reply of the two reads.
pub fn proc_cpu(reply: &str) -> Result<ProcCpu, ProcCpuError> {
    let reads: Vec<&str> = reply.split(AGAIN).collect();
    let [first, second] = reads.as_slice() else {
        return Err(ProcCpuError::Reads(reads.len()));
    };
    let (before, after) = (snapshot(first)?, snapshot(second)?);
    if before.source != after.source {
        return Err(ProcCpuError::Impossible(format!(
            "the first read's clock is {}, the second's {}",
            before.source, after.source
        )));
    }
    let (p0, p1) = (&before.process, &after.process);
    if (p0.pid, p0.start) != (p1.pid, p1.start) {
        return Err(ProcCpuError::OtherProcess(format!(
            "pid {} started at tick {}, then pid {} started at tick {}",
            p0.pid, p0.start, p1.pid, p1.start
        )));
    }
    let seconds = after.clock - before.clock;
    if seconds < 0.5 {
        return Err(ProcCpuError::Window(seconds));
    }
    let ticks = p1.ticks.checked_sub(p0.ticks).ok_or_else(|| {
        ProcCpuError::Impossible(format!(
            "the process's ticks ran backwards ({} then {}): a wrapped counter",
            p0.ticks, p1.ticks
        ))
    })?;
    let window_ticks = seconds * USER_HZ;
    if ticks as f64 > window_ticks * MAX_CORES {
        return Err(ProcCpuError::Impossible(format!(
            "the process counted {ticks} ticks in {seconds:.3} s, more than {MAX_CORES} cores have"
        )));
    }
    let share = all_cores(&before.cores, &after.cores, ticks, window_ticks)?;
    let one_core = match &share {
        Ok((percent, _, cores)) => percent * f64::from(*cores),
        Err(_) => ticks as f64 / window_ticks * 100.0,
    };
    let round = |v: f64, places: i32| {
        let scale = 10f64.powi(places);
        (v * scale).round() / scale
    };
    let (all, total, cores, unread) = match share {
        Ok((percent, total, cores)) => (Some(round(percent, 2)), Some(total), Some(cores), None),
        Err(why) => (None, None, None, Some(why)),
    };
    Ok(ProcCpu {
        pid: p1.pid,
        name: p1.comm.clone(),
        all_cores_percent: all,
        all_cores_unread: unread,
        one_core_percent: round(one_core, 2),
        cores,
        seconds: round(seconds, 3),
        from_s: before.clock,
        to_s: after.clock,
        clock: after.source,
        ticks,
        total_ticks: total,
    })
}

/// The process's share of every core (percent, every core's ticks, online cores), or why it
/// is unknown (a refused `/proc/stat`, quoted); an error when the counters are impossible.
fn all_cores(
    before: &Result<(u64, u32), String>,
    after: &Result<(u64, u32), String>,
    ticks: u64,
    window_ticks: f64,
) -> Result<Result<(f64, u64, u32), String>, ProcCpuError> {
    let ((t0, c0), (t1, c1)) = match (before, after) {
        (Ok(b), Ok(a)) => (*b, *a),
        (Err(why), _) | (_, Err(why)) => return Ok(Err(format!("/proc/stat: {why}"))),
    };
    let impossible = |why: String| Err(ProcCpuError::Impossible(why));
    if c1 < c0 {
        return impossible(format!(
            "the second read of /proc/stat lists {c1} core(s), the first {c0}: a truncated reply"
        ));
    }
    let Some(total) = t1.checked_sub(t0).filter(|t| *t > 0) else {
        return impossible(format!(
            "every core's ticks ran backwards or stood still ({t0} then {t1}): a wrapped counter"
        ));
    };
    // Each online core counts USER_HZ ticks a second, idle or not; a rounding tick or two each.
    let most = window_ticks * f64::from(c1) * 1.25 + 2.0 * f64::from(c1);
    if total as f64 > most {
        return impossible(format!(
            "{total} ticks of {c1} core(s) in {:.3} s, more than they can count",
            window_ticks / USER_HZ
        ));
    }
    if ticks > total {
        return impossible(format!(
            "the process counted {ticks} ticks, every core together {total}"
        ));
    }
    Ok(Ok((ticks as f64 / total as f64 * 100.0, total, c1)))
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
        let own = (uptime * USER_HZ).round() as u64;
        let mut text = format!(
            "7001 (cat) R 1 1 0 0 -1 4194560 90 0 0 0 0 0 0 0 20 0 1 0 {own} 9000000 200 0 0 0\n{pid} ({name}) S 600 600 0 0 -1 4194560 5000 0 0 0 {} {} 0 0 20 0 40 0 1500 4000000000 20000 0 0 0\n",
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
    let total_before = (uptime * USER_HZ) as u64 * u64::from(cores);
    let window = (seconds * USER_HZ).round() as u64 * u64::from(cores);
    let busy = (window as f64 * percent / 100.0).round() as u64;
    format!(
        "{}{AGAIN}\n{}",
        read(uptime, 1000, total_before),
        read(uptime + seconds, 1000 + busy, total_before + window)
    )
}

#[cfg(test)]
mod tests;
