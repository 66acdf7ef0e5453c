//! The flag groups several commands share, each flag and its help text
//! written once here and flattened into the commands' own argument structs
//! (`RunArgs`, `FuzzArgs`, ...). Each group also says what its flags mean
//! once validated: a `Config`, the case paths, the version specs and how
//! ranges select, a case on its route, a `RunRequest`.

use crate::case::Case;
use crate::outcome::Failure;
use crate::route::{Route, RouteSet};
use crate::run::config::{repo_root, Config, Reuse};
use crate::run::corpus::RunRequest;
use crate::run::shard::Shard;
use crate::version::spec::{MastraVersion, Selection, VersionList, VersionSpec};
use clap::Args;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How cases run: probes, their concurrency and timeout, and the cache.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct ProbeArgs {
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
    #[command(flatten)]
    pub cache: CacheDirArgs,
    #[command(flatten)]
    pub predict_as: PredictAsArgs,
}

impl ProbeArgs {
    /// The run's settings: defaults, then these flags.
    pub fn config(&self) -> Config {
        let mut c = self.cache.config();
        c.predict_as = self.predict_as.predict_as;
        c.pool.concurrency = usize::from(self.concurrency);
        if let Some(n) = self.probes {
            c.pool.probes = usize::from(n);
        }
        // A timeout beyond any real run is a timeout of "never": clamp it to
        // a day rather than overflow an `Instant` later.
        c.pool.case_timeout = Duration::from_secs(self.case_timeout.min(86_400));
        c
    }
}

/// Whether a run judges stored observations again instead of observing.
#[derive(Debug, Args, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoreArgs {
    /// Observe every case, even one whose observation is stored under a key
    /// of everything it depends on (what is observed is stored still).
    #[arg(long)]
    pub fresh: bool,
}

impl StoreArgs {
    /// `config`, using the observation store as these flags say.
    pub fn on(self, config: Config) -> Config {
        Config {
            reuse: if self.fresh {
                Reuse::Fresh
            } else {
                Reuse::Stored
            },
            ..config
        }
    }
}

/// `--recheck N`: which results a run observes again.
#[derive(Debug, Args, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecheckArgs {
    /// Observe each result that diverged, crashed or timed out (with
    /// `matrix --history`, also each whose verdict or observation changed
    /// since the last night) again, fresh, up to N more times; where the
    /// tries disagree its verdict is `flaky`, not a divergence.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=100))]
    pub recheck: u32,
}

impl RecheckArgs {
    /// What the run re-checks, against the last night's states when given.
    pub fn recheck(
        self,
        since: Option<crate::run::recheck::LastNight>,
    ) -> crate::run::recheck::Recheck {
        crate::run::recheck::Recheck {
            tries: self.recheck,
            since: since.map(std::sync::Arc::new),
        }
    }
}

/// What a snapshot build no rule places is predicted as.
#[derive(Debug, Args, Clone, Copy, PartialEq, Eq)]
pub struct PredictAsArgs {
    /// The release a snapshot build (0.0.0-*) is predicted as when neither
    /// its CHANGELOG.md nor the registry's publish times say which release
    /// it was cut from.
    #[arg(long = "predict-as", value_parser = release)]
    pub predict_as: Option<MastraVersion>,
}

/// A stable release, as `--predict-as` takes it.
fn release(text: &str) -> Result<MastraVersion, String> {
    let v: MastraVersion = text.parse()?;
    if v.is_release() {
        Ok(v)
    } else {
        Err(format!(
            "{text:?} is no stable release: give the release the snapshot was cut from, like 1.58.0"
        ))
    }
}

/// Where the version cache is.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct CacheDirArgs {
    /// The version cache (default: $MASTRA_CONFORM_CACHE, else
    /// $XDG_CACHE_HOME/mastra-conform, else ~/.cache/mastra-conform).
    // Global so that `cache --cache DIR status` and `cache status --cache
    // DIR` both work; on a command without subcommands it changes nothing.
    #[arg(long, global = true)]
    pub cache: Option<PathBuf>,
}

impl CacheDirArgs {
    /// The default settings, on this cache.
    pub fn config(&self) -> Config {
        let mut c = Config::new(&repo_root());
        if let Some(cache) = &self.cache {
            c.cache = cache.clone();
        }
        c
    }
}

/// The case files a command runs.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct CasesArgs {
    /// A case file or a folder of them (repeatable; default: cases/).
    #[arg(long = "cases")]
    pub cases: Vec<PathBuf>,
}

impl CasesArgs {
    /// The paths as given, or the corpus (`cases/`) when none were.
    pub fn paths(&self) -> Vec<PathBuf> {
        if self.cases.is_empty() {
            vec![repo_root().join("cases")]
        } else {
            self.cases.clone()
        }
    }
}

/// What `--versions` is when it is not given; the commands differ (`run`
/// checks the pinned versions, the nightly adds `latest`, a sweep takes
/// them all), and the help shows each command its own.
pub trait DefaultVersions: Clone + Send + Sync + std::fmt::Debug + 'static {
    const VERSIONS: &'static str;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultPinned;
impl DefaultVersions for DefaultPinned {
    const VERSIONS: &'static str = "pinned";
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultPinnedLatest;
impl DefaultVersions for DefaultPinnedLatest {
    const VERSIONS: &'static str = "pinned,latest";
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultAll;
impl DefaultVersions for DefaultAll {
    const VERSIONS: &'static str = "all";
}

/// The versions a command runs on, and how ranges and `all` read the
/// registry.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct VersionsArgs<D: DefaultVersions> {
    /// Versions, comma-separated: exact (1.67.0), a prerelease
    /// (1.67.0-alpha.4), a snapshot build (0.0.0-TAG-TIMESTAMP), a dist-tag,
    /// `pinned`, `latest`, `next`, `all` (every 1.x), `0.x` (every 0.x),
    /// `every` (both lines), `snapshots` (every 0.0.0-* snapshot build the
    /// registry serves), a range (">=1.60.0 <1.70.0"), or a build (./x.tgz,
    /// ./folder).
    #[arg(long, default_value = D::VERSIONS)]
    pub versions: VersionList,
    /// Ranges and `all` take prereleases too (by default they select
    /// stable releases only).
    #[arg(long)]
    pub include_prereleases: bool,
    #[arg(skip)]
    pub default: PhantomData<D>,
}

impl<D: DefaultVersions> VersionsArgs<D> {
    pub fn specs(&self) -> &[VersionSpec] {
        &self.versions.0
    }

    pub fn selection(&self) -> Selection {
        Selection {
            prereleases: self.include_prereleases,
        }
    }
}

/// The routes of the cases that do not name their own.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct RoutesArgs {
    /// Routes for the cases that do not name their own: one, a
    /// comma-separated list, or `all` (default: each case's own).
    #[arg(long)]
    pub route: Option<RouteSet>,
}

/// The route of the one case a command takes.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct CaseRouteArgs {
    /// The route, when the case does not name its own.
    #[arg(long)]
    pub route: Option<Route>,
}

impl CaseRouteArgs {
    /// The case at `path`, on `--route` unless it names its own route.
    pub fn load(&self, path: &Path) -> Result<Case, Failure> {
        let case = crate::run::corpus::read_case(path)?;
        Ok(match self.route {
            Some(r) if !case.names_its_route() => case.on_route(r),
            _ => case,
        })
    }
}

/// The one version a command on one case runs or predicts on.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct OneVersionArgs {
    /// One version: exact, a prerelease, a snapshot build
    /// (0.0.0-TAG-TIMESTAMP), a dist-tag, or a build (a packed tarball or a
    /// folder).
    #[arg(long = "mastra-version")]
    pub mastra_version: VersionSpec,
}

/// What a run covers: cases by versions by routes.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct ScopeArgs<D: DefaultVersions> {
    #[command(flatten)]
    pub cases: CasesArgs,
    #[command(flatten)]
    pub versions: VersionsArgs<D>,
    #[command(flatten)]
    pub routes: RoutesArgs,
}

impl<D: DefaultVersions> ScopeArgs<D> {
    /// The run these flags ask for, named `command` in its report, whole
    /// (no shard) and writing no bodies.
    pub fn run_plan(&self, command: &str) -> RunRequest {
        RunRequest {
            command: command.to_string(),
            cases: self.cases.paths(),
            versions: self.versions.specs().to_vec(),
            selection: self.versions.selection(),
            bodies: None,
            shard: None,
            routes: self.routes.route.clone(),
            keep: false,
            recheck: crate::run::recheck::Recheck::default(),
            generated: None,
        }
    }
}

/// Where the JSON report goes.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct JsonReportArgs {
    /// Write the JSON report here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Whether an unavailable version fails the run.
#[derive(Debug, Args, Clone, Copy, PartialEq, Eq)]
pub struct StrictArgs {
    /// An unavailable version is a failure (exit 3).
    #[arg(long)]
    pub strict: bool,
}

/// `--fail-on security`: a known issue of that severity present fails the
/// run as a divergence does.
#[derive(Debug, Args, Clone, Copy, PartialEq, Eq, Default)]
pub struct FailOnArgs {
    /// Exit 1 when a known issue the ledger marks `severity: security` (a
    /// control the user wrote does not hold) is present on some version.
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub fail_on: Option<FailOnSeverity>,
}

/// The severities `--fail-on` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOnSeverity {
    Security,
}

/// The slice of a sharded run this runner takes.
#[derive(Debug, Args, Clone, Copy, PartialEq, Eq)]
pub struct ShardArgs {
    /// Run only slice K of N (deterministic, weighed by measured cost).
    #[arg(long)]
    pub shard: Option<Shard>,
}

/// Generated cases added to the corpus, the same on every version.
#[derive(Debug, Args, Clone, Copy, PartialEq, Eq)]
pub struct GeneratedArgs {
    /// Generated cases to add (the fuzz budget), the same on every version
    /// and build.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub fuzz_count: u64,
    /// The seed of the generated cases (recorded in the report).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}
