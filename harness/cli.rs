//! The raw command line (clap derive). Nothing below `commands` sees these
//! types: they become a `Config` and validated values there.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "mastra-conform",
    version,
    about = "Differential conformance harness for @mastra/core's tool naming"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone)]
pub struct ProbeFlags {
    /// Cases in flight per probe.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Seconds one case may take before its probe is ended.
    #[arg(long, default_value_t = 30)]
    pub case_timeout: u64,
    /// The version cache (default: $MASTRA_CONFORM_CACHE, else
    /// $XDG_CACHE_HOME/mastra-conform, else ~/.cache/mastra-conform).
    #[arg(long)]
    pub cache: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the model's projection of a case on a version.
    Predict {
        case: PathBuf,
        #[arg(long = "mastra-version")]
        mastra_version: String,
    },
    /// Run a case on the real @mastra/core and print the observed projection.
    Observe {
        case: PathBuf,
        #[arg(long = "mastra-version")]
        mastra_version: String,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Run case files on versions and compare the model with what Mastra does.
    Run {
        /// A case file or a folder of them (repeatable; default: cases/).
        #[arg(long = "cases")]
        cases: Vec<PathBuf>,
        /// Versions: exact, `pinned`, `latest`, `all`, or a range, comma-separated.
        #[arg(long, default_value = "pinned")]
        versions: String,
        /// Write the JSON report here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// An unavailable version is a failure (exit 3).
        #[arg(long)]
        strict: bool,
        /// Write each case's normalised request bodies (the snapshot text) to
        /// DIR/VERSION__CASE.txt.
        #[arg(long)]
        bodies: Option<PathBuf>,
        /// Run only slice K of N (deterministic, weighed by measured cost).
        #[arg(long)]
        shard: Option<String>,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Show how a sharded run splits its work, and each slice's projected
    /// time from the measured per-version costs (node-probe/costs.json).
    Plan {
        #[arg(long, default_value = "all")]
        versions: String,
        /// The number of shards (runners).
        #[arg(long, default_value_t = 1)]
        shards: u32,
    },
    /// Combine the JSON reports of the slices of a sharded run into one.
    Merge {
        /// The shard reports.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// The folder for the merged report.json, report.xml, report.md and
        /// report.html.
        #[arg(long, default_value = "target/merged")]
        out: PathBuf,
    },
    /// Run the corpus over many versions and record where behaviour changes
    /// between neighbouring releases (SWEEP.md).
    Sweep {
        #[arg(long = "cases")]
        cases: Vec<PathBuf>,
        #[arg(long, default_value = "all")]
        versions: String,
        /// The Markdown record.
        #[arg(long, default_value = "SWEEP.md")]
        out: PathBuf,
        /// Also write the JSON report here.
        #[arg(long)]
        json: Option<PathBuf>,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Measure the harness end to end against the in-process ceiling.
    Bench {
        /// The version to measure on.
        #[arg(long = "mastra-version", default_value = "1.67.0")]
        mastra_version: String,
        /// How many times the corpus is repeated in the workload.
        #[arg(long, default_value_t = 10)]
        repeat: usize,
        /// Case files or folders (default: cases/).
        #[arg(long = "cases")]
        cases: Vec<PathBuf>,
        /// Also write the figures as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Generate cases from a seed, run them like the corpus, and shrink and
    /// save every divergence under cases/found/ (replayed first next time).
    Fuzz {
        /// The same seed gives the same cases on every machine.
        #[arg(long)]
        seed: u64,
        /// How many cases to generate.
        #[arg(long, default_value_t = 1000)]
        count: u64,
        /// Versions: exact, `pinned`, `latest`, `all`, or a range, comma-separated.
        #[arg(long, default_value = "pinned")]
        versions: String,
        /// Where findings are saved and replayed from (default: cases/found).
        #[arg(long)]
        found: Option<PathBuf>,
        /// Also run the in-process ceiling on the same cases, for the ratio.
        #[arg(long)]
        ceiling: bool,
        /// Run only slice K of N of the generated cases (case indices K-1
        /// modulo N: disjoint streams, each reproducible alone).
        #[arg(long)]
        shard: Option<String>,
        /// Write the JSON report here.
        #[arg(long)]
        json: Option<PathBuf>,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Show what tool keys become on the wire, and what breaks.
    Lint {
        /// Tool keys, in registration order.
        keys: Vec<String>,
        /// A JSON file: an array of keys, or { "keys": [...], "toolChoice":
        /// NAME, "activeTools": [...], "prompt": [...] } (lone surrogates allowed).
        #[arg(long)]
        file: Option<PathBuf>,
        /// The name a named toolChoice uses.
        #[arg(long = "tool-choice")]
        tool_choice: Option<String>,
        /// A name activeTools uses (repeatable).
        #[arg(long = "active-tool")]
        active_tools: Vec<String>,
        /// A tool name a prompt mentions (repeatable).
        #[arg(long = "prompt-name")]
        prompt_names: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Find the first published version whose result for a case differs
    /// from --good's.
    Bisect {
        case: PathBuf,
        #[arg(long)]
        good: String,
        #[arg(long)]
        bad: String,
        /// Compare projections, or whole normalised request bodies.
        #[arg(long, value_enum, default_value = "projection")]
        on: crate::bisect::On,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Say, for each version, whether a known upstream issue is present or
    /// fixed (`known-issues.json`).
    Verify {
        /// An issue id, or `all`.
        issue: String,
        /// Versions: exact, `pinned`, `latest`, `all`, or a range, comma-separated.
        #[arg(long, default_value = "pinned,latest")]
        versions: String,
        /// Write the per-version, per-case states here.
        #[arg(long)]
        json: Option<PathBuf>,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// The nightly job: the corpus (with saved fuzz finds) and a fuzz
    /// budget across versions; every result written as it completes, then
    /// JSON, JUnit, Markdown and HTML reports.
    Matrix {
        /// A case file or a folder of them (repeatable; default: cases/).
        #[arg(long = "cases")]
        cases: Vec<PathBuf>,
        /// Versions: exact, `pinned`, `latest`, `all`, or a range, comma-separated.
        #[arg(long, default_value = "pinned,latest")]
        versions: String,
        /// The folder for results.jsonl and the reports.
        #[arg(long, default_value = "target/matrix")]
        out: PathBuf,
        /// Generated cases to add (the fuzz budget).
        #[arg(long, default_value_t = 0)]
        fuzz_count: usize,
        /// The fuzz seed (recorded in the report).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// An unavailable version is a failure (exit 3).
        #[arg(long)]
        strict: bool,
        /// Run only slice K of N (deterministic, weighed by measured cost).
        #[arg(long)]
        shard: Option<String>,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Render JUnit, Markdown and HTML from a report.json or results.jsonl.
    Report {
        input: PathBuf,
        #[arg(long, default_value = "target/matrix")]
        out: PathBuf,
    },
    /// What regressed, was fixed, is new or is gone between two JSON reports.
    Compare { old: PathBuf, new: PathBuf },
}
