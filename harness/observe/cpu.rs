//! Where the CPU goes while the harness works: its own process, each probe,
//! the MCP servers the probes start, installs, and anything else it starts,
//! read from `/proc` by a sampling thread (a benchmark's measurement, never
//! a test's).
//!
//! A process is charged the CPU `/proc/PID/stat` gives it (`utime` and
//! `stime`). Sampling alone would lose what a process spends after its last
//! sample, and everything a process spends that lives less than one
//! interval: an MCP server can start, answer and exit inside one. The
//! kernel keeps both, though: when a parent reaps a child, the child's whole
//! CPU (and that of the children it reaped) moves into the parent's
//! `cutime`/`cstime`. So each interval, the growth of a parent's reaped time
//! is charged to the children of it that vanished in that interval, past
//! what their last samples held, shared by those last samples' weights; a
//! growth with no vanished child is a child never seen, charged to the
//! parent's kind as `unseen`. When a whole subtree ends inside one
//! interval (a probe shut down with its sandbox), what its members spent
//! after their last samples is charged to its top, the one its surviving
//! parent reaped. What no tracked parent reaps (a child
//! re-parented to init when its parent died first) is lost, and is at most
//! one interval per such process.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the process tree is read: short enough that a probe's RSS
/// and a short-lived child are seen, cheap enough (a read of `/proc` for a
/// few dozen processes) to stay out of the figures.
const INTERVAL: Duration = Duration::from_millis(25);

/// What a process is to the harness, from its command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Harness,
    Probe,
    McpServer,
    Install,
    Other,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Harness,
        Kind::Probe,
        Kind::McpServer,
        Kind::Install,
        Kind::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Harness => "harness",
            Kind::Probe => "probe",
            Kind::McpServer => "mcp-server",
            Kind::Install => "install",
            Kind::Other => "other",
        }
    }

    /// A child's kind from its argv. A sandboxed process is seen twice, as
    /// `bwrap ... node probe.mjs` and as the node under it: both are the
    /// probe's.
    fn of(argv: &[String]) -> Kind {
        let has = |s: &str| argv.iter().any(|a| a.ends_with(s) || a == s);
        if has("mcp-server") || has("mcp-server.mjs") {
            Kind::McpServer
        } else if has("probe.mjs") {
            Kind::Probe
        } else if argv.iter().any(|a| {
            let base = a.rsplit('/').next().unwrap_or(a);
            matches!(
                base,
                "npm" | "pnpm" | "npm-cli.js" | "pnpm.cjs" | "pnpm.mjs"
            ) || a.contains("/pnpm/")
                || a.contains("/npm/bin/")
        }) {
            Kind::Install
        } else {
            Kind::Other
        }
    }
}

/// One `/proc/PID/stat` line, the fields used here.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stat {
    /// The command's name, which an exec changes.
    comm: [u8; 16],
    ppid: u32,
    /// Own CPU, in clock ticks.
    own: u64,
    /// Reaped children's CPU, in clock ticks.
    reaped: u64,
    start: u64,
    rss_pages: u64,
}

/// Fields after the command's closing parenthesis (the command may hold
/// spaces and parentheses itself): state, ppid, ... as proc(5) numbers
/// them, from field 3.
fn parse_stat(line: &str) -> Option<Stat> {
    let close = line.rfind(')')?;
    let name = line[..close].split_once('(')?.1.as_bytes();
    let mut comm = [0u8; 16];
    for (c, b) in comm.iter_mut().zip(name) {
        *c = *b;
    }
    let rest = &line[close + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let n = |i: usize| -> Option<u64> { f.get(i - 3)?.parse().ok() };
    Some(Stat {
        comm,
        ppid: n(4)? as u32,
        own: n(14)? + n(15)?,
        reaped: n(16)? + n(17)?,
        start: n(22)?,
        rss_pages: n(24)?,
    })
}

#[derive(Debug, Clone)]
struct Tracked {
    kind: Kind,
    /// The command name it was classified under: a child is first seen
    /// between its fork and its exec, as its parent, and is classified
    /// again once it has become what it runs.
    comm: [u8; 16],
    /// A sandbox's `bwrap`, charged to what it wraps but no process of its
    /// own when memory is read.
    wrapper: bool,
    parent: (u32, u64),
    /// The last sample's own + reaped ticks: what reaping it will move.
    last_total: u64,
    last_reaped: u64,
    rss_bytes: u64,
}

#[derive(Default)]
struct State {
    /// Live processes by (pid, start time), so a reused pid is a new one.
    live: HashMap<(u32, u64), Tracked>,
    /// Ticks charged to each kind for processes that have ended.
    ended: BTreeMap<Kind, f64>,
    /// Ticks of children that lived and died between two samples.
    unseen: BTreeMap<Kind, f64>,
    processes: BTreeMap<Kind, usize>,
}

/// The figures of one metered stretch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CpuTally {
    /// CPU seconds by kind, the harness's own included.
    pub seconds: BTreeMap<Kind, f64>,
    /// Processes seen by kind.
    pub processes: BTreeMap<Kind, usize>,
}

impl CpuTally {
    pub fn total(&self) -> f64 {
        self.seconds.values().sum()
    }

    pub fn of(&self, kind: Kind) -> f64 {
        self.seconds.get(&kind).copied().unwrap_or(0.0)
    }

    /// What was spent since `earlier`, a tally of the same meter.
    pub fn since(&self, earlier: &CpuTally) -> CpuTally {
        CpuTally {
            seconds: self
                .seconds
                .iter()
                .map(|(k, v)| (*k, (v - earlier.of(*k)).max(0.0)))
                .collect(),
            processes: self.processes.clone(),
        }
    }
}

/// A running meter over this process and everything under it.
pub struct CpuMeter {
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    own_start: f64,
    ticks: f64,
    page: u64,
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn argv(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            b.split(|c| *c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn all_stats() -> HashMap<u32, Stat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    dir.filter_map(|e| {
        let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        Some((
            pid,
            parse_stat(&read(
                &Path::new("/proc").join(pid.to_string()).join("stat"),
            )?)?,
        ))
    })
    .collect()
}

/// This process's own CPU in ticks (every thread), from `/proc/self/stat`.
fn own_ticks() -> u64 {
    read(Path::new("/proc/self/stat"))
        .and_then(|l| parse_stat(&l))
        .map_or(0, |s| s.own)
}

fn sample(state: &mut State, root: u32) {
    let stats = all_stats();
    if !stats.contains_key(&root) {
        return;
    }
    // The tree under `root`: walk parents up until the root or the top.
    let mut under: HashMap<u32, bool> = HashMap::from([(root, true)]);
    fn is_under(pid: u32, stats: &HashMap<u32, Stat>, under: &mut HashMap<u32, bool>) -> bool {
        if let Some(v) = under.get(&pid) {
            return *v;
        }
        let v = match stats.get(&pid) {
            Some(s) if s.ppid > 1 && s.ppid != pid => is_under(s.ppid, stats, under),
            _ => false,
        };
        under.insert(pid, v);
        v
    }
    let mut now: HashMap<(u32, u64), Tracked> = HashMap::new();
    for (&pid, s) in &stats {
        if !is_under(pid, &stats, &mut under) {
            continue;
        }
        let key = (pid, s.start);
        let parent_start = stats.get(&s.ppid).map_or(0, |p| p.start);
        let (kind, wrapper) = match state.live.get(&key) {
            Some(t) if t.comm == s.comm => (t.kind, t.wrapper),
            _ if pid == root => (Kind::Harness, false),
            _ => {
                let argv = argv(pid);
                let wrapper = argv
                    .first()
                    .is_some_and(|a| a.rsplit('/').next() == Some("bwrap"));
                (Kind::of(&argv), wrapper)
            }
        };
        match state.live.get(&key) {
            None => *state.processes.entry(kind).or_default() += 1,
            Some(t) if t.kind != kind => {
                let was = state.processes.entry(t.kind).or_default();
                *was = was.saturating_sub(1);
                *state.processes.entry(kind).or_default() += 1;
            }
            Some(_) => {}
        }
        now.insert(
            key,
            Tracked {
                kind,
                comm: s.comm,
                wrapper,
                parent: (s.ppid, parent_start),
                last_total: s.own + s.reaped,
                last_reaped: s.reaped,
                rss_bytes: s.rss_pages,
            },
        );
    }
    // Charge what each parent reaped this interval to its vanished children.
    let mut vanished: HashMap<(u32, u64), Vec<Tracked>> = HashMap::new();
    for (key, t) in &state.live {
        if !now.contains_key(key) {
            vanished.entry(t.parent).or_default().push(t.clone());
        }
    }
    for (key, t) in &now {
        let Some(before) = state.live.get(key) else {
            continue;
        };
        let grown = t.last_reaped.saturating_sub(before.last_reaped) as f64;
        let gone = vanished.remove(key).unwrap_or_default();
        charge(state, &gone, grown, t.kind);
    }
    // Children of a parent that vanished too: their last samples.
    for gone in vanished.into_values() {
        for g in gone {
            *state.ended.entry(g.kind).or_default() += g.last_total as f64;
        }
    }
    state.live = now;
}

fn charge(state: &mut State, gone: &[Tracked], grown: f64, parent: Kind) {
    let last: f64 = gone.iter().map(|g| g.last_total as f64).sum();
    if gone.is_empty() {
        if grown > 0.0 {
            *state.unseen.entry(parent).or_default() += grown;
        }
        return;
    }
    // What the reaping moved beyond the last samples, shared by weight (or
    // evenly when none had spent a tick yet).
    let extra = (grown - last).max(0.0);
    for g in gone {
        let share = if last > 0.0 {
            g.last_total as f64 / last
        } else {
            1.0 / gone.len() as f64
        };
        *state.ended.entry(g.kind).or_default() += g.last_total as f64 + extra * share;
    }
}

impl CpuMeter {
    /// Start metering this process and everything it starts from now on
    /// (what live children spent before now is left out).
    pub fn start() -> CpuMeter {
        // SAFETY: sysconf reads a constant of the system.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        // SAFETY: as above.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as u64;
        let root = std::process::id();
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        {
            let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
            sample(&mut s, root);
            // A child alive now is charged only what it spends from now on.
            let live: Vec<(Kind, u64)> = s.live.values().map(|t| (t.kind, t.last_total)).collect();
            for (kind, total) in live {
                *s.ended.entry(kind).or_default() -= total as f64;
            }
            s.processes.clear();
        }
        let thread = {
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(INTERVAL);
                    let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
                    sample(&mut s, root);
                }
            })
        };
        CpuMeter {
            state,
            stop,
            thread: Some(thread),
            own_start: own_ticks() as f64,
            ticks,
            page,
        }
    }

    /// The resident memory of each live process of `kind` now, in bytes,
    /// as of the last sample.
    pub fn rss(&self, kind: Kind) -> Vec<u64> {
        let s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut v: Vec<u64> = s
            .live
            .values()
            // A probe ending reads 0 pages (a zombie's statm) before it is
            // reaped: it holds no memory to report.
            .filter(|t| t.kind == kind && !t.wrapper && t.rss_bytes > 0)
            .map(|t| t.rss_bytes * self.page)
            .collect();
        v.sort_unstable();
        v
    }

    /// Stop and give the figures: one last sample, live children at their
    /// last sample, the harness's own time from its start.
    pub fn finish(mut self) -> CpuTally {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.now()
    }

    /// The figures so far, from a sample taken now; the meter goes on.
    pub fn now(&self) -> CpuTally {
        let own = own_ticks() as f64 - self.own_start;
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        sample(&mut s, std::process::id());
        let mut ticks: BTreeMap<Kind, f64> = s.ended.clone();
        for (k, v) in &s.unseen {
            *ticks.entry(*k).or_default() += v;
        }
        for t in s.live.values().filter(|t| t.kind != Kind::Harness) {
            *ticks.entry(t.kind).or_default() += t.last_total as f64;
        }
        // The harness's own is read directly; what it reaped is its
        // children's, charged above.
        ticks.insert(Kind::Harness, own);
        CpuTally {
            seconds: ticks
                .into_iter()
                .map(|(k, v)| (k, v.max(0.0) / self.ticks))
                .collect(),
            processes: s.processes.clone(),
        }
    }
}

impl Drop for CpuMeter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_past_a_command_with_spaces_and_parentheses() {
        let line = "4242 (node (probe) x) S 17 4242 4242 0 -1 4194304 100 0 0 0 \
                    250 50 7 3 20 0 11 0 98765 1000000 2500 18446744073709551615";
        let s = parse_stat(line).unwrap();
        assert_eq!(
            s,
            Stat {
                comm: *b"node (probe) x\0\0",
                ppid: 17,
                own: 300,
                reaped: 10,
                start: 98765,
                rss_pages: 2500
            }
        );
    }

    #[test]
    fn kinds_come_from_the_command_line() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            Kind::of(&v(&["/x/bin/node", "/w/node-probe/probe.mjs", "/i"])),
            Kind::Probe
        );
        assert_eq!(
            Kind::of(&v(&[
                "/w/target/release/mastra-conform",
                "mcp-server",
                "/t/mcp-0.json"
            ])),
            Kind::McpServer
        );
        assert_eq!(
            Kind::of(&v(&["/c/node", "/c/pnpm/dist/pnpm.cjs", "install"])),
            Kind::Install
        );
        assert_eq!(Kind::of(&v(&["/bin/sh", "-c", "true"])), Kind::Other);
    }

    #[test]
    fn a_child_reaped_between_samples_is_charged_its_whole_time() {
        let mut state = State::default();
        let gone = Tracked {
            kind: Kind::McpServer,
            comm: [0; 16],
            wrapper: false,
            parent: (10, 1),
            last_total: 4,
            last_reaped: 0,
            rss_bytes: 0,
        };
        // The parent's reaped time grew by 9 ticks: the 4 last seen and 5
        // spent after the last sample.
        charge(&mut state, &[gone], 9.0, Kind::Probe);
        assert_eq!(state.ended.get(&Kind::McpServer), Some(&9.0));
        // Growth with no vanished child: a child never sampled.
        charge(&mut state, &[], 3.0, Kind::Probe);
        assert_eq!(state.unseen.get(&Kind::Probe), Some(&3.0));
    }

    #[test]
    fn a_real_child_is_metered_by_kind() {
        let meter = CpuMeter::start();
        // A shell that burns CPU for a while and is reaped by us.
        let status = std::process::Command::new("/bin/sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap();
        assert!(status.success());
        let tally = meter.finish();
        assert!(
            tally.of(Kind::Other) > 0.05,
            "the shell's CPU is charged to `other`: {tally:?}"
        );
        assert!(tally.of(Kind::Probe) == 0.0, "{tally:?}");
    }
}
