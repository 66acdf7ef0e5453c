//! `cache status` and `cache prune`: the version cache as a table, and
//! making it smaller (`versions::cache` decides and removes; this prints).

use super::out::print_out;
use crate::outcome::{Exit, Failure};
use crate::run::config::{repo_root, Config};
use crate::versions::cache::{prune, status, InstallKind, Keep};
use std::path::PathBuf;
use std::time::SystemTime;

pub fn cache(action: super::CacheAction, cache: Option<PathBuf>) -> Result<Exit, Failure> {
    let mut config = Config::new(&repo_root());
    if let Some(c) = cache {
        config.cache = c;
    }
    let installs = config.installs();
    match action {
        super::CacheAction::Status => {
            print_out(&status_text(&installs));
            Ok(Exit::Ok)
        }
        super::CacheAction::Prune { keep, drop_builds } => {
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
