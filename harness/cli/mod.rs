//! The command line: one argument struct per command (`RunArgs`,
//! `BisectArgs`, ...), with the groups several commands share flattened into
//! them (`cli::args`), parsed straight into domain types (`VersionSpec`,
//! `VersionList`, `Shard`, `RouteSet`, counts with their ranges). The
//! dispatch hands each command its struct, and one function per command
//! validates it and runs. Nothing below this module sees a flag, prints, or
//! picks an exit status: loops return domain values, and the functions here
//! print them and map them to an `Exit`.

mod args;
mod bisect;
mod cache;
mod changes;
mod diff;
mod fuzz;
mod lint;
mod mcp;
mod out;
mod repro;
mod runs;
mod single;
mod verify;
mod version;

use crate::outcome::{Exit, Failure};
use clap::{Parser, Subcommand};

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

/// Every version flag takes the same grammar (`VersionSpec`): exact
/// (`1.67.0`), a prerelease (`1.67.0-alpha.4`), a snapshot build
/// (`0.0.0-TAG-TIMESTAMP`), a dist-tag, `pinned`, `latest`, `next`, `all`,
/// `0.x`, `every`, `snapshots`, a range (`>=1.60.0 <1.70.0`), or a build: a
/// packed tarball (`./mastra-core-1.72.0.tgz`) or a folder holding a built
/// @mastra/core. A flag that takes one version refuses a spec naming several.
#[derive(Debug, Subcommand, PartialEq, Eq)]
pub enum Command {
    /// Print the model's projection of a case on a version (a build is
    /// predicted as the release its package.json names).
    Predict(single::PredictArgs),
    /// Run a case on the real @mastra/core and print the observed projection.
    Observe(single::ObserveArgs),
    /// Run case files on versions and compare the model with what Mastra does.
    Run(runs::RunArgs),
    /// Show how a sharded run splits its work, and each slice's projected
    /// time from the measured per-version costs (node-probe/costs.json).
    Plan(runs::ShardSplitArgs),
    /// Combine the JSON reports of the slices of a sharded run into one.
    Merge(runs::MergeArgs),
    /// Run the corpus over many versions and record where behaviour changes
    /// between neighbouring releases (docs/figures/sweep.md).
    Sweep(runs::SweepArgs),
    /// Measure the harness end to end against the in-process ceiling.
    Bench(single::BenchArgs),
    /// Generate cases from a seed, run them like the corpus, and shrink and
    /// save every divergence under cases/found/ (replayed first next time).
    Fuzz(fuzz::FuzzArgs),
    /// Show what tool keys become on the wire, and what breaks.
    Lint(lint::LintArgs),
    /// Find the first published version whose result for a case differs
    /// from --good's.
    Bisect(bisect::BisectArgs),
    /// Say, for each version, whether a known upstream issue is present or
    /// fixed (`known-issues.json`).
    Verify(verify::VerifyArgs),
    /// The nightly job: the corpus (with saved fuzz finds) and a fuzz
    /// budget across versions; every result written as it completes, then
    /// JSON, JUnit, Markdown and HTML reports.
    Matrix(runs::MatrixArgs),
    /// Every case observed on two builds, compared with each other (no
    /// model): everything a patch changes on the wire.
    Diff(diff::DiffArgs),
    /// Print a standalone Node script (ES module) that reproduces the known
    /// issue a case shows: plain Node beside an installed @mastra/core, its
    /// own capture server; exits 1 while the issue shows, 0 when not.
    Repro(repro::ReproArgs),
    /// What the version cache holds (`status`), or make it smaller (`prune`).
    Cache(cache::CacheArgs),
    /// Render JUnit, Markdown and HTML from a report.json or results.jsonl.
    Report(runs::RenderArgs),
    /// What regressed, was fixed, is new or is gone between two JSON reports.
    Compare(runs::CompareArgs),
    /// What changed at a release, each change with its evidence (the
    /// model's release table); without a release, the whole table.
    Changes(changes::ChangesArgs),
    /// Serve a case's MCP tool names over stdio: the server a probe starts
    /// for a case's `mcp` servers, not a command for people.
    #[command(hide = true)]
    McpServer(mcp::McpServerArgs),
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
        Command::Predict(args) => single::predict(args),
        Command::Observe(args) => single::observe(args),
        Command::Run(args) => runs::run(args),
        Command::Plan(args) => runs::shard_split(args),
        Command::Merge(args) => runs::merge(args),
        Command::Sweep(args) => runs::sweep(args),
        Command::Bench(args) => single::bench(args),
        Command::Fuzz(args) => fuzz::fuzz(args),
        Command::Lint(args) => lint::lint(args),
        Command::Bisect(args) => bisect::bisect(args),
        Command::Verify(args) => verify::verify(args),
        Command::Matrix(args) => runs::matrix(args),
        Command::Diff(args) => diff::diff(args),
        Command::Repro(args) => repro::repro(args),
        Command::Cache(args) => cache::cache(args),
        Command::Report(args) => runs::report(args),
        Command::Compare(args) => runs::compare(args),
        Command::Changes(args) => changes::changes(args),
        Command::McpServer(args) => mcp::mcp_server(args),
    }
}

#[cfg(test)]
mod tests {
    use super::args::*;
    use super::bisect::BisectArgs;
    use super::cache::{CacheAction, CacheArgs, PruneArgs};
    use super::diff::DiffArgs;
    use super::fuzz::FuzzArgs;
    use super::lint::{ColorChoice, KeysArgs, LintArgs, LintOutputArgs, LoaderArg, ProjectArgs};
    use super::repro::ReproArgs;
    use super::runs::{
        CompareArgs, MatrixArgs, MergeArgs, RenderArgs, RunArgs, ShardSplitArgs, SweepArgs,
    };
    use super::single::{BenchArgs, ObserveArgs, PredictArgs};
    use super::verify::VerifyArgs;
    use super::*;
    use crate::loops::bisect::Compared;
    use crate::route::Route;
    use crate::version::spec::{VersionList, VersionSpec};
    use clap::CommandFactory;
    use std::marker::PhantomData;
    use std::path::PathBuf;

    fn parse(argv: &[&str]) -> Command {
        let argv = std::iter::once("mastra-conform").chain(argv.iter().copied());
        match Cli::try_parse_from(argv) {
            Ok(cli) => cli.command,
            Err(e) => panic!("{e}"),
        }
    }

    fn paths(ps: &[&str]) -> Vec<PathBuf> {
        ps.iter().map(PathBuf::from).collect()
    }

    fn list(text: &str) -> VersionList {
        text.parse().unwrap()
    }

    fn spec(text: &str) -> VersionSpec {
        text.parse().unwrap()
    }

    fn versions<D: DefaultVersions>(text: &str, include_prereleases: bool) -> VersionsArgs<D> {
        VersionsArgs {
            versions: list(text),
            include_prereleases,
            default: PhantomData,
        }
    }

    fn routes(text: Option<&str>) -> RoutesArgs {
        RoutesArgs {
            route: text.map(|t| t.parse().unwrap()),
        }
    }

    fn cases(ps: &[&str]) -> CasesArgs {
        CasesArgs { cases: paths(ps) }
    }

    /// The probe flags left at their defaults.
    fn probe() -> ProbeArgs {
        ProbeArgs {
            concurrency: 8,
            probes: None,
            case_timeout: 30,
            cache: CacheDirArgs { cache: None },
            predict_as: PredictAsArgs { predict_as: None },
        }
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every `--versions` help names each word the grammar reads as a set of
    /// versions, and the snapshot-build form; a word missing from the help
    /// is a word no one finds.
    #[test]
    fn every_versions_help_names_every_word() {
        use crate::version::spec::VersionSpec;
        const WORDS: &[&str] = &[
            "pinned",
            "latest",
            "next",
            "all",
            "0.x",
            "every",
            "snapshots",
        ];
        for w in WORDS {
            let spec = VersionSpec::parse(w).unwrap();
            assert!(
                !matches!(spec, VersionSpec::Tag(_)),
                "{w} is a word of the grammar, not a dist-tag"
            );
        }
        let mut seen = 0;
        for sub in Cli::command().get_subcommands() {
            let Some(arg) = sub.get_arguments().find(|a| a.get_id() == "versions") else {
                continue;
            };
            seen += 1;
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            for w in WORDS {
                assert!(
                    help.contains(&format!("`{w}`")),
                    "`{} --versions` help does not name `{w}`: {help}",
                    sub.get_name()
                );
            }
            assert!(
                help.contains("0.0.0-TAG-TIMESTAMP"),
                "`{} --versions` help does not show a snapshot build: {help}",
                sub.get_name()
            );
        }
        assert!(
            seen >= 5,
            "run, matrix, verify, sweep, plan… take --versions"
        );
    }

    #[test]
    fn one_case_commands_parse_into_their_structs() {
        assert_eq!(
            parse(&[
                "predict",
                "c.json",
                "--mastra-version",
                "latest",
                "--route",
                "groq"
            ]),
            Command::Predict(PredictArgs {
                case: "c.json".into(),
                version: OneVersionArgs {
                    mastra_version: VersionSpec::Latest,
                },
                route: CaseRouteArgs {
                    route: Some(Route::Groq)
                },
                predict_as: PredictAsArgs { predict_as: None },
            })
        );
        assert_eq!(
            parse(&[
                "observe",
                "c.json",
                "--mastra-version",
                "./core.tgz",
                "--concurrency",
                "4",
                "--probes",
                "2",
                "--case-timeout",
                "9",
                "--cache",
                "/tmp/cache",
            ]),
            Command::Observe(ObserveArgs {
                case: "c.json".into(),
                version: OneVersionArgs {
                    mastra_version: VersionSpec::Build("./core.tgz".into()),
                },
                route: CaseRouteArgs { route: None },
                probe: ProbeArgs {
                    concurrency: 4,
                    probes: Some(2),
                    case_timeout: 9,
                    cache: CacheDirArgs {
                        cache: Some("/tmp/cache".into())
                    },
                    predict_as: PredictAsArgs { predict_as: None },
                },
            })
        );
        assert_eq!(
            parse(&[
                "bisect",
                "c.json",
                "--good",
                "latest",
                "--bad",
                "./core.tgz",
                "--on",
                "body",
                "--include-prereleases",
                "--route",
                "mistral",
            ]),
            Command::Bisect(BisectArgs {
                case: "c.json".into(),
                good: "latest".into(),
                bad: "./core.tgz".into(),
                repo: None,
                build: None,
                on: Compared::Body,
                include_prereleases: true,
                route: CaseRouteArgs {
                    route: Some(Route::Mistral)
                },
                store: StoreArgs::default(),
                probe: probe(),
            })
        );
        let Command::Bisect(by_commit) = parse(&[
            "bisect",
            "c.json",
            "--repo",
            "../mastra",
            "--good",
            "v1.66.0",
            "--bad",
            "main~3",
            "--build",
            "pnpm build:core",
        ]) else {
            panic!("bisect")
        };
        assert_eq!(
            (
                by_commit.repo,
                by_commit.build,
                by_commit.good,
                by_commit.bad
            ),
            (
                Some("../mastra".into()),
                Some("pnpm build:core".into()),
                "v1.66.0".into(),
                "main~3".into()
            )
        );
        assert_eq!(
            parse(&[
                "repro",
                "toolchoice-not-rewritten",
                "--mastra-version",
                "beta"
            ]),
            Command::Repro(ReproArgs {
                case: "toolchoice-not-rewritten".into(),
                mastra_version: VersionSpec::Tag("beta".into()),
                route: Route::OpenAiCompatible,
                upstream_report: false,
                probe: probe(),
            })
        );
    }

    #[test]
    fn run_shaped_commands_parse_into_their_structs() {
        assert_eq!(
            parse(&[
                "run",
                "--cases",
                "a",
                "--cases",
                "b.json",
                "--versions",
                "1.67.0,>=1.60.0 <1.70.0",
                "--json",
                "r.json",
                "--out",
                "o",
                "--strict",
                "--bodies",
                "bodies",
                "--shard",
                "2/3",
                "--route",
                "all",
                "--include-prereleases",
                "--fresh",
                "--fail-on",
                "security",
                "--recheck",
                "2",
            ]),
            Command::Run(RunArgs {
                scope: ScopeArgs {
                    cases: cases(&["a", "b.json"]),
                    versions: versions("1.67.0,>=1.60.0 <1.70.0", true),
                    routes: routes(Some("all")),
                },
                report: JsonReportArgs {
                    json: Some("r.json".into())
                },
                out: Some("o".into()),
                strict: StrictArgs { strict: true },
                fail_on: FailOnArgs {
                    fail_on: Some(FailOnSeverity::Security)
                },
                bodies: Some("bodies".into()),
                shard: ShardArgs {
                    shard: Some("2/3".parse().unwrap())
                },
                store: StoreArgs { fresh: true },
                recheck: RecheckArgs { recheck: 2 },
                probe: probe(),
            })
        );
        assert_eq!(
            parse(&[
                "matrix",
                "--fuzz-count",
                "50",
                "--seed",
                "7",
                "--shard",
                "1/4"
            ]),
            Command::Matrix(MatrixArgs {
                scope: ScopeArgs {
                    cases: cases(&[]),
                    versions: versions("pinned,latest", false),
                    routes: routes(None),
                },
                out: "target/matrix".into(),
                jsonl: false,
                history: None,
                report: JsonReportArgs { json: None },
                generated: GeneratedArgs {
                    fuzz_count: 50,
                    seed: 7
                },
                strict: StrictArgs { strict: false },
                fail_on: FailOnArgs::default(),
                shard: ShardArgs {
                    shard: Some("1/4".parse().unwrap())
                },
                store: StoreArgs::default(),
                recheck: RecheckArgs::default(),
                probe: probe(),
            })
        );
        assert_eq!(
            parse(&["sweep", "--route", "openai,groq", "--json", "s.json"]),
            Command::Sweep(SweepArgs {
                scope: ScopeArgs {
                    cases: cases(&[]),
                    versions: versions("all", false),
                    routes: routes(Some("openai,groq")),
                },
                out: "docs/figures/sweep.md".into(),
                from: None,
                all_diffs: false,
                report: JsonReportArgs {
                    json: Some("s.json".into())
                },
                store: StoreArgs::default(),
                probe: probe(),
            })
        );
        let Command::Sweep(from) = parse(&["sweep", "--from", "report.json", "--out", "S.md"])
        else {
            panic!("sweep")
        };
        assert_eq!(
            (from.from, from.out),
            (Some("report.json".into()), "S.md".into())
        );
        assert_eq!(
            parse(&[
                "fuzz",
                "--seed",
                "3",
                "--count",
                "20",
                "--versions",
                "1.0.4",
                "--found",
                "f",
                "--ceiling",
                "--shard",
                "1/2",
                "--route",
                "anthropic",
            ]),
            Command::Fuzz(FuzzArgs {
                seed: 3,
                count: 20,
                versions: versions("1.0.4", false),
                found: Some("f".into()),
                ceiling: true,
                shard: Some("1/2".parse().unwrap()),
                report: JsonReportArgs { json: None },
                routes: routes(Some("anthropic")),
                probe: probe(),
            })
        );
        assert_eq!(
            parse(&["verify", "all", "--json", "v.json"]),
            Command::Verify(VerifyArgs {
                issue: "all".into(),
                versions: versions("pinned,latest", false),
                json: Some("v.json".into()),
                routes: routes(None),
                store: StoreArgs::default(),
                probe: probe(),
            })
        );
        assert_eq!(
            parse(&[
                "diff",
                "--from",
                "1.67.0",
                "--to",
                "../core",
                "--fuzz-count",
                "5",
                "--markdown",
                "d.md",
            ]),
            Command::Diff(DiffArgs {
                from: spec("1.67.0"),
                to: VersionSpec::Build("../core".into()),
                cases: cases(&[]),
                generated: GeneratedArgs {
                    fuzz_count: 5,
                    seed: 1
                },
                report: JsonReportArgs { json: None },
                markdown: Some("d.md".into()),
                fail_on: super::diff::FailOn::Any,
                routes: routes(None),
                store: StoreArgs::default(),
                probe: probe(),
            })
        );
        assert_eq!(
            parse(&[
                "bench",
                "--repeat",
                "2",
                "--matrix-versions",
                ">=1.60.0 <1.62.0",
                "--probes",
                "3",
                "--markdown",
                "docs/figures/bench.md",
            ]),
            Command::Bench(BenchArgs {
                mastra_version: spec("1.67.0"),
                repeat: 2,
                cases: cases(&[]),
                json: None,
                markdown: Some("docs/figures/bench.md".into()),
                routes: routes(None),
                matrix_versions: Some(list(">=1.60.0 <1.62.0")),
                probe: ProbeArgs {
                    probes: Some(3),
                    ..probe()
                },
            })
        );
    }

    #[test]
    fn report_and_cache_commands_parse_into_their_structs() {
        assert_eq!(
            parse(&["plan", "--shards", "4", "--versions", "pinned"]),
            Command::Plan(ShardSplitArgs {
                versions: versions("pinned", false),
                shards: 4,
            })
        );
        assert_eq!(
            parse(&["merge", "a.json", "b.json"]),
            Command::Merge(MergeArgs {
                reports: paths(&["a.json", "b.json"]),
                out: "target/merged".into(),
                report: JsonReportArgs { json: None },
                history: None,
                fail_on: FailOnArgs::default(),
            })
        );
        assert_eq!(
            parse(&["report", "results.jsonl", "--out", "r"]),
            Command::Report(RenderArgs {
                input: "results.jsonl".into(),
                out: "r".into(),
            })
        );
        assert_eq!(
            parse(&["compare", "old.json", "new.json"]),
            Command::Compare(CompareArgs {
                old: "old.json".into(),
                new: "new.json".into(),
            })
        );
        let pruned = Command::Cache(CacheArgs {
            action: CacheAction::Prune(PruneArgs {
                keep: Some(3),
                drop_builds: true,
            }),
            dir: CacheDirArgs {
                cache: Some("/c".into()),
            },
        });
        // `--cache` is taken before and after the action.
        assert_eq!(
            parse(&[
                "cache",
                "--cache",
                "/c",
                "prune",
                "--keep",
                "3",
                "--drop-builds"
            ]),
            pruned
        );
        assert_eq!(
            parse(&[
                "cache",
                "prune",
                "--keep",
                "3",
                "--drop-builds",
                "--cache",
                "/c"
            ]),
            pruned
        );
        assert_eq!(
            parse(&["cache", "status"]),
            Command::Cache(CacheArgs {
                action: CacheAction::Status,
                dir: CacheDirArgs { cache: None },
            })
        );
    }

    #[test]
    fn lint_parses_keys_or_a_project() {
        assert_eq!(
            parse(&[
                "lint",
                "search.web",
                "a b",
                "--tool-choice",
                "search.web",
                "--active-tool",
                "x",
                "--active-tool",
                "y",
                "--prompt-name",
                "z",
                "--all",
            ]),
            Command::Lint(LintArgs {
                keys: KeysArgs {
                    keys: vec!["search.web".into(), "a b".into()],
                    file: None,
                    tool_choice: Some("search.web".into()),
                    active_tools: vec!["x".into(), "y".into()],
                    prompt_names: vec!["z".into()],
                    mastra_version: None,
                },
                output: LintOutputArgs {
                    json: false,
                    format: None,
                    all: true,
                    color: ColorChoice::Auto,
                    max_warnings: None,
                },
                project: ProjectArgs {
                    project: None,
                    entry: None,
                    sarif: None,
                    env_files: vec![],
                    loader: LoaderArg::Auto,
                    verbose: false,
                },
            })
        );
        assert_eq!(
            parse(&[
                "lint",
                "--project",
                "p",
                "--entry",
                "src/m.ts",
                "--sarif",
                "l.sarif",
                "--env-file",
                ".env",
                "--env-file",
                "local.env",
                "--json",
                "--max-warnings",
                "0",
                "--color",
                "never",
                "--loader",
                "esbuild",
            ]),
            Command::Lint(LintArgs {
                keys: KeysArgs {
                    keys: vec![],
                    file: None,
                    tool_choice: None,
                    active_tools: vec![],
                    prompt_names: vec![],
                    mastra_version: None,
                },
                output: LintOutputArgs {
                    json: true,
                    format: None,
                    all: false,
                    color: ColorChoice::Never,
                    max_warnings: Some(0),
                },
                project: ProjectArgs {
                    project: Some("p".into()),
                    entry: Some("src/m.ts".into()),
                    sarif: Some("l.sarif".into()),
                    env_files: vec![".env".into(), "local.env".into()],
                    loader: LoaderArg::Esbuild,
                    verbose: false,
                },
            })
        );
    }

    /// The constraints that span groups: they name flags by id, and a
    /// renamed field would silently drop them.
    #[test]
    fn flags_that_exclude_each_other_are_refused() {
        let refused = |argv: &[&str]| {
            let argv = std::iter::once("mastra-conform").chain(argv.iter().copied());
            Cli::try_parse_from(argv).map(|_| ()).unwrap_err().kind()
        };
        use clap::error::ErrorKind;
        for argv in [
            &["sweep", "--from", "r.json", "--versions", "all"][..],
            &["sweep", "--from", "r.json", "--cases", "c"],
            &["sweep", "--from", "r.json", "--route", "groq"],
            &["lint", "k", "--project", "p"],
            &["lint", "--project", "p", "--tool-choice", "k"],
            &["lint", "--project", "p", "--mastra-version", "1.67.0"],
            &["lint", "--project", "p", "--json", "--format", "github"],
            &[
                "bisect",
                "c.json",
                "--repo",
                "m",
                "--good",
                "a",
                "--bad",
                "b",
                "--include-prereleases",
            ],
        ] {
            assert_eq!(refused(argv), ErrorKind::ArgumentConflict, "{argv:?}");
        }
        for argv in [
            &["lint", "--entry", "e.ts"][..],
            &["lint", "--sarif", "l.sarif"],
            &[
                "bisect", "c.json", "--good", "a", "--bad", "b", "--build", "make",
            ],
        ] {
            assert_eq!(
                refused(argv),
                ErrorKind::MissingRequiredArgument,
                "{argv:?}"
            );
        }
        for argv in [
            &["run", "--concurrency", "0"][..],
            &["matrix", "--fuzz-count", "1000001"],
            &[
                "diff",
                "--from",
                "1.0.4",
                "--to",
                "1.67.0",
                "--fuzz-count",
                "1000001",
            ],
            &["repro", "c.json", "--mastra-version", "1.67"],
            &["run", "--predict-as", "1.58.0-alpha.12"],
        ] {
            assert_eq!(refused(argv), ErrorKind::ValueValidation, "{argv:?}");
        }
    }
}
