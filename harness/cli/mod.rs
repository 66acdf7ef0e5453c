//! The command line: clap's flags, parsed straight into domain types
//! (`MastraVersion`, `VersionList`, `Shard`, `On`, counts with their ranges),
//! and one function per command (`run`). Nothing below this module sees a
//! flag string, prints, or picks an exit status: loops return domain values,
//! and the functions here print them and map them to an `Exit`.

mod bisect;
mod cache;
mod diff;
mod fuzz;
mod lint;
mod out;
mod repro;
mod runs;
mod single;
mod verify;

use crate::loops::bisect::On;
use crate::outcome::{Exit, Failure};
use crate::route::{Route, RouteSet};
use crate::run::config::{repo_root, Config};
use crate::run::shard::Shard;
use crate::versions::spec::{MastraVersion, Selection, VersionList, VersionSpec};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

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
    /// Cases in flight per probe (1 to 256).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// Probes (Node processes) at once, shared by the versions of a run; a
    /// version with many cases gets several, versions with few run side by
    /// side (1 to 64; default: one per available core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub probes: Option<u16>,
    /// Seconds one case may take before its probe is ended (at least 1).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub case_timeout: u64,
    /// The version cache (default: $MASTRA_CONFORM_CACHE, else
    /// $XDG_CACHE_HOME/mastra-conform, else ~/.cache/mastra-conform).
    #[arg(long)]
    pub cache: Option<PathBuf>,
}

/// How ranges and `all` read the registry.
#[derive(Debug, Args, Clone, Copy)]
pub struct SelectFlags {
    /// Ranges and `all` take prereleases too (by default they select
    /// stable releases only).
    #[arg(long)]
    pub include_prereleases: bool,
}

impl SelectFlags {
    fn selection(self) -> Selection {
        Selection {
            prereleases: self.include_prereleases,
        }
    }
}

/// Versions, in every command that takes them: exact (`1.67.0`), a
/// prerelease (`1.67.0-alpha.4`), a dist-tag, `pinned`, `latest`, `next`,
/// `all`, a range (`>=1.60.0 <1.70.0`), or a build: a packed tarball
/// (`./mastra-core-1.72.0.tgz`) or a folder holding a built @mastra/core.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the model's projection of a case on a version (a build is
    /// predicted as the release its package.json names).
    Predict {
        case: PathBuf,
        /// One version: exact, a prerelease, a dist-tag, or a build (a
        /// packed tarball or a folder).
        #[arg(long = "mastra-version")]
        mastra_version: VersionSpec,
        /// The route, when the case does not name its own.
        #[arg(long)]
        route: Option<Route>,
    },
    /// Run a case on the real @mastra/core and print the observed projection.
    Observe {
        case: PathBuf,
        /// One version: exact, a prerelease, a dist-tag, or a build (a
        /// packed tarball or a folder).
        #[arg(long = "mastra-version")]
        mastra_version: VersionSpec,
        /// The route, when the case does not name its own.
        #[arg(long)]
        route: Option<Route>,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Run case files on versions and compare the model with what Mastra does.
    Run {
        /// A case file or a folder of them (repeatable; default: cases/).
        #[arg(long = "cases")]
        cases: Vec<PathBuf>,
        /// Versions, comma-separated: exact, a prerelease, a dist-tag, `pinned`,
        /// `latest`, `next`, `all`, a range, or a build (./x.tgz, ./folder).
        #[arg(long, default_value = "pinned")]
        versions: VersionList,
        /// Write the JSON report here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write every report format (report.json, report.xml, report.md,
        /// report.html) into this folder, and end with a headline: known
        /// issues per version, divergences, what could not run, where the
        /// reports are.
        #[arg(long)]
        out: Option<PathBuf>,
        /// An unavailable version is a failure (exit 3).
        #[arg(long)]
        strict: bool,
        /// Write each case's normalised request bodies (the snapshot text) to
        /// DIR/VERSION__CASE.txt.
        #[arg(long)]
        bodies: Option<PathBuf>,
        /// Run only slice K of N (deterministic, weighed by measured cost).
        #[arg(long)]
        shard: Option<Shard>,
        /// Routes for the cases that do not name their own: one, a
        /// comma-separated list, or `all` (default: each case's own).
        #[arg(long)]
        route: Option<RouteSet>,
        #[command(flatten)]
        select: SelectFlags,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Show how a sharded run splits its work, and each slice's projected
    /// time from the measured per-version costs (node-probe/costs.json).
    Plan {
        #[arg(long, default_value = "all")]
        versions: VersionList,
        /// The number of shards (runners).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
        shards: u32,
        #[command(flatten)]
        select: SelectFlags,
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
    /// between neighbouring releases (docs/figures/sweep.md).
    Sweep {
        #[arg(long = "cases")]
        cases: Vec<PathBuf>,
        #[arg(long, default_value = "all")]
        versions: VersionList,
        /// The Markdown record.
        #[arg(long, default_value = "docs/figures/sweep.md")]
        out: PathBuf,
        /// Run nothing: sweep the results of a report already written (a
        /// `matrix` or `run` JSON report, or its results.jsonl), each
        /// observation judged again by today's model.
        #[arg(long, conflicts_with_all = ["cases", "versions", "route"])]
        from: Option<PathBuf>,
        /// Also write the JSON report here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Routes for the cases that do not name their own: one, a
        /// comma-separated list, or `all` (default: each case's own).
        #[arg(long)]
        route: Option<RouteSet>,
        #[command(flatten)]
        select: SelectFlags,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Measure the harness end to end against the in-process ceiling.
    Bench {
        /// The version to measure on.
        #[arg(long = "mastra-version", default_value = "1.67.0")]
        mastra_version: VersionSpec,
        /// How many times the corpus is repeated in the workload.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        repeat: u32,
        /// Case files or folders (default: cases/).
        #[arg(long = "cases")]
        cases: Vec<PathBuf>,
        /// Also write the figures as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Also write the figures as Markdown here, with the date, command,
        /// commit and cores (make bench: docs/figures/bench.md).
        #[arg(long)]
        markdown: Option<PathBuf>,
        /// Routes for the cases that do not name their own: one, a
        /// comma-separated list, or `all` (default: each case's own).
        #[arg(long)]
        route: Option<RouteSet>,
        /// Also run the matrix (these cases, these routes) on these versions
        /// from an empty cache, then warm: both times, each version's
        /// install time and disk.
        #[arg(long = "matrix-versions")]
        matrix_versions: Option<VersionList>,
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
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        count: u64,
        /// Versions, comma-separated: exact, a prerelease, a dist-tag, `pinned`,
        /// `latest`, `next`, `all`, a range, or a build (./x.tgz, ./folder).
        #[arg(long, default_value = "pinned")]
        versions: VersionList,
        /// Where findings are saved and replayed from (default: cases/found).
        #[arg(long)]
        found: Option<PathBuf>,
        /// Also run the in-process ceiling on the same cases, for the ratio.
        #[arg(long)]
        ceiling: bool,
        /// Run only slice K of N of the generated cases (case indices K-1
        /// modulo N: disjoint streams, each reproducible alone).
        #[arg(long)]
        shard: Option<Shard>,
        /// Write the JSON report here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Routes for the cases that do not name their own: one, a
        /// comma-separated list, or `all` (default: each case's own).
        #[arg(long)]
        route: Option<RouteSet>,
        #[command(flatten)]
        select: SelectFlags,
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
        /// Print every key, not only the problems.
        #[arg(long)]
        all: bool,
        /// Lint a Mastra project instead: load DIR with its own installed
        /// @mastra/core and lint every agent's tools.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["keys", "file", "tool_choice", "active_tools", "prompt_names"])]
        project: Option<PathBuf>,
        /// The file that exports the Mastra instance, relative to DIR
        /// (default: src/mastra/index.ts).
        #[arg(long, value_name = "FILE", requires = "project")]
        entry: Option<PathBuf>,
        /// Also write the findings as SARIF 2.1.0 to FILE (for code scanning).
        #[arg(long, value_name = "FILE", requires = "project")]
        sarif: Option<PathBuf>,
        /// Variables the project needs to load (credentials included): the
        /// loader runs with no other environment than what Node needs.
        #[arg(long = "env-file", value_name = "FILE", requires = "project")]
        env_file: Option<PathBuf>,
    },
    /// Find the first published version whose result for a case differs
    /// from --good's.
    Bisect {
        case: PathBuf,
        #[arg(long)]
        good: MastraVersion,
        #[arg(long)]
        bad: MastraVersion,
        /// Compare projections (`projection`), or whole normalised request
        /// bodies (`body`).
        #[arg(long, default_value = "projection")]
        on: On,
        /// Bisect over prereleases too, for a finer answer than releases give.
        #[arg(long)]
        include_prereleases: bool,
        /// The route, when the case does not name its own.
        #[arg(long)]
        route: Option<Route>,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Say, for each version, whether a known upstream issue is present or
    /// fixed (`known-issues.json`).
    Verify {
        /// An issue id, or `all`.
        issue: String,
        /// Versions, comma-separated: exact, a prerelease, a dist-tag, `pinned`,
        /// `latest`, `next`, `all`, a range, or a build (./x.tgz, ./folder).
        #[arg(long, default_value = "pinned,latest")]
        versions: VersionList,
        /// Write the per-version, per-case states here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Routes for the cases that do not name their own: one, a
        /// comma-separated list, or `all` (default: each case's own).
        #[arg(long)]
        route: Option<RouteSet>,
        #[command(flatten)]
        select: SelectFlags,
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
        /// Versions, comma-separated: exact, a prerelease, a dist-tag, `pinned`,
        /// `latest`, `next`, `all`, a range, or a build (./x.tgz, ./folder).
        #[arg(long, default_value = "pinned,latest")]
        versions: VersionList,
        /// The folder for results.jsonl and the reports.
        #[arg(long, default_value = "target/matrix")]
        out: PathBuf,
        /// Generated cases to add (the fuzz budget).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
        fuzz_count: u32,
        /// The fuzz seed (recorded in the report).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// An unavailable version is a failure (exit 3).
        #[arg(long)]
        strict: bool,
        /// Run only slice K of N (deterministic, weighed by measured cost).
        #[arg(long)]
        shard: Option<Shard>,
        /// Routes for the cases that do not name their own: one, a
        /// comma-separated list, or `all` (default: each case's own).
        #[arg(long)]
        route: Option<RouteSet>,
        #[command(flatten)]
        select: SelectFlags,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Every case observed on two builds, compared with each other (no
    /// model): everything a patch changes on the wire.
    Diff {
        /// The build to compare from (any one version or build).
        #[arg(long)]
        from: VersionSpec,
        /// The build to compare to.
        #[arg(long)]
        to: VersionSpec,
        /// A case file or a folder of them (repeatable; default: cases/).
        #[arg(long = "cases")]
        cases: Vec<PathBuf>,
        /// Generated cases to add, the same on both sides.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
        fuzz_count: u64,
        /// The seed of the generated cases.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the JSON report here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write the Markdown report here.
        #[arg(long)]
        markdown: Option<PathBuf>,
        /// The routes of every case that does not name its own: one, a
        /// comma-separated list, or `all`.
        #[arg(long)]
        route: Option<RouteSet>,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// Print a standalone Node script (ES module) that reproduces the known
    /// issue a case shows: plain Node beside an installed @mastra/core, its
    /// own capture server; exits 1 while the issue shows, 0 when not.
    Repro {
        /// A case file that a known issue lists, or a known issue's id (its
        /// smallest case).
        case: PathBuf,
        /// The version the script's install line names.
        #[arg(long = "mastra-version", default_value = "1.67.0")]
        mastra_version: MastraVersion,
        /// The wire route the script's agent takes (a case that names its
        /// own route keeps it).
        #[arg(long, default_value = "openai-compatible")]
        route: Route,
        /// Print a draft upstream report in Markdown instead: the issue, the
        /// smallest case, the wire body observed on --mastra-version, the
        /// repro and the fixed behaviour.
        #[arg(long)]
        upstream_report: bool,
        #[command(flatten)]
        probe: ProbeFlags,
    },
    /// What the version cache holds (`status`), or make it smaller (`prune`).
    Cache {
        #[command(subcommand)]
        action: CacheAction,
        /// The version cache (default: $MASTRA_CONFORM_CACHE, else
        /// $XDG_CACHE_HOME/mastra-conform, else ~/.cache/mastra-conform).
        #[arg(long, global = true)]
        cache: Option<PathBuf>,
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

#[derive(Debug, Subcommand)]
pub enum CacheAction {
    /// Every install (kind, last use, the bytes only it holds), the shared
    /// store, the tools, and the total on disk (hard links counted once).
    Status,
    /// Remove installs, npm installs from before the store, and the store
    /// files no install links any more. Pinned versions are always kept.
    Prune {
        /// Keep only the N most recently used registry versions.
        #[arg(long)]
        keep: Option<usize>,
        /// Also remove builds (installs of tarballs and folders).
        #[arg(long)]
        drop_builds: bool,
    },
}

impl ProbeFlags {
    /// The run's settings: defaults, then these flags.
    fn config(&self) -> Config {
        let mut c = Config::new(&repo_root());
        c.pool.concurrency = usize::from(self.concurrency);
        if let Some(n) = self.probes {
            c.pool.probes = usize::from(n);
        }
        // A timeout beyond any real run is a timeout of "never": clamp it to
        // a day rather than overflow an `Instant` later.
        c.pool.case_timeout = Duration::from_secs(self.case_timeout.min(86_400));
        if let Some(cache) = &self.cache {
            c.cache = cache.clone();
        }
        c
    }
}

/// Case paths as given, or the corpus (`cases/`) when none were.
fn case_paths(given: &[PathBuf]) -> Vec<PathBuf> {
    if given.is_empty() {
        vec![repo_root().join("cases")]
    } else {
        given.to_vec()
    }
}

/// Parse the command line and run the command. `Ok` is how it ended; `Err`
/// is why it could not run, which `main` prints as a chain.
pub fn run() -> Result<Exit, Failure> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap names the flag and the value; help and --version are not
            // errors.
            let _ = e.print();
            return Ok(if e.use_stderr() {
                Exit::BadInput
            } else {
                Exit::Ok
            });
        }
    };
    execute(cli.command)
}

fn execute(command: Command) -> Result<Exit, Failure> {
    match command {
        Command::Predict {
            case,
            mastra_version,
            route,
        } => single::predict(&case, &mastra_version, route),
        Command::Observe {
            case,
            mastra_version,
            route,
            probe,
        } => single::observe(probe.config(), &case, &mastra_version, route),
        Command::Bench {
            mastra_version,
            repeat,
            cases,
            json,
            markdown,
            route,
            matrix_versions,
            probe,
        } => single::bench(
            probe.config(),
            &mastra_version,
            repeat,
            &case_paths(&cases),
            (json.as_deref(), markdown.as_deref()),
            route,
            matrix_versions,
        ),
        Command::Run {
            cases,
            versions,
            json,
            out,
            strict,
            bodies,
            shard,
            select,
            route,
            probe,
        } => {
            let mut config = probe.config();
            config.strict = strict;
            runs::run(
                config,
                runs::plan(
                    "run",
                    &cases,
                    versions,
                    select.selection(),
                    bodies,
                    shard,
                    route,
                ),
                json.as_deref(),
                out.as_deref(),
            )
        }
        Command::Matrix {
            cases,
            versions,
            out,
            fuzz_count,
            seed,
            strict,
            shard,
            select,
            route,
            probe,
        } => {
            let mut config = probe.config();
            config.strict = strict;
            let plan = runs::plan(
                "matrix",
                &cases,
                versions,
                select.selection(),
                None,
                shard,
                route,
            );
            runs::matrix(config, plan, &out, fuzz_count, seed)
        }
        Command::Sweep {
            from: Some(from),
            out,
            ..
        } => runs::sweep_from(&from, &out),
        Command::Sweep {
            cases,
            versions,
            out,
            json,
            select,
            route,
            probe,
            from: None,
        } => runs::sweep(
            probe.config(),
            runs::plan(
                "sweep",
                &cases,
                versions,
                select.selection(),
                None,
                None,
                route,
            ),
            &out,
            json.as_deref(),
        ),
        Command::Plan {
            versions,
            shards,
            select,
        } => runs::plan_shards(versions, select.selection(), shards),
        Command::Merge { reports, out } => runs::merge(&reports, &out),
        Command::Report { input, out } => runs::report(&input, &out),
        Command::Cache { action, cache } => cache::cache(action, cache),
        Command::Compare { old, new } => runs::compare(&old, &new),
        Command::Fuzz {
            seed,
            count,
            versions,
            found,
            ceiling,
            shard,
            json,
            select,
            route,
            probe,
        } => fuzz::fuzz(
            probe.config(),
            fuzz::FuzzFlags {
                seed,
                count,
                versions,
                selection: select.selection(),
                found,
                ceiling,
                json,
                shard,
                routes: route,
            },
        ),
        Command::Lint {
            keys,
            file,
            tool_choice,
            active_tools,
            prompt_names,
            json,
            all,
            project,
            entry,
            sarif,
            env_file,
        } => match project {
            Some(dir) => lint::lint_project(lint::ProjectFlags {
                dir,
                entry,
                sarif,
                env_file,
                json,
                all,
            }),
            None => lint::lint(lint::LintFlags {
                keys,
                file,
                tool_choice,
                active_tools,
                prompt_names,
                json,
                all,
            }),
        },
        Command::Bisect {
            case,
            good,
            bad,
            on,
            include_prereleases,
            route,
            probe,
        } => bisect::bisect(
            probe.config(),
            &case,
            good,
            bad,
            on,
            include_prereleases,
            route,
        ),
        Command::Verify {
            issue,
            versions,
            json,
            select,
            route,
            probe,
        } => verify::verify(
            probe.config(),
            &issue,
            versions,
            select.selection(),
            json.as_deref(),
            route,
        ),
        Command::Diff {
            from,
            to,
            cases,
            fuzz_count,
            seed,
            json,
            markdown,
            route,
            probe,
        } => diff::diff(
            probe.config(),
            diff::DiffFlags {
                from,
                to,
                cases: case_paths(&cases),
                fuzz_count,
                seed,
                json,
                markdown,
                routes: route,
            },
        ),
        Command::Repro {
            case,
            mastra_version,
            route,
            upstream_report,
            probe,
        } => repro::repro(
            probe.config(),
            &case,
            mastra_version,
            route,
            upstream_report,
        ),
    }
}
