//! Run faults, through the binary: Ctrl-C and SIGTERM mid-run (on the real
//! Mastra, the suite's acceptance test, and on a probe group that ignores
//! SIGTERM), an interrupt while a probe starts, a report folder that is
//! missing, a file, or gone by the end, a full disk, an install interrupted
//! (politely and with SIGKILL), two runs sharing one cache, and a real
//! install damaged under its marker.

use crate::check;
use crate::support::*;
use mastra_conform::install::layout::INSTALLS;
use mastra_conform::js::json::Json;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "run/ctrl-c-mid-run-on-real-mastra",
            run: ctrl_c_real,
        },
        Scenario {
            name: "run/kill-int-mid-matrix-on-real-mastra",
            run: kill_int_matrix,
        },
        Scenario {
            name: "run/sigterm-with-a-hung-probe-group",
            run: sigterm_hung_group,
        },
        Scenario {
            name: "run/sigkill-of-the-harness-ends-its-probes",
            run: sigkill_ends_probes,
        },
        Scenario {
            name: "run/sigterm-while-a-probe-starts",
            run: sigterm_during_start,
        },
        Scenario {
            name: "run/report-folder-missing-or-a-file",
            run: report_unwritable,
        },
        Scenario {
            name: "run/report-folder-gone-by-the-end",
            run: report_folder_gone,
        },
        Scenario {
            name: "run/disk-full",
            run: disk_full,
        },
        Scenario {
            name: "run/install-interrupted",
            run: install_interrupted,
        },
        Scenario {
            name: "run/install-killed",
            run: install_killed,
        },
        Scenario {
            name: "run/two-runs-share-the-cache",
            run: two_runs_share_the_cache,
        },
        Scenario {
            name: "run/an-install-on-a-full-disk-names-the-cache",
            run: full_disk_install,
        },
        Scenario {
            name: "run/a-broken-pinned-node-is-made-again",
            run: broken_node_remade,
        },
        Scenario {
            name: "run/prune-during-a-run-keeps-its-install",
            run: prune_during_a_run,
        },
        Scenario {
            name: "run/a-damaged-install-is-made-again",
            run: damaged_install_remade,
        },
        Scenario {
            name: "run/a-damaged-install-not-made-whole-names-the-remedy",
            run: damaged_install_not_remade,
        },
    ]
}

const VERDICTS_OF_A_FINISHED_CASE: &[&str] = &[
    "as-modelled",
    "not-applicable",
    "unmodelled",
    "known-issue",
    "known-issue-fixed",
    "snapshot-changed",
    "provider-rejects",
    "diverged",
];

/// The report at `path`, which must say the run was interrupted.
fn interrupted_report(path: &Path) -> Result<Json, String> {
    let report = read_json(path)?;
    let interrupted = report
        .get("run")
        .and_then(|r| r.get("interrupted"))
        .and_then(Json::as_bool);
    check!(
        interrupted == Some(true),
        "the report does not say it was interrupted"
    );
    Ok(report)
}

/// A cache of this scenario's own linking to the real 1.67.0 and 1.0.4, and
/// the Node that runs them.
fn real_cache(dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    let (i67, node) = real_mastra("1.67.0")?;
    let (i104, _) = real_mastra("1.0.4")?;
    Ok((linked_cache(dir, &[&i67, &i104]), node))
}

/// The results of an interrupted run over the real corpus on both versions:
/// fewer than all of them.
fn results_of_a_cut_run(report: &Json) -> Result<Vec<Json>, String> {
    let results = results(report);
    check!(
        results.len() < 66 * 2,
        "{} results: the run was not interrupted",
        results.len()
    );
    Ok(results)
}

/// Results of cases that finished but carry an infrastructure verdict (a
/// crash or a timeout the interrupt caused): damaged, so counted as lost.
fn damaged(results: &[Json]) -> usize {
    results
        .iter()
        .filter(|r| {
            let v = r.get("verdict").map(s).unwrap_or_default();
            !VERDICTS_OF_A_FINISHED_CASE.contains(&v.as_str())
        })
        .count()
}

/// The acceptance test: `kill -INT` to a long run over two real versions
/// (the stand-in for `matrix`) leaves a readable partial report and no
/// node process behind. `--bodies` writes a file per case the moment it
/// finishes, which shows when the run is under way, and afterwards which
/// results the report must hold.
fn ctrl_c_real(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let (cache, node) = real_cache(dir.path())?;
    let report = dir.path().join("report.json");
    let bodies = dir.path().join("bodies");
    let mut child = Spawned::start(
        bin()
            .env("MASTRA_CONFORM_CACHE", &cache)
            .env("MASTRA_CONFORM_NODE", &node)
            .args([
                "run",
                "--versions",
                "1.67.0,1.0.4",
                "--concurrency",
                "2",
                "--json",
            ])
            .arg(&report)
            .arg("--bodies")
            .arg(&bodies),
        dir.path(),
    );
    let finished = || std::fs::read_dir(&bodies).map(|d| d.count()).unwrap_or(0);
    check!(
        wait_for(Duration::from_secs(60), || finished() >= 5),
        "no case finished"
    );
    t.inject(1);
    let (stdout, _) = child.interrupt(libc::SIGINT, Duration::from_secs(20))?;
    // Probes name their install, which is under this scenario's cache.
    no_probe_left(&cache.display().to_string())?;
    let results = results_of_a_cut_run(&interrupted_report(&report)?)?;
    let reported: std::collections::BTreeSet<String> = results
        .iter()
        .map(|r| {
            let (case, version) = (r.get("case").map(s), r.get("version").map(s));
            mastra_conform::judge::snapshot::name(
                &case.unwrap_or_default(),
                mastra_conform::version::spec::MastraVersion::parse(&version.unwrap_or_default())
                    .unwrap_or(mastra_conform::version::spec::MastraVersion::new(0, 0, 0)),
            )
        })
        .collect();
    let missing = std::fs::read_dir(&bodies)
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".txt")
                .to_string();
            !reported.contains(&name)
        })
        .count();
    t.lose(missing + damaged(&results));
    check!(
        stdout.contains("interrupted"),
        "the summary does not say it was interrupted"
    );
    Ok(())
}

/// The acceptance test as written: `kill -INT` to a `matrix` on
/// two real versions. Its `results.jsonl` grows as cases finish (which shows
/// when it is under way); afterwards `report.json` is readable, says it was
/// interrupted, and holds every result the JSONL has; no node is left.
fn kill_int_matrix(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let (cache, node) = real_cache(dir.path())?;
    let out = dir.path().join("matrix");
    let mut child = Spawned::start(
        bin()
            .env("MASTRA_CONFORM_CACHE", &cache)
            .env("MASTRA_CONFORM_NODE", &node)
            .args(["matrix", "--versions", "1.67.0,1.0.4", "--concurrency", "2"])
            .args(["--jsonl", "--json"])
            .arg(out.join("report.json"))
            .arg("--out")
            .arg(&out),
        dir.path(),
    );
    let jsonl = out.join("results.jsonl");
    let lines = || {
        std::fs::read_to_string(&jsonl)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    check!(
        wait_for(Duration::from_secs(60), || lines() >= 6),
        "no case finished"
    );
    t.inject(1);
    child.interrupt(libc::SIGINT, Duration::from_secs(20))?;
    no_probe_left(&cache.display().to_string())?;
    let results = results_of_a_cut_run(&interrupted_report(&out.join("report.json"))?)?;
    let key = |r: &Json| (r.get("case").map(s), r.get("version").map(s));
    let reported: std::collections::BTreeSet<_> = results.iter().map(key).collect();
    let written: Vec<Json> = std::fs::read_to_string(&jsonl)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| Json::parse(l).ok())
        .filter(|r| r.get("verdict").is_some())
        .collect();
    let missing = written
        .iter()
        .filter(|r| !reported.contains(&key(r)))
        .count();
    t.lose(missing + damaged(&results));
    Ok(())
}

/// SIGTERM while a case hangs in a probe that ignores SIGTERM and has a
/// child that ignores it too: the run ends within the grace, the cases that
/// finished are in the report, and the whole group is gone.
fn sigterm_hung_group(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let env = fake_cache(dir.path(), None);
    let pids = dir.path().join("pids");
    let hang = format!("hang-group {}", pids.display());
    let cases = case_dir(dir.path(), &["ok", hang.as_str(), "ok"]);
    let report = dir.path().join("report.json");
    // `--bodies` writes each case's bodies the moment it finishes: the
    // signal goes in once both neighbours are done, not after a guess at
    // how long they take on a loaded machine.
    let bodies = dir.path().join("bodies");
    let mut child = Spawned::start(
        run_fake_cases(&env, &cases)
            .args(["--case-timeout", "60", "--json"])
            .arg(&report)
            .arg("--bodies")
            .arg(&bodies),
        dir.path(),
    );
    check!(
        wait_for(Duration::from_secs(10), || pids.exists()),
        "the hanging case never started"
    );
    let finished = || {
        std::fs::read_dir(&bodies)
            .map(|d| d.flatten().count())
            .unwrap_or(0)
    };
    check!(
        wait_for(Duration::from_secs(20), || finished() >= 2),
        "the two cases beside the hanging one never finished"
    );
    t.inject(1);
    child.interrupt(libc::SIGTERM, Duration::from_secs(10))?;
    let group = alive_in(&pids).unwrap_or_default();
    check!(
        group.is_empty(),
        "processes {group:?} of the hung probe's group are alive"
    );
    no_probe_left(&dir.path().join("cache").display().to_string())?;
    let results = results(&interrupted_report(&report)?);
    let finished = results
        .iter()
        .filter(|r| r.get("verdict").map(s).as_deref() == Some("as-modelled"))
        .count();
    t.lose(2usize.saturating_sub(finished) + damaged(&results));
    Ok(())
}

/// SIGKILL of the harness itself, which runs no cleanup, while its probe
/// hangs in a case and would ignore both SIGTERM and the end of its stdin:
/// the kernel's parent-death signal ends the probe anyway.
fn sigkill_ends_probes(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let env = fake_cache(dir.path(), None);
    let pid_file = dir.path().join("probe.pid");
    let deaf = format!("deaf {}", pid_file.display());
    let cases = case_dir(dir.path(), &[deaf.as_str()]);
    let mut child = Spawned::start(
        run_fake_cases(&env, &cases).args(["--case-timeout", "60"]),
        dir.path(),
    );
    check!(
        wait_for(Duration::from_secs(10), || pid_file.exists()),
        "the deaf case never started"
    );
    let probe: u32 = std::fs::read_to_string(&pid_file)
        .unwrap_or_default()
        .trim()
        .parse()
        .map_err(|e| format!("the probe wrote no pid: {e}"))?;
    check!(alive(probe), "the probe {probe} is not running");
    t.inject(1);
    child.signal(libc::SIGKILL);
    let (code, _, _) = child.finish(Duration::from_secs(5))?;
    check!(code.is_none(), "the harness was not killed: exit {code:?}");
    check!(
        wait_for(Duration::from_secs(5), || !alive(probe)),
        "the probe {probe} outlived the SIGKILLed harness"
    );
    Ok(())
}

/// SIGTERM while the only probe has not said hello (its start timeout is a
/// minute): the run ends at once, with nothing left running and no case
/// reported as failed.
fn sigterm_during_start(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let env = fake_cache(dir.path(), Some(r#"{"startup":"no-hello"}"#));
    let cases = case_dir(dir.path(), &["ok", "ok"]);
    let report = dir.path().join("report.json");
    let mut child = Spawned::start(
        run_fake_cases(&env, &cases).arg("--json").arg(&report),
        dir.path(),
    );
    let needle = dir.path().join("cache").display().to_string();
    a_probe_starts(&needle)?;
    t.inject(1);
    child.interrupt(libc::SIGTERM, Duration::from_secs(6))?;
    no_probe_left(&needle)?;
    let report = interrupted_report(&report)?;
    check!(
        results(&report).is_empty(),
        "cases that never ran are in the report: {:?}",
        results(&report)
    );
    Ok(())
}

fn report_unwritable(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let env = fake_cache(dir.path(), None);
    let cases = case_dir(dir.path(), &["ok"]);
    let places = [
        dir.path().join("no/such/folder/report.json"),
        root().join("Cargo.toml").join("report.json"),
    ];
    for place in places {
        t.inject(1);
        let began = std::time::Instant::now();
        let out = run_fake_cases(&env, &cases)
            .arg("--json")
            .arg(&place)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        check!(
            out.status.code() == Some(3)
                && err.contains(&format!("cannot write the report {}", place.display())),
            "{}: exit {:?}: {err}",
            place.display(),
            out.status.code()
        );
        check!(
            began.elapsed() < Duration::from_secs(5) && out.stdout.is_empty(),
            "it ran the cases before finding out"
        );
    }
    Ok(())
}

/// The report's folder is there at the start and gone at the end: the
/// results are written to the temporary folder instead, and the error says
/// where.
fn report_folder_gone(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let env = fake_cache(dir.path(), None);
    let cases = case_dir(dir.path(), &["ok", "hang", "ok"]);
    let folder = dir.path().join("reports");
    std::fs::create_dir_all(&folder).unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut child = Spawned::start(
        run_fake_cases(&env, &cases)
            .env("TMPDIR", &tmp)
            .args(["--case-timeout", "2", "--json"])
            .arg(folder.join("report.json")),
        dir.path(),
    );
    a_probe_starts(&dir.path().join("cache").display().to_string())?;
    t.inject(1);
    std::fs::remove_dir_all(&folder).unwrap();
    let (code, _, err) = child.finish(Duration::from_secs(20))?;
    check!(
        code == Some(3) && err.contains("it was written to"),
        "exit {code:?}: {err}"
    );
    let fallback: Vec<PathBuf> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("mastra-conform-report-"))
        .collect();
    check!(fallback.len() == 1, "fallback reports: {fallback:?}");
    let results = results(&read_json(&fallback[0])?);
    t.lose(3usize.saturating_sub(results.len()));
    Ok(())
}

/// A disk that takes no more than 512 bytes per file (RLIMIT_FSIZE, with
/// SIGXFSZ ignored, as a full disk answers EFBIG/ENOSPC): a clear error,
/// and the report on stderr since no file can hold it.
fn disk_full(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let env = fake_cache(dir.path(), None);
    let cases = case_dir(dir.path(), &["ok", "ok", "ok"]);
    let mut cmd = run_fake_cases(&env, &cases);
    cmd.env("TMPDIR", dir.path())
        .arg("--json")
        .arg(dir.path().join("report.json"));
    // SAFETY: between fork and exec, only async-signal-safe calls: signal(2)
    // and setrlimit(2) on this (child) process.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 512,
                rlim_max: 512,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    t.inject(1);
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    check!(
        out.status.code() == Some(3) && err.contains("cannot write the report"),
        "exit {:?}: {err}",
        out.status.code()
    );
    let dumped = err
        .split_once("the report follows\n")
        .and_then(|(_, rest)| rest.rsplit_once("\nerror:"))
        .map(|(json, _)| json.to_string())
        .unwrap_or_default();
    let results = Json::parse(&dumped)
        .map(|r| results(&r))
        .unwrap_or_default();
    t.lose(3usize.saturating_sub(results.len()));
    Ok(())
}

fn fake_npm_env(dir: &Path, mode: &str) -> Vec<(String, String)> {
    let path = format!(
        "{}:{}",
        testing_dir().join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    vec![
        ("PATH".into(), path),
        (
            "MASTRA_CONFORM_PNPM".into(),
            testing_dir().join("bin").join("pnpm").display().to_string(),
        ),
        ("FAKE_NPM_MODE".into(), mode.into()),
        (
            "FAKE_NPM_LOG".into(),
            dir.join("npm.log").display().to_string(),
        ),
        (
            "FAKE_NPM_PID".into(),
            dir.join("npm.pid").display().to_string(),
        ),
    ]
}

/// `run` on an empty cache with the fake npm, so the version is installed
/// first.
fn install_run(dir: &Path, mode: &str, cases: &Path, report: &str) -> Command {
    let mut c = run_fake_cases(&fake_env(&dir.join("cache")), cases);
    c.envs(fake_npm_env(dir, mode))
        .arg("--json")
        .arg(dir.join(report));
    c
}

fn installs_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("cache").join(INSTALLS))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every install npm was asked for, each of which must have been told to
/// run no package script.
fn npm_installs(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("npm.log"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with("view"))
        .map(str::to_string)
        .collect()
}

fn npm_pid(dir: &Path) -> Option<u32> {
    std::fs::read_to_string(dir.join("npm.pid"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// `run` on an empty cache whose (fake) npm hangs, once npm has started.
fn start_a_hanging_install(dir: &Path, cases: &Path) -> Result<Spawned, String> {
    let child = Spawned::start(&mut install_run(dir, "hang", cases, "report.json"), dir);
    check!(
        wait_for(Duration::from_secs(10), || npm_pid(dir).is_some()),
        "npm never started"
    );
    Ok(child)
}

/// After an install that did not finish, the next run installs afresh (npm
/// runs a second time), leaves only the finished install, and has its
/// result.
fn the_next_run_installs_afresh(t: &mut Tally, dir: &Path, cases: &Path) -> Check {
    let out = install_run(dir, "ok", cases, "report.json")
        .output()
        .unwrap();
    check!(out.status.code() == Some(0), "the next run: {}", text(&out));
    check!(
        npm_installs(dir).len() == 2,
        "npm ran {:?}",
        npm_installs(dir)
    );
    check!(installs_in(dir) == ["1.67.0"], "{:?}", installs_in(dir));
    let results = results(&read_json(&dir.join("report.json"))?);
    t.lose(1usize.saturating_sub(results.len()));
    Ok(())
}

/// Ctrl-C while npm installs: npm is ended at once, nothing half-made is
/// left under the install's name, and the next run installs afresh.
fn install_interrupted(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let cases = case_dir(dir.path(), &["ok"]);
    let mut child = start_a_hanging_install(dir.path(), &cases)?;
    t.inject(1);
    child.interrupt(libc::SIGINT, Duration::from_secs(6))?;
    let npm = npm_pid(dir.path()).unwrap_or(0);
    check!(!alive(npm), "npm ({npm}) was left running");
    check!(
        installs_in(dir.path()).is_empty(),
        "left in the cache: {:?}",
        installs_in(dir.path())
    );
    check!(
        results(&read_json(&dir.path().join("report.json"))?).is_empty(),
        "an install that was interrupted is reported as failed cases"
    );
    the_next_run_installs_afresh(t, dir.path(), &cases)
}

/// SIGKILL while npm installs: the harness cannot clean up, so a temporary
/// folder stays; the next run never takes it for an install, removes it and
/// installs afresh.
fn install_killed(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let cases = case_dir(dir.path(), &["ok"]);
    let mut child = start_a_hanging_install(dir.path(), &cases)?;
    t.inject(1);
    child.signal(libc::SIGKILL);
    let _ = child.finish(Duration::from_secs(5));
    // npm outlives a SIGKILLed harness (nothing can end it): end it here.
    if let Some(pid) = npm_pid(dir.path()) {
        // SAFETY: kill(2) on the fake npm this scenario started; no memory.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    }
    let left = installs_in(dir.path());
    check!(
        left.len() == 1 && left[0].starts_with(".tmp-1.67.0-"),
        "after the kill the cache holds {left:?}"
    );
    the_next_run_installs_afresh(t, dir.path(), &cases)
}

/// Two runs start at once on an empty cache and the same version: one
/// installs, the other waits for it and uses it; both have their results.
fn two_runs_share_the_cache(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let cases = case_dir(dir.path(), &["ok", "ok"]);
    let (da, db) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&da).unwrap();
    std::fs::create_dir_all(&db).unwrap();
    t.inject(1);
    let mut a = Spawned::start(
        &mut install_run(dir.path(), "slow", &cases, "report-1.json"),
        &da,
    );
    let mut b = Spawned::start(
        &mut install_run(dir.path(), "slow", &cases, "report-2.json"),
        &db,
    );
    let a = a.finish(Duration::from_secs(20))?;
    let b = b.finish(Duration::from_secs(20))?;
    check!(a.0 == Some(0), "the first run: {} {}", a.1, a.2);
    check!(b.0 == Some(0), "the second run: {} {}", b.1, b.2);
    check!(
        installs_in(dir.path()) == ["1.67.0"],
        "{:?}",
        installs_in(dir.path())
    );
    check!(
        npm_installs(dir.path()).len() == 1,
        "npm installed {} times",
        npm_installs(dir.path()).len()
    );
    check!(
        npm_installs(dir.path())
            .iter()
            .all(|l| l.contains("--ignore-scripts")),
        "npm was asked to run scripts: {:?}",
        npm_installs(dir.path())
    );
    let mut made = Vec::new();
    for n in [1, 2] {
        let report = read_json(&dir.path().join(format!("report-{n}.json")))?;
        t.lose(2usize.saturating_sub(results(&report).len()));
        let stats = report
            .get("run")
            .and_then(|r| r.get("stats"))
            .and_then(Json::as_array)
            .unwrap_or_default();
        made.extend(
            stats
                .iter()
                .filter(|s| s.get("installedNow").and_then(Json::as_bool) == Some(true))
                .map(|_| n),
        );
    }
    // Only the run that made the install says it did.
    check!(made.len() == 1, "installedNow in report(s) {made:?}");
    Ok(())
}

/// The installs of a cache on a real 4 MB disk (a tmpfs mounted over
/// `installs/` in a mount namespace of its own; the pinned Node, pnpm and
/// pnpm's store are the machine's, linked in): installing 1.67.0 fills it.
/// The error names the cache, what is free and what an install takes, and
/// no half-made install is left behind.
fn full_disk_install(t: &mut Tally) -> Check {
    real_mastra("1.67.0")?;
    let real = mastra_conform::install::layout::default_cache();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(cache.join(INSTALLS)).unwrap();
    for shared in ["node", "tools", "store", "pnpm-home"] {
        std::os::unix::fs::symlink(real.join(shared), cache.join(shared)).unwrap();
    }
    let case = dir.path().join("case.json");
    std::fs::write(&case, r#"{"about":"a dotted key","tools":["search.web"]}"#).unwrap();
    t.inject(1);
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        // What the run left on the small disk is listed before the
        // namespace, and the disk with it, goes.
        .arg(
            r#"mount -t tmpfs -o size=4m tmpfs "$1" || exit 99
d=$1; shift; "$@"; code=$?
echo "left: $(ls -A "$d" | tr '\n' ' ')" >&2; exit $code"#,
        )
        .arg("sh")
        .arg(cache.join(INSTALLS))
        .arg(env!("CARGO_BIN_EXE_mastra-conform"))
        .args(["run", "--versions", "1.67.0", "--cases"])
        .arg(&case)
        .arg("--cache")
        .arg(&cache)
        .output()
        .map_err(|e| format!("unshare: {e}"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    let said = format!("{}{err}", String::from_utf8_lossy(&out.stdout));
    check!(
        out.status.code() != Some(99) && !err.contains("unshare:"),
        "no namespace for a small disk here: {err}"
    );
    check!(
        out.status.code() == Some(3),
        "exit {:?}: {said}",
        out.status.code()
    );
    check!(
        said.contains(&format!("no space left in the cache {}", cache.display()))
            && said.contains("MB free; an install takes up to"),
        "the full disk is not named: {said}"
    );
    check!(!said.contains("panicked"), "{said}");
    let left = err
        .lines()
        .find_map(|l| l.strip_prefix("left: "))
        .ok_or_else(|| format!("the small disk was not listed: {err}"))?;
    check!(left.trim().is_empty(), "left on the full disk: {left}");
    Ok(())
}

/// The pinned Node marked complete over a binary cut short (as a full disk
/// left it for an older harness): the next use finds it does not run,
/// moves it aside and installs it again, instead of failing for ever.
fn broken_node_remade(t: &mut Tally) -> Check {
    use mastra_conform::install::layout::{default_cache, Installs};
    let real = Installs {
        cache: default_cache(),
        probe_dir: root().join("node-probe"),
        install_timeout: Duration::from_secs(600),
        cancel: None,
    };
    let good = real
        .node()
        .map_err(|e| mastra_conform::outcome::error_chain(&e))?;
    let dir = install_dir();
    let installs = Installs {
        cache: dir.path().to_path_buf(),
        ..real
    };
    // The pinned Node's folder, copied whole under its own name.
    let folder = good
        .path
        .ancestors()
        .find(|a| {
            a.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("lock-"))
        })
        .ok_or("the pinned Node is not in a lock- folder")?;
    let copy = dir.path().join("node").join(folder.file_name().unwrap());
    std::fs::create_dir_all(&copy).unwrap();
    let status = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", folder.display()))
        .arg(&copy)
        .status()
        .map_err(|e| e.to_string())?;
    check!(status.success(), "cp -a {}", folder.display());
    let binary = copy.join(good.path.strip_prefix(folder).unwrap());
    let whole = std::fs::metadata(&binary).map_err(|e| e.to_string())?.len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&binary)
        .and_then(|f| f.set_len(whole * 2 / 5))
        .map_err(|e| e.to_string())?;
    t.inject(1);
    let again = installs.node().map_err(|e| {
        format!(
            "a broken Node is reported, not made again: {}",
            mastra_conform::outcome::error_chain(&e)
        )
    })?;
    check!(
        again.version == good.version,
        "made again as {:?}, pinned {:?}",
        again.version,
        good.version
    );
    let len = std::fs::metadata(&again.path)
        .map_err(|e| e.to_string())?
        .len();
    check!(len == whole, "the binary is {len} bytes, not {whole}");
    Ok(())
}

/// `cache prune --keep 0` while a run is using its install: prune keeps
/// it and says so, the run finishes with every result, and once the run
/// has ended the same prune removes it.
fn prune_during_a_run(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let env = fake_cache(dir.path(), None);
    let go = dir.path().join("go");
    let cases = case_dir(dir.path(), &[&format!("wait-for {}", go.display()), "ok"]);
    let started = dir.path().join("go.started");
    let report = dir.path().join("report.json");
    let mut run = Spawned::start(
        run_fake_cases(&env, &cases).arg("--json").arg(&report),
        dir.path(),
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !started.exists() {
        check!(
            std::time::Instant::now() < deadline,
            "the waiting case never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let prune = || {
        Command::new(env!("CARGO_BIN_EXE_mastra-conform"))
            .args(["cache", "prune", "--keep", "0"])
            .envs(env.iter().cloned())
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout).into_owned()
                    + &String::from_utf8_lossy(&o.stderr)
            })
            .map_err(|e| e.to_string())
    };
    t.inject(1);
    let during = prune()?;
    std::fs::write(&go, "go").unwrap();
    let finished = run.finish(Duration::from_secs(30))?;
    check!(
        during.contains("kept 1 install(s) a running harness is using: 1.67.0"),
        "prune during the run: {during}"
    );
    check!(finished.0 == Some(0), "the run: {finished:?}");
    let got = results(&read_json(&report)?);
    t.lose(2usize.saturating_sub(got.len()));
    check!(
        got.iter().all(|r| !matches!(
            s(r.get("verdict").unwrap_or(&Json::Null)).as_str(),
            "install-failed" | "probe-fault"
        )),
        "{got:?}"
    );
    let after = prune()?;
    check!(
        after.contains("removed 1 install(s): 1.67.0"),
        "prune after the run: {after}"
    );
    Ok(())
}

/// A cache of the scenario's own, with its own store, whose pinned Node
/// and pnpm are the machine's (linked in, only run): `run` on 1.67.0 in it
/// is a real install from the registry, and nothing done to it reaches
/// the shared cache.
fn own_store_cache(dir: &Path) -> Result<PathBuf, String> {
    real_mastra("1.67.0")?;
    let real = mastra_conform::install::layout::default_cache();
    let cache = dir.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    for shared in ["node", "tools"] {
        std::os::unix::fs::symlink(real.join(shared), cache.join(shared)).unwrap();
    }
    Ok(cache)
}

/// `run --versions 1.67.0 --fresh` of one real case in `cache` (`--fresh`:
/// a stored observation would answer without starting a probe), with
/// `env`.
fn run_real_in(cache: &Path, dir: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let case = dir.join("case.json");
    std::fs::write(&case, r#"{"about":"a dotted key","tools":["search.web"]}"#).unwrap();
    Command::new(env!("CARGO_BIN_EXE_mastra-conform"))
        .args(["run", "--versions", "1.67.0", "--fresh", "--cases"])
        .arg(&case)
        .arg("--cache")
        .arg(cache)
        .arg("--json")
        .arg(dir.join("report.json"))
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// The one install of `cache` (pinned 1.67.0), and the chunk of its
/// `@mastra/core` that the probe's entry loads first: `dist/agent-*.js`.
fn install_and_chunk(cache: &Path) -> Result<(PathBuf, PathBuf), String> {
    let installs: Vec<PathBuf> = std::fs::read_dir(cache.join(INSTALLS))
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join(".mastra-conform-complete").is_file())
        .collect();
    check!(installs.len() == 1, "installs: {installs:?}");
    let install = installs[0].clone();
    let dist = install
        .join("node_modules/@mastra/core")
        .canonicalize()
        .map_err(|e| e.to_string())?
        .join("dist");
    let chunk = std::fs::read_dir(&dist)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("agent-") && n.ends_with(".js")
        })
        .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .ok_or_else(|| format!("no agent chunk in {}", dist.display()))?;
    Ok((install, chunk))
}

/// Where a content-addressed store keeps `bytes`: `v11/files/HH/REST`.
fn store_path(cache: &Path, bytes: &[u8]) -> PathBuf {
    use sha2::{Digest, Sha512};
    let hex: String = Sha512::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    cache
        .join("store/v11/files")
        .join(&hex[..2])
        .join(&hex[2..])
}

/// Cut `file` to half its length, its mtime kept: pnpm then trusts its
/// store's copy (the same file) and would link it into the next install
/// as it is. Returns the whole bytes.
fn cut_in_half(file: &Path) -> Result<Vec<u8>, String> {
    let whole = std::fs::read(file).map_err(|e| e.to_string())?;
    let mtime = std::fs::metadata(file)
        .and_then(|m| m.modified())
        .map_err(|e| e.to_string())?;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .map_err(|e| e.to_string())?;
    f.set_len(whole.len() as u64 / 2)
        .and_then(|()| f.set_modified(mtime))
        .map_err(|e| e.to_string())?;
    Ok(whole)
}

/// A real install whose first chunk is cut in half under its marker (the
/// store's copy with it, one hard-linked file): the next `run` moves it
/// aside, removes the damaged store file and installs again, says so, and
/// runs its case on the new install; the store's copy is whole again.
fn damaged_install_remade(t: &mut Tally) -> Check {
    let dir = install_dir();
    let cache = own_store_cache(dir.path())?;
    let first = run_real_in(&cache, dir.path(), &[]);
    check!(
        first.status.code() == Some(0),
        "the install: {}",
        text(&first)
    );
    let (install, chunk) = install_and_chunk(&cache)?;
    let stored = std::fs::read(&chunk).map_err(|e| e.to_string())?;
    let in_store = store_path(&cache, &stored);
    check!(
        in_store.is_file(),
        "{} is not in the store at {}",
        chunk.display(),
        in_store.display()
    );
    t.inject(1);
    let whole = cut_in_half(&chunk)?;
    check!(
        std::fs::metadata(&in_store).map(|m| m.len()).ok() == Some(whole.len() as u64 / 2),
        "the store's copy was not cut with the install's"
    );
    let again = run_real_in(&cache, dir.path(), &[]);
    let err = String::from_utf8_lossy(&again.stderr);
    check!(again.status.code() == Some(0), "the run: {}", text(&again));
    check!(
        err.contains(&format!(
            "notice: the install at {} is damaged",
            install.display()
        )) && err.contains("moving it aside and installing it again"),
        "the remake is not said: {err}"
    );
    check!(
        err.contains(&chunk.file_name().unwrap().to_string_lossy().into_owned()),
        "the damaged file is not named: {err}"
    );
    let got = results(&read_json(&dir.path().join("report.json"))?);
    t.lose(1usize.saturating_sub(got.len()));
    check!(
        got.iter()
            .all(|r| s(r.get("verdict").unwrap_or(&Json::Null)) == "as-modelled"),
        "{got:?}"
    );
    check!(
        std::fs::read(&in_store).ok().as_deref() == Some(&whole[..]),
        "the store's copy is not whole again"
    );
    let (_, remade) = install_and_chunk(&cache)?;
    check!(
        std::fs::read(&remade).ok().as_deref() == Some(&whole[..]),
        "the remade install's chunk is not whole"
    );
    Ok(())
}

/// The same damage, and the registry out of reach when the install is
/// made again (a closed port of 127.0.0.1): the remake cannot fetch the
/// damaged file, so the run says what to do (the install, `cache prune`,
/// the store), exits 3 as a probe failure does, and leaves no install
/// marked complete over the damage.
fn damaged_install_not_remade(t: &mut Tally) -> Check {
    let dir = install_dir();
    let cache = own_store_cache(dir.path())?;
    let first = run_real_in(&cache, dir.path(), &[]);
    check!(
        first.status.code() == Some(0),
        "the install: {}",
        text(&first)
    );
    let (install, chunk) = install_and_chunk(&cache)?;
    t.inject(1);
    cut_in_half(&chunk)?;
    // Nobody listens on a port this listener held and let go.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?;
    let registry = format!("http://{closed}/");
    let again = run_real_in(
        &cache,
        dir.path(),
        &[
            // pnpm 12 reads its settings from `pnpm_config_*`, not
            // `npm_config_*` (measured with `pnpm config get registry`).
            ("pnpm_config_registry", &registry),
            ("pnpm_config_fetch_retries", "0"),
        ],
    );
    let err = String::from_utf8_lossy(&again.stderr);
    check!(
        again.status.code() == Some(3),
        "exit {:?}: {}",
        again.status.code(),
        text(&again)
    );
    check!(
        err.contains("moving it aside and installing it again"),
        "the remake is not said: {err}"
    );
    let store = cache.join("store");
    check!(
        err.contains(&format!("remove {}", install.display()))
            && err.contains("mastra-conform cache prune")
            && err.contains(&format!("the store {}", store.display())),
        "the remedy is not named: {err}"
    );
    check!(!err.contains("panicked"), "{err}");
    check!(
        !install.join(".mastra-conform-complete").exists(),
        "the damaged install is still marked complete"
    );
    let got = results(&read_json(&dir.path().join("report.json"))?);
    t.lose(1usize.saturating_sub(got.len()));
    check!(
        got.iter()
            .all(|r| s(r.get("verdict").unwrap_or(&Json::Null)) == "probe-fault"),
        "{got:?}"
    );
    Ok(())
}
