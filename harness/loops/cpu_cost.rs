//! `bench`'s account of where the cores go: the workload run once more under
//! the `CpuMeter`, its plain cases apart from its MCP cases (and each of
//! those with approval, memory or tracing alone), with the CPU
//! seconds of each kind of process (the harness, the probes, the MCP
//! servers, installs) per result, and each probe's resident memory after
//! the first hundred results and at the last.

use crate::case::Case;
use crate::js::json::Json;
use crate::observe::cpu::{CpuMeter, CpuTally, Kind};
use crate::observe::pool::{GROWTH_HEAP_PERCENT, GROWTH_PING_EVERY, RECYCLE_GROWTH};
use crate::run::session::Session;
use crate::version::spec::MastraVersion;
use std::time::Instant;

/// Results before the first memory reading: past the probes' start and
/// warm-up, early enough to be the baseline growth is measured from.
pub const RSS_BASELINE_AFTER: usize = 100;

#[derive(Debug, Clone)]
pub struct Part {
    /// `plain` or `mcp`.
    pub name: &'static str,
    pub results: usize,
    pub wall: f64,
    pub cpu: CpuTally,
}

impl Part {
    pub fn per_result(&self) -> f64 {
        self.cpu.total() / self.results.max(1) as f64
    }
}

/// The probes' memory over one metered run of the whole workload, under
/// one recycling policy.
#[derive(Debug, Clone)]
pub struct Memory {
    /// `size` (replaced only past `recycle_rss`, the default) or `growth`
    /// (also past `pool::RECYCLE_GROWTH` times their reading after their
    /// share of the first `RSS_BASELINE_AFTER` results, a replacement
    /// measured against its predecessor's).
    pub policy: &'static str,
    pub results: usize,
    pub cpu: CpuTally,
    /// Probe processes started, the first ones included.
    pub starts: u32,
    /// Each probe's RSS in bytes after `RSS_BASELINE_AFTER` results of the
    /// whole workload, and at the last result every probe was still live
    /// (at the very last, a probe done with its share may be ending).
    pub rss_first: Vec<u64>,
    pub rss_last: Vec<u64>,
}

impl Memory {
    /// The largest probe's growth from the first reading to the last.
    pub fn rss_growth(&self) -> Option<f64> {
        let first = *self.rss_first.iter().max()? as f64;
        let last = *self.rss_last.iter().max()? as f64;
        Some(last / first.max(1.0) - 1.0)
    }

    pub fn per_result(&self) -> f64 {
        self.cpu.total() / self.results.max(1) as f64
    }
}

#[derive(Debug, Clone)]
pub struct CpuCost {
    pub parts: Vec<Part>,
    /// The default policy (`size`) first, then recycling by growth.
    pub memory: Vec<Memory>,
}

fn is_mcp(c: &Case) -> bool {
    c.sources.mcp.is_some()
}

/// The kinds of case that cost a probe the most (a `Mastra` with storage or
/// observability, a memory store built for the case, held and resumed
/// runs): more of the MCP cases are of them than of the plain ones.
fn of_the_heavy_kinds(c: &Case) -> bool {
    c.drives_approval() || c.sources.memory.is_some() || c.tracing
}

/// The parts of the workload metered apart: the bar's two, then the same
/// two of the heavy kinds alone, an additional figure of how much of the
/// MCP cases' cost is their mix.
pub const PLAIN_HEAVY: &str = "plain, with approval, memory or tracing";
pub const MCP_HEAVY: &str = "mcp, with approval, memory or tracing";

/// One metered run of `cases` (fresh probes: the pool starts them per run),
/// counted from its first result, so that the probes' start (Node and the
/// import of Mastra, paid once a probe) is left out as in every rate of
/// the bench: the results after the first, their wall time and their CPU.
fn metered(
    session: &mut Session,
    version: MastraVersion,
    cases: &[Case],
    mut at: impl FnMut(usize, &CpuMeter),
) -> Result<(usize, f64, CpuTally, u32), String> {
    let meter = CpuMeter::start();
    let mut first: Option<(Instant, CpuTally)> = None;
    let mut n = 0;
    let stats = session.run_version(version, cases, |_| {
        n += 1;
        if n == 1 {
            first = Some((Instant::now(), meter.now()));
        }
        at(n, &meter);
    });
    let tally = meter.finish();
    if let Some(outcome) = stats.outcome {
        return Err(outcome);
    }
    let (t, base) = first.ok_or("a metered run gave no result")?;
    Ok((
        n.saturating_sub(1),
        t.elapsed().as_secs_f64(),
        tally.since(&base),
        stats.pool.starts,
    ))
}

/// The workload's CPU by process kind, plain and MCP cases apart, and the
/// probes' memory over the whole of it, replaced as they grow and not.
pub fn cpu_cost(
    session: &mut Session,
    version: MastraVersion,
    workload: &[Case],
) -> Result<CpuCost, String> {
    let (mcp, plain): (Vec<Case>, Vec<Case>) = workload.iter().cloned().partition(is_mcp);
    let heavy = |cases: &[Case]| -> Vec<Case> {
        cases
            .iter()
            .filter(|c| of_the_heavy_kinds(c))
            .cloned()
            .collect()
    };
    let (plain_heavy, mcp_heavy) = (heavy(&plain), heavy(&mcp));
    let mut parts = Vec::new();
    for (name, cases) in [
        ("plain", &plain),
        ("mcp", &mcp),
        (PLAIN_HEAVY, &plain_heavy),
        (MCP_HEAVY, &mcp_heavy),
    ] {
        if cases.is_empty() {
            continue;
        }
        let (results, wall, cpu, _) = metered(session, version, cases, |_, _| {})?;
        parts.push(Part {
            name,
            results,
            wall,
            cpu,
        });
    }
    let configured = session.config.pool.clone();
    let mut memory = Vec::new();
    for (policy, growth) in [("size", None), ("growth", Some(RECYCLE_GROWTH))] {
        if growth.is_some() {
            // Each probe's baseline where this account reads it: after
            // `RSS_BASELINE_AFTER` results of the whole workload, its share
            // of them, and read often enough to replace it soon after it
            // passes the bound.
            let pool = &mut session.config.pool;
            pool.recycle_growth = growth;
            pool.ping_every = GROWTH_PING_EVERY;
            pool.baseline_after = RSS_BASELINE_AFTER / pool.probes.max(1);
            pool.heap_growing_percent = Some(GROWTH_HEAP_PERCENT);
        }
        let run = memory_run(session, version, workload, policy);
        session.config.pool = configured.clone();
        memory.push(run?);
    }
    Ok(CpuCost { parts, memory })
}

/// One metered run of the whole workload, the probes' RSS read after the
/// first `RSS_BASELINE_AFTER` results and at the last.
fn memory_run(
    session: &mut Session,
    version: MastraVersion,
    workload: &[Case],
    policy: &'static str,
) -> Result<Memory, String> {
    let (mut rss_first, mut rss_last) = (Vec::new(), Vec::new());
    let total = workload.len();
    let (results, _, cpu, starts) = metered(session, version, workload, |n, meter| {
        if n == RSS_BASELINE_AFTER.min(total) {
            rss_first = meter.rss(Kind::Probe);
        }
        // The last reading with every probe of the baseline still live: at
        // the very last result a probe done with its share may be ending.
        let now = meter.rss(Kind::Probe);
        if n >= RSS_BASELINE_AFTER.min(total) && now.len() >= rss_first.len() {
            rss_last = now;
        }
    })?;
    Ok(Memory {
        policy,
        results,
        cpu,
        starts,
        rss_first,
        rss_last,
    })
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn rss_list(v: &[u64]) -> String {
    v.iter()
        .map(|b| format!("{:.0}", mb(*b)))
        .collect::<Vec<_>>()
        .join(", ")
}

impl CpuCost {
    /// The MCP cases' CPU per result over the plain cases'.
    pub fn mcp_ratio(&self) -> Option<f64> {
        let of = |n: &str| self.parts.iter().find(|p| p.name == n);
        Some(of("mcp")?.per_result() / of("plain")?.per_result().max(1e-9))
    }

    /// The largest probe's growth under the default policy.
    pub fn rss_growth(&self) -> Option<f64> {
        self.memory.first()?.rss_growth()
    }

    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for p in &self.parts {
            let kinds: Vec<String> = Kind::ALL
                .iter()
                .map(|k| format!("{} {:.2}s", k.name(), p.cpu.of(*k)))
                .collect();
            out.push_str(&format!(
                "cpu, {} cases: {} results in {:.1}s wall, {:.1} ms CPU a result ({})\n",
                p.name,
                p.results,
                p.wall,
                p.per_result() * 1e3,
                kinds.join(", ")
            ));
        }
        for m in &self.memory {
            out.push_str(&format!(
                "probes recycled by {}: {:.1} ms CPU a result, {} processes; RSS after \
                 {RSS_BASELINE_AFTER} results: {} MB; at the end: {} MB\n",
                m.policy,
                m.per_result() * 1e3,
                m.starts,
                rss_list(&m.rss_first),
                rss_list(&m.rss_last)
            ));
        }
        out
    }

    pub fn to_json(&self) -> Json {
        let n = |x: f64| Json::Number(format!("{x:.6}"));
        let ints = |v: &[u64]| Json::Array(v.iter().map(|b| Json::int(*b as i64)).collect());
        let part = |p: &Part| {
            Json::object([
                ("name", Json::str(p.name)),
                ("results", Json::int(p.results as i64)),
                ("wallSeconds", n(p.wall)),
                ("cpuSecondsPerResult", n(p.per_result())),
                (
                    "cpuSeconds",
                    Json::object(Kind::ALL.map(|k| (k.name(), n(p.cpu.of(k))))),
                ),
                (
                    "processes",
                    Json::object(Kind::ALL.map(|k| {
                        (
                            k.name(),
                            Json::int(*p.cpu.processes.get(&k).unwrap_or(&0) as i64),
                        )
                    })),
                ),
            ])
        };
        let memory = |m: &Memory| {
            Json::object([
                ("recycledBy", Json::str(m.policy)),
                ("results", Json::int(m.results as i64)),
                ("cpuSecondsPerResult", n(m.per_result())),
                ("probeStarts", Json::int(i64::from(m.starts))),
                ("probeRssFirst", ints(&m.rss_first)),
                ("probeRssLast", ints(&m.rss_last)),
            ])
        };
        Json::object([
            ("parts", Json::Array(self.parts.iter().map(part).collect())),
            ("rssBaselineAfter", Json::int(RSS_BASELINE_AFTER as i64)),
            ("recycleGrowth", n(RECYCLE_GROWTH)),
            (
                "memory",
                Json::Array(self.memory.iter().map(memory).collect()),
            ),
        ])
    }
}

/// The figures' section on `cpu` (a `CpuCost::to_json` document).
pub fn markdown(cpu: &Json) -> Result<String, String> {
    let get = |v: &Json, at: &str, k: &str| -> Result<f64, String> {
        v.get(k)
            .and_then(Json::as_f64)
            .ok_or_else(|| format!("{at}{k}: missing or not a number"))
    };
    let parts = cpu
        .get("parts")
        .and_then(Json::as_array)
        .ok_or("cpu.parts: missing or not an array")?;
    let mut out = String::from(
        "\n## Where the cores go\n\n\
         The workload once more under a meter of `/proc` (`observe::cpu`), counted from its first \
         result (the probes' start left out, as in every rate above), its plain cases apart \
         from its MCP cases, then each of those with approval, memory or tracing alone: CPU \
         seconds by kind of process, a reaped child charged its whole time through its \
         parent's reaped time.\n\n\
         | cases | results | wall s | CPU ms a result | harness s | probes s | MCP servers s | installs s | other s |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut per: Vec<(String, f64)> = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let at = format!("cpu.parts[{i}].");
        let name = p
            .get("name")
            .and_then(Json::as_str)
            .map(|s| s.to_lossy())
            .ok_or_else(|| format!("{at}name: missing"))?;
        let secs = p
            .get("cpuSeconds")
            .ok_or_else(|| format!("{at}cpuSeconds: missing"))?;
        let k = |kind: Kind| get(secs, &format!("{at}cpuSeconds."), kind.name());
        let per_result = get(p, &at, "cpuSecondsPerResult")?;
        out.push_str(&format!(
            "| {name} | {} | {:.1} | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |\n",
            get(p, &at, "results")?,
            get(p, &at, "wallSeconds")?,
            per_result * 1e3,
            k(Kind::Harness)?,
            k(Kind::Probe)?,
            k(Kind::McpServer)?,
            k(Kind::Install)?,
            k(Kind::Other)?,
        ));
        per.push((name, per_result));
    }
    let of = |n: &str| per.iter().find(|(p, _)| p == n).map(|(_, v)| *v);
    if let (Some(m), Some(p)) = (of("mcp"), of("plain")) {
        out.push_str(&format!(
            "\nMCP cases ÷ plain cases, CPU a result: {:.2}\n",
            m / p.max(1e-9)
        ));
    }
    if let (Some(m), Some(p)) = (of(MCP_HEAVY), of(PLAIN_HEAVY)) {
        out.push_str(&format!(
            "\nAn additional figure, not the one above: the MCP cases with approval, memory or \
             tracing ÷ the plain cases with approval, memory or tracing, CPU a result: {:.2} \
             (more of the MCP cases are of those kinds than of the plain ones)\n",
            m / p.max(1e-9)
        ));
    }
    out.push_str(&memory_markdown(cpu)?);
    Ok(out)
}

/// The figures' table of the probes' memory, one row a recycling policy.
fn memory_markdown(cpu: &Json) -> Result<String, String> {
    let num = |v: &Json, at: &str, k: &str| -> Result<f64, String> {
        v.get(k)
            .and_then(Json::as_f64)
            .ok_or_else(|| format!("{at}{k}: missing or not a number"))
    };
    let runs = cpu
        .get("memory")
        .and_then(Json::as_array)
        .ok_or("cpu.memory: missing or not an array")?;
    let after = num(cpu, "cpu.", "rssBaselineAfter")?;
    let growth_limit = num(cpu, "cpu.", "recycleGrowth")?;
    let mut out = format!(
        "\nThe whole workload twice more, each probe's RSS read after {after} results and at the \
         last: once as a run replaces them (only past a fixed limit), once also replaced between \
         cases when their memory passes {growth_limit} times their reading after their share of \
         those {after} (a replacement measured against the reading of the process it replaced), \
         read every {GROWTH_PING_EVERY} cases, with Node's `--heap-growing-percent=\
         {GROWTH_HEAP_PERCENT}`.\n\n\
         | probes replaced | CPU ms a result | probe processes | RSS after {after} results, MB | \
         at the last, MB | growth (the largest) |\n|---|---:|---:|---|---|---:|\n"
    );
    for (i, m) in runs.iter().enumerate() {
        let at = format!("cpu.memory[{i}].");
        let policy = match m
            .get("recycledBy")
            .and_then(Json::as_str)
            .map(|s| s.to_lossy())
        {
            Some(p) if p == "growth" => format!("past {growth_limit}× their reading after {after}"),
            Some(p) if p == "size" => "only past the fixed limit (a run's default)".to_string(),
            other => return Err(format!("{at}recycledBy: {other:?} is not growth or size")),
        };
        let list = |k: &str| -> Result<Vec<f64>, String> {
            m.get(k)
                .and_then(Json::as_array)
                .ok_or_else(|| format!("{at}{k}: missing or not an array"))?
                .iter()
                .map(|b| b.as_f64().ok_or_else(|| format!("{at}{k}: not a number")))
                .collect()
        };
        let (first, last) = (list("probeRssFirst")?, list("probeRssLast")?);
        let show = |v: &[f64]| {
            v.iter()
                .map(|b| format!("{:.0}", b / 1e6))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let growth = match (
            first.iter().cloned().reduce(f64::max),
            last.iter().cloned().reduce(f64::max),
        ) {
            (Some(f), Some(l)) => format!("{:+.0} %", (l / f.max(1.0) - 1.0) * 100.0),
            _ => "-".into(),
        };
        out.push_str(&format!(
            "| {policy} | {:.2} | {} | {} | {} | {growth} |\n",
            num(m, &at, "cpuSecondsPerResult")? * 1e3,
            num(m, &at, "probeStarts")?,
            show(&first),
            show(&last),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(policy: &'static str, starts: u32, first: u64, last: u64) -> Memory {
        let mut cpu = CpuTally::default();
        cpu.seconds.insert(Kind::Probe, 0.25);
        Memory {
            policy,
            results: 10,
            cpu,
            starts,
            rss_first: vec![first, first / 2],
            rss_last: vec![last, last / 2],
        }
    }

    #[test]
    fn each_recycling_policy_is_a_row_with_its_growth() {
        let cost = CpuCost {
            parts: Vec::new(),
            memory: vec![
                memory("size", 2, 300_000_000, 900_000_000),
                memory("growth", 11, 300_000_000, 330_000_000),
            ],
        };
        assert_eq!(cost.rss_growth().map(|g| (g * 100.0).round()), Some(200.0));
        let md = markdown(&cost.to_json()).unwrap();
        assert!(
            md.contains("| only past the fixed limit (a run's default) | 25.00 | 2 | 300, 150 | 900, 450 | +200 % |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| past 1.2× their reading after 100 | 25.00 | 11 | 300, 150 | 330, 165 | +10 % |"
            ),
            "{md}"
        );
    }

    fn part(name: &'static str, results: usize, probe_seconds: f64) -> Part {
        let mut cpu = CpuTally::default();
        cpu.seconds.insert(Kind::Probe, probe_seconds);
        Part {
            name,
            results,
            wall: 1.0,
            cpu,
        }
    }

    #[test]
    fn the_heavy_kinds_ratio_is_a_line_apart_from_the_bars() {
        let cost = CpuCost {
            parts: vec![
                part("plain", 100, 1.0),
                part("mcp", 10, 0.2),
                part(PLAIN_HEAVY, 40, 0.8),
                part(MCP_HEAVY, 5, 0.11),
            ],
            memory: Vec::new(),
        };
        let md = markdown(&cost.to_json()).unwrap();
        assert!(
            md.contains("MCP cases ÷ plain cases, CPU a result: 2.00\n"),
            "{md}"
        );
        assert!(
            md.contains("÷ the plain cases with approval, memory or tracing, CPU a result: 1.10 "),
            "{md}"
        );
        assert!(
            md.contains("| mcp, with approval, memory or tracing | 5 | 1.0 | 22.00 |"),
            "{md}"
        );
    }

    #[test]
    fn a_policy_the_table_does_not_know_is_named_in_the_error() {
        let json = Json::object([
            ("rssBaselineAfter", Json::int(100)),
            ("recycleGrowth", Json::int(2)),
            (
                "memory",
                Json::Array(vec![Json::object([("recycledBy", Json::str("age"))])]),
            ),
        ]);
        let err = memory_markdown(&json).unwrap_err();
        assert!(err.contains("cpu.memory[0].recycledBy"), "{err}");
    }
}
