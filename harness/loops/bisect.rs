//! `bisect`: the first published version, or the first commit of a mastra
//! checkout (`bisect_commits`), whose result for a case differs from a
//! known-good one's.
//!
//! The clever part is pure: `least_satisfying` searches a slice with a
//! predicate and knows nothing of Mastra (cargo-bisect-rustc's shape).
//! `search` around it checks both ends first, then hands it a predicate
//! that gets an item on demand (installs a version; or builds a commit,
//! `install::revision`, and installs the build), runs the case through the
//! one pipeline (`Session::run_version`), reports the step, and says whether
//! the result differs from the good one's. An item that cannot be run (not
//! served, install failed, build failed, probe failure) is `Unknown`: the
//! search goes around it, and the answer names it when the change could be
//! there.
//!
//! Results are compared as projections (`comparable`, the default) or, with
//! `--on body`, as whole captured bodies in normal form: parsed, objects
//! compared by key, ids outside scripted tool calls redacted (the normal form
//! of the body snapshots).

use crate::case::Case;
use crate::install::revision::{Checkout, Commit, Recipe, RevisionError};
use crate::js::json::Json;
use crate::judge::case_result::CaseResult;
use crate::judge::compare::comparable;
use crate::observation::Observed;
use crate::outcome::{error_chain, Failure};
use crate::run::session::Session;
use crate::version::spec::{MastraVersion, Selection, VersionSpec};

/// What the predicate says of one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Satisfies {
    Yes,
    No,
    /// It could not be judged; the search goes around it.
    Unknown,
}

/// Where the search ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The least index that satisfies.
    pub first: usize,
    /// The greatest index that does not, if one was tested (else the change
    /// is right after whatever precedes the slice).
    pub last_no: Option<usize>,
    /// Indices between `last_no` and `first` that could not be judged: the
    /// change may be at any of them.
    pub unknown: Vec<usize>,
}

/// The least item of `items` that satisfies `pred`, assuming that the items
/// before the slice do not, that the last item does (the caller has checked
/// it; it is never tested again), and that once satisfied, later items
/// satisfy too. Each item is tested at most once, about log2(len) times in
/// all, plus once per `Unknown`.
///
/// # Panics
/// On an empty slice: there is no last item that satisfies.
pub fn least_satisfying<T>(items: &[T], mut pred: impl FnMut(&T) -> Satisfies) -> Found {
    assert!(
        !items.is_empty(),
        "least_satisfying needs the satisfying last item"
    );
    let mut hi = items.len() - 1;
    let mut lo: Option<usize> = None;
    let mut unknown: Vec<usize> = Vec::new();
    loop {
        let start = lo.map_or(0, |l| l + 1);
        let open: Vec<usize> = (start..hi).filter(|i| !unknown.contains(i)).collect();
        let Some(&mid) = open.get(open.len() / 2) else {
            break;
        };
        match pred(&items[mid]) {
            Satisfies::Yes => hi = mid,
            Satisfies::No => lo = Some(mid),
            Satisfies::Unknown => unknown.push(mid),
        }
    }
    let start = lo.map_or(0, |l| l + 1);
    let mut between: Vec<usize> = unknown
        .into_iter()
        .filter(|i| (start..hi).contains(i))
        .collect();
    between.sort_unstable();
    Found {
        first: hi,
        last_no: lo,
        unknown: between,
    }
}

/// What is compared between versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compared {
    /// The projection (`docs/case-format.md`), without the prose reason.
    Projection,
    /// Every captured request body, in normal form.
    Body,
}

impl Compared {
    pub fn name(self) -> &'static str {
        match self {
            Compared::Projection => "projection",
            Compared::Body => "normalised bodies",
        }
    }
}

impl std::str::FromStr for Compared {
    type Err = String;
    fn from_str(text: &str) -> Result<Compared, String> {
        match text {
            "projection" => Ok(Compared::Projection),
            "body" => Ok(Compared::Body),
            other => Err(format!(
                "bad value {other:?}: expected `projection` or `body`"
            )),
        }
    }
}

/// A body in the normal form snapshots use: `id` values outside scripted
/// tool calls are redacted (objects already compare by key).
pub fn normal_body(v: &Json) -> Json {
    fn walk(v: &Json, in_calls: bool) -> Json {
        match v {
            Json::Object(members) => Json::Object(
                members
                    .iter()
                    .map(|(k, item)| {
                        let key = k.to_lossy();
                        let value = if key == "id" && !in_calls && matches!(item, Json::String(_)) {
                            Json::str("[id]")
                        } else {
                            walk(item, in_calls || key == "tool_calls")
                        };
                        (k.clone(), value)
                    })
                    .collect(),
            ),
            Json::Array(items) => Json::Array(items.iter().map(|i| walk(i, in_calls)).collect()),
            other => other.clone(),
        }
    }
    walk(v, false)
}

/// What one version did with the case, as compared; `Err` when it did not
/// run (an infrastructure outcome, with its detail).
pub fn outcome(r: &CaseResult, on: Compared) -> Result<Json, String> {
    match (&r.observed, on) {
        (Observed::Ran { projection, .. }, Compared::Projection) => Ok(comparable(projection)),
        (Observed::Ran { bodies, .. }, Compared::Body) => bodies
            .iter()
            .map(|b| b.json().map(|j| normal_body(&j)))
            .collect::<Result<Vec<_>, _>>()
            .map(Json::Array),
        (other, _) => Err(format!(
            "{}: {}",
            r.verdict.name(),
            other.infra_detail().unwrap_or_default()
        )),
    }
}

fn run_one(
    session: &mut Session,
    case: &Case,
    v: MastraVersion,
    on: Compared,
) -> Result<Json, String> {
    let mut got = None;
    session.run_version(v, std::slice::from_ref(case), |r| got = Some(r));
    let r = got.ok_or_else(|| "interrupted".to_string())?;
    outcome(&r, on)
}

/// A unified diff of two outcomes, sorted keys, arrays in order.
pub fn outcome_diff(a_name: &str, a: &Json, b_name: &str, b: &Json) -> String {
    let (x, y) = (a.to_pretty_sorted() + "\n", b.to_pretty_sorted() + "\n");
    similar::TextDiff::from_lines(&x, &y)
        .unified_diff()
        .context_radius(3)
        .header(a_name, b_name)
        .to_string()
}

/// One step of a bisection, as it happens (the command layer prints it).
/// `T` is what is bisected: a published version, or a commit.
#[derive(Debug, Clone)]
pub enum Step<T> {
    /// The search starts: how many items lie after `--good` up to `--bad`.
    Start { between: usize },
    /// A commit was built (`fresh`) or taken from the cache, as `version`.
    Built {
        item: T,
        version: MastraVersion,
        fresh: bool,
    },
    /// `--good` ran: the reference.
    Reference(T),
    /// `--bad` ran, and differs from the reference or not.
    Bad { item: T, differs: bool },
    /// An item in between ran (`Ok(differs)`) or could not (`Err(why)`:
    /// not served, not installable, not buildable); the search goes
    /// around it.
    Tested {
        step: usize,
        item: T,
        differs: Result<bool, String>,
    },
}

/// What a bisection found.
#[derive(Debug, Clone, PartialEq)]
pub enum Bisection<T> {
    /// `--bad` gives the same result as `--good`.
    NoChange,
    /// The first item whose result differs from `--good`'s.
    Found {
        first: T,
        /// The last item tested that gives `--good`'s result.
        last_same: T,
        steps: usize,
        /// Items in between that could not be run: the change may be there
        /// instead.
        unknown: Vec<T>,
        /// The unified diff from `--good`'s result to `first`'s.
        diff: String,
    },
}

/// The search both bisections share: `run` gives an item's outcome (or why
/// it could not), `between` are the items after `good` up to `bad`, `bad`
/// last. The ends must run; an item in between that cannot is gone around.
fn search<T: Clone + PartialEq + std::fmt::Display>(
    good: &T,
    bad: &T,
    between: &[T],
    stop: &std::sync::atomic::AtomicBool,
    mut run: impl FnMut(&T, &mut dyn FnMut(Step<T>)) -> Result<Json, String>,
    on_step: &mut dyn FnMut(Step<T>),
) -> Result<Bisection<T>, Failure> {
    on_step(Step::Start {
        between: between.len(),
    });
    let infra = |t: &T, e: String| Failure::infra(format!("{t} could not be run: {e}"));
    let reference = run(good, on_step).map_err(|e| infra(good, e))?;
    on_step(Step::Reference(good.clone()));
    let at_bad = run(bad, on_step).map_err(|e| infra(bad, e))?;
    let differs = at_bad != reference;
    on_step(Step::Bad {
        item: bad.clone(),
        differs,
    });
    if !differs {
        return Ok(Bisection::NoChange);
    }
    let mut seen: Vec<(T, Json)> = vec![(bad.clone(), at_bad)];
    let mut step = 0;
    let found = least_satisfying(between, |t| {
        if stop.load(std::sync::atomic::Ordering::SeqCst) {
            return Satisfies::Unknown;
        }
        step += 1;
        let got = run(t, on_step);
        let verdict = match &got {
            Ok(o) if *o != reference => Satisfies::Yes,
            Ok(_) => Satisfies::No,
            Err(_) => Satisfies::Unknown,
        };
        on_step(Step::Tested {
            step,
            item: t.clone(),
            differs: got.as_ref().map(|o| *o != reference).map_err(Clone::clone),
        });
        if let Ok(o) = got {
            seen.push((t.clone(), o));
        }
        verdict
    });
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(Failure::infra("interrupted before the search ended"));
    }
    let first = between[found.first].clone();
    let changed = seen
        .iter()
        .find(|(t, _)| *t == first)
        .map(|(_, o)| o.clone())
        .unwrap_or(Json::Null);
    Ok(Bisection::Found {
        last_same: found.last_no.map_or(good.clone(), |i| between[i].clone()),
        steps: step,
        unknown: found.unknown.iter().map(|&i| between[i].clone()).collect(),
        diff: outcome_diff(&good.to_string(), &reference, &first.to_string(), &changed),
        first,
    })
}

/// Where a version sits in the line of releases: a snapshot just below
/// the release it was cut from (after that release's prereleases), every
/// other version where semver puts it.
fn place(v: MastraVersion) -> (MastraVersion, bool) {
    if v.is_snapshot() {
        (v.release(), false)
    } else {
        (v, true)
    }
}

/// Bisect `case` between `good` and `bad` (both published, `good` older);
/// `on_step` hears each step as it happens. The versions in between are
/// the stable releases, and the prereleases too with `prereleases` (a finer
/// answer: the change may have landed in an alpha). A snapshot end sits
/// just below the release it was cut from: `--bad` a snapshot asks whether
/// the change came with its pull request or before.
pub fn bisect(
    session: &mut Session,
    case: &Case,
    good: MastraVersion,
    bad: MastraVersion,
    on: Compared,
    prereleases: bool,
    mut on_step: impl FnMut(Step<MastraVersion>),
) -> Result<Bisection<MastraVersion>, Failure> {
    if place(good) >= place(bad) {
        return Err(Failure::bad(format!(
            "--good {good} must be older than --bad {bad}"
        )));
    }
    let published = session.published()?;
    for (flag, v) in [("--good", good), ("--bad", bad)] {
        if !published.contains(&v) {
            return Err(Failure::bad(format!(
                "{flag} {v}: not a published @mastra/core version"
            )));
        }
    }
    // Other snapshots are other branches, never between.
    let mut between: Vec<MastraVersion> = published
        .iter()
        .copied()
        .filter(|v| !v.is_snapshot() && place(*v) > place(good) && place(*v) < place(bad))
        .filter(|v| prereleases || v.is_release())
        .collect();
    between.push(bad);
    let stop = session.stop.clone();
    search(
        &good,
        &bad,
        &between,
        &stop,
        |v, _| run_one(session, case, *v, on),
        &mut on_step,
    )
}

/// Bisect `case` over the commits of `checkout` after `good` up to `bad`
/// (first-parent history): each commit is built by `recipe`
/// (`Installs::build_revision`, cached by tree), installed as a build and
/// run. A commit that fails to build is gone around and named, as
/// cargo-bisect-rustc goes around a nightly it cannot get.
#[allow(clippy::too_many_arguments)]
pub fn bisect_commits(
    session: &mut Session,
    case: &Case,
    checkout: &Checkout,
    good: &str,
    bad: &str,
    recipe: &Recipe,
    on: Compared,
    mut on_step: impl FnMut(Step<Commit>),
) -> Result<Bisection<Commit>, Failure> {
    let bad_input = |e: RevisionError| Failure::bad(error_chain(&e));
    let (good, bad) = (
        checkout.commit(good).map_err(bad_input)?,
        checkout.commit(bad).map_err(bad_input)?,
    );
    if good == bad {
        return Err(Failure::bad(format!(
            "--good and --bad are the same commit ({good})"
        )));
    }
    let between = checkout.commits_between(&good, &bad).map_err(bad_input)?;
    let (good, bad) = (
        checkout.describe(&good).map_err(bad_input)?,
        checkout.describe(&bad).map_err(bad_input)?,
    );
    let node = session.node()?.path;
    let stop = session.stop.clone();
    search(
        &good,
        &bad,
        &between,
        &stop,
        |commit, say| {
            let built = session
                .installs
                .build_revision(checkout, &commit.sha, recipe, &node)
                .map_err(|e| {
                    if e.is_the_revisions() {
                        format!("could not be built: {}", first_lines(&error_chain(&e)))
                    } else {
                        error_chain(&e)
                    }
                })?;
            let (tarball, fresh) = built;
            let version = session
                .resolve(&[VersionSpec::Build(tarball)], Selection::default())
                .map_err(|e| error_chain(&e))?
                .pop()
                .ok_or("the build named no version")?;
            say(Step::Built {
                item: commit.clone(),
                version,
                fresh,
            });
            run_one(session, case, version, on)
        },
        &mut on_step,
    )
}

/// An error chain's first line and the line of its output that says what
/// went wrong (the first naming an error, else the last), for a step's one
/// line: a build's output can be long, and ends in a runtime's banner.
fn first_lines(chain: &str) -> String {
    let lines: Vec<&str> = chain.lines().filter(|l| !l.trim().is_empty()).collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [first, rest @ ..] => {
            let why = rest
                .iter()
                .find(|l| l.contains("Error") || l.contains("error"))
                .or(rest.last())
                .map_or("", |l| l.trim());
            format!("{first} … {why}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_failed_build_is_one_line_naming_its_error() {
        let chain = "the build of abc failed\n  file:///t/build.mjs:2\n\nError: src/broken: this revision does not build\n    at x\n\nNode.js v24.22.3\n";
        assert_eq!(
            first_lines(chain),
            "the build of abc failed … Error: src/broken: this revision does not build"
        );
        assert_eq!(first_lines("a\nb\nc"), "a … c");
        assert_eq!(first_lines("only"), "only");
    }

    /// Run the search over a boolean table; `None` entries are unknown.
    fn search(table: &[Option<bool>]) -> (Found, Vec<usize>) {
        let idx: Vec<usize> = (0..table.len()).collect();
        let mut asked = Vec::new();
        let found = least_satisfying(&idx, |&i| {
            asked.push(i);
            match table[i] {
                Some(true) => Satisfies::Yes,
                Some(false) => Satisfies::No,
                None => Satisfies::Unknown,
            }
        });
        (found, asked)
    }

    #[test]
    fn the_table() {
        let (t, f, u) = (Some(true), Some(false), None);
        // (table, first, last_no, unknown)
        type Row<'a> = (&'a [Option<bool>], usize, Option<usize>, &'a [usize]);
        let cases: &[Row] = &[
            (&[t], 0, None, &[]),
            (&[t, t], 0, None, &[]),
            (&[f, t], 1, Some(0), &[]),
            (&[f, f, f, f, t], 4, Some(3), &[]),
            (&[f, f, t, t, t], 2, Some(1), &[]),
            (&[t, t, t, t, t], 0, None, &[]),
            (&[f, u, t], 2, Some(0), &[1]),
            (&[u, u, t], 2, None, &[0, 1]),
            (&[f, f, u, t, t, t], 3, Some(1), &[2]),
            (&[f, u, f, f, t], 4, Some(3), &[]),
        ];
        for (table, first, last_no, unknown) in cases {
            let (found, asked) = search(table);
            assert_eq!(
                found,
                Found {
                    first: *first,
                    last_no: *last_no,
                    unknown: unknown.to_vec()
                },
                "{table:?}"
            );
            assert!(
                !asked.contains(&(table.len() - 1)),
                "the last item is never tested"
            );
        }
    }

    /// A toolChoice "none"-shaped history: 74 versions, the change at 1.19.0.
    #[test]
    fn finds_the_change_in_a_long_line_in_few_steps() {
        let mut table = vec![Some(false); 18];
        table.extend(vec![Some(true); 52]);
        let (found, asked) = search(&table);
        assert_eq!(found.first, 18);
        assert!(asked.len() <= 7, "{} steps", asked.len());
    }

    proptest! {
        #[test]
        fn finds_the_least_satisfying_or_names_every_unknown_it_could_be(
            len in 1usize..120,
            change in 0usize..120,
            unknown_bits in proptest::collection::vec(any::<bool>(), 120),
        ) {
            let change = change % len;
            let table: Vec<Option<bool>> = (0..len)
                .map(|i| if i + 1 < len && unknown_bits[i] { None } else { Some(i >= change) })
                .collect();
            let (found, asked) = search(&table);
            // Never asks twice, never asks the last.
            let mut sorted = asked.clone();
            sorted.sort_unstable();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), asked.len());
            prop_assert!(!asked.contains(&(len - 1)));
            // The answer satisfies; what it says did not, did not.
            prop_assert_eq!(table[found.first], Some(true));
            if let Some(l) = found.last_no {
                prop_assert_eq!(table[l], Some(false));
                prop_assert!(l < found.first);
            }
            // The true change is the answer or one of the named unknowns.
            prop_assert!(found.first == change || found.unknown.contains(&change));
            for &u in &found.unknown {
                prop_assert!(table[u].is_none() && u < found.first && found.last_no.is_none_or(|l| u > l));
            }
            // Without unknowns: about log2(len) questions.
            if table.iter().all(Option::is_some) {
                prop_assert_eq!(found.first, change);
                let bound = usize::BITS - len.leading_zeros();
                prop_assert!(asked.len() <= bound as usize, "{} asks for {}", asked.len(), len);
            }
        }
    }

    #[test]
    fn bodies_are_normalised_like_snapshots() {
        let b = Json::parse(r#"{"id":"x","messages":[{"tool_calls":[{"id":"call_1"}]}]}"#).unwrap();
        let n = normal_body(&b).to_compact();
        assert!(n.contains("\"[id]\"") && n.contains("call_1"), "{n}");
    }
}
