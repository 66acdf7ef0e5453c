//! `cache status` and `cache prune`: the version cache as a table, and
//! making it smaller (`versions::cache` decides and removes; this prints).

use super::args::CacheDirArgs;
use super::out::print_out;
use crate::outcome::{Exit, Failure};
use crate::versions::cache::{prune, status, InstallKind, Keep};
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
    let installs = args.dir.config().installs();
    match args.action {
        CacheAction::Status => {
            print_out(&status_text(&installs));
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
            if !pruned.in_use.is_empty() {
                print_out(&format!(
                    "kept {} install(s) a running harness is using: {}\n",
                    pruned.in_use.len(),
                    pruned.in_use.join(", ")
                ));
            }
            print_out(&status_text(&installs));
            Ok(Exit::Ok)
        }
    }
}

fn status_text(installs: &crate::versions::layout::Installs) -> String {
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
