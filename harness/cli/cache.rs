//! `cache status` and `cache prune`: the version cache as a table, and
//! making it smaller (`install::cache` decides and removes; this prints).

use super::args::CacheDirArgs;
use super::out::print_out;
use crate::install::cache::{prune, status, CacheStatus, InstallKind, Keep};
use crate::outcome::{Exit, Failure};
use crate::recorded::{identities, probe_code_digest, stale};
use crate::run::config::Config;
use clap::{Args, Subcommand};
use std::time::SystemTime;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub action: CacheAction,
    #[command(flatten)]
    pub dir: CacheDirArgs,
}

#[derive(Debug, Subcommand, Clone, PartialEq, Eq)]
pub enum CacheAction {
    /// Every install (kind, last use, the bytes only it holds), the shared
    /// store, the tools, and the total on disk (hard links counted once).
    Status,
    /// Remove installs, npm installs from before the store, and the store
    /// files no install links any more. Pinned versions are always kept.
    /// Then the observations no run can reuse: those of an install that is
    /// gone or changed, or made by another probe or listener.
    Prune(PruneArgs),
}

#[derive(Debug, Args, Clone, Copy, PartialEq, Eq)]
pub struct PruneArgs {
    /// Keep only the N most recently used registry versions.
    #[arg(long)]
    pub keep: Option<usize>,
    /// Also remove builds (installs of tarballs and folders).
    #[arg(long)]
    pub drop_builds: bool,
}

pub fn cache(args: CacheArgs) -> Result<Exit, Failure> {
    let config = args.dir.config();
    let installs = config.installs();
    match args.action {
        CacheAction::Status => {
            print_out(&status_text(&installs, &config));
            Ok(Exit::Ok)
        }
        CacheAction::Prune(PruneArgs { keep, drop_builds }) => {
            let pruned = prune(
                &installs,
                Keep {
                    recent: keep,
                    builds: !drop_builds,
                },
            )
            .map_err(|e| {
                Failure::infra_because(format!("cannot prune {}", installs.cache.display()), e)
            })?;
            print_out(&format!(
                "removed {} install(s){}{}; freed {}\n",
                pruned.removed.len(),
                if pruned.removed.is_empty() { "" } else { ": " },
                pruned.removed.join(", "),
                size(pruned.freed_bytes)
            ));
            let judge = Judge::of(&config, &status(&installs));
            let store = config.store();
            let shelves = store
                .prune(|s| stale(s, &judge.installs, judge.code.as_deref()).is_none())
                .map_err(|e| {
                    Failure::infra_because(format!("cannot prune {}", store.dir.display()), e)
                })?;
            print_out(&format!(
                "removed {} shelf(s) of observations no run can reuse; freed {}\n",
                shelves.removed.len(),
                size(shelves.freed_bytes)
            ));
            if !pruned.in_use.is_empty() {
                print_out(&format!(
                    "kept {} install(s) a running harness is using: {}\n",
                    pruned.in_use.len(),
                    pruned.in_use.join(", ")
                ));
            }
            print_out(&status_text(&installs, &config));
            Ok(Exit::Ok)
        }
    }
}

/// What decides whether a shelf of observations is stale: the identities
/// of the installs the cache holds, and this harness's code digest.
struct Judge {
    installs: std::collections::HashSet<String>,
    code: Option<String>,
}

impl Judge {
    fn of(config: &Config, s: &CacheStatus) -> Judge {
        let live: Vec<_> = s
            .installs
            .iter()
            .filter(|e| e.complete)
            .filter_map(|e| Some((e.version?, e.path.clone())))
            .collect();
        Judge {
            installs: identities(&live),
            code: probe_code_digest(&config.probe_dir).ok(),
        }
    }
}

fn status_text(installs: &crate::install::layout::Installs, config: &Config) -> String {
    let s = status(installs);
    let mut out = format!(
        "cache {}: {} on disk (hard links counted once)\n  store  {:>9}  pnpm's content-addressed store, beyond the installs' own bytes\n  tools  {:>9}  the pinned Node and pnpm\n",
        s.root.display(),
        size(s.total_bytes),
        size(s.store_bytes),
        size(s.tools_bytes),
    );
    out.push_str(&format!(
        "  {} install(s) (own: the bytes removing it frees):\n",
        s.installs.len()
    ));
    let now = SystemTime::now();
    for e in &s.installs {
        let kind = match e.kind {
            InstallKind::Registry => "registry",
            InstallKind::Pinned => "pinned",
            InstallKind::Build => "build",
        };
        let age = now.duration_since(e.last_used).map_or_else(
            |_| "now".to_string(),
            |d| format!("{}m ago", d.as_secs() / 60),
        );
        out.push_str(&format!(
            "    {:<28} {:<8} own {:>9}  used {}{}\n",
            e.name,
            kind,
            size(e.own_bytes),
            age,
            if e.complete {
                ""
            } else {
                "  (incomplete: prune removes it)"
            }
        ));
    }
    if !s.legacy.is_empty() {
        out.push_str(&format!(
            "  {} npm install(s) from before the store, {} (prune removes them)\n",
            s.legacy.len(),
            size(s.legacy_bytes)
        ));
    }
    out.push_str(&observations_text(config, &s));
    out
}

/// The observation store's lines of `cache status`.
fn observations_text(config: &Config, s: &CacheStatus) -> String {
    let store = config.store();
    let st = store.status();
    let judge = Judge::of(config, s);
    let records: usize = st.shelves.iter().map(|sh| sh.records).sum();
    let mut out = format!(
        "  observations {:>9}  {} shelf(s), {} observation(s) earlier runs made, for later runs to reuse ({})\n",
        size(st.bytes),
        st.shelves.len(),
        records,
        store.dir.display()
    );
    for sh in &st.shelves {
        let why = stale(sh, &judge.installs, judge.code.as_deref());
        out.push_str(&format!(
            "    {:<36} {:>6} obs  {:>9}{}\n",
            sh.folder,
            sh.records,
            size(sh.bytes),
            why.map_or(String::new(), |w| format!(
                "  (stale, {w}: prune removes it)"
            ))
        ));
    }
    out
}

fn size(bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    if mb >= 1000.0 {
        format!("{:.2} GB", mb / 1000.0)
    } else {
        format!("{mb:.1} MB")
    }
}
