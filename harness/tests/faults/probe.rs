//! Probe faults, through `run_cases` and the misbehaving probe: killed
//! mid-case, hung (with a process group that ignores SIGTERM), a blocked
//! event loop that stops reading stdin, garbage on the protocol channel,
//! climbing memory, and probes that fail to start or keep dying.

use crate::check;
use crate::support::*;
use mastra_conform::observation::Observation;
use mastra_conform::observe::pool::PoolConfig;
use mastra_conform::observe::probe::ProbeError;
use std::time::Duration;

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "probe/killed-mid-case",
            run: killed_mid_case,
        },
        Scenario {
            name: "probe/hung-group-ended-after-grace",
            run: hung_group_ended,
        },
        Scenario {
            name: "probe/blocked-event-loop-stops-reading",
            run: blocked_event_loop,
        },
        Scenario {
            name: "probe/garbage-on-the-protocol-channel",
            run: garbage,
        },
        Scenario {
            name: "probe/memory-climbs-and-is-recycled",
            run: memory_climbs,
        },
        Scenario {
            name: "probe/no-hello",
            run: no_hello,
        },
        Scenario {
            name: "probe/exits-at-start",
            run: exits_at_start,
        },
        Scenario {
            name: "probe/dies-whatever-it-runs",
            run: dies_whatever_it_runs,
        },
        Scenario {
            name: "probe/garbage-before-hello",
            run: garbage_before_hello,
        },
    ]
}

/// One case kills its probe (SIGKILL, after its request reached the
/// listener) every time; another only the first time. The first is the
/// crash, the second gets its result on the retry, and the six innocent
/// neighbours in flight with them get theirs.
fn killed_mid_case(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), None);
    let once = dir.path().join("died-once");
    let once = format!("die-once {}", once.display());
    let abouts = ["ok", "ok", "die", "ok", once.as_str(), "ok", "ok", "ok"];
    let cases: Vec<_> = abouts.iter().map(|a| case(a)).collect();
    t.inject(3); // `die` kills twice (run alone, then retried), `die-once` once
    let run = run_fake(&install, &cases, 8, Duration::from_secs(10));
    let stats = run.stats()?;
    check!(
        matches!(run.of(2)?, Observation::Crash(_)),
        "the poison case is not the crash: {:?}",
        run.of(2)?
    );
    let innocent = [0, 1, 3, 4, 5, 6, 7];
    t.lose(run.lost_of(&innocent, 1));
    check!(
        run.observations.len() == cases.len(),
        "{} observations for {} cases",
        run.observations.len(),
        cases.len()
    );
    check!(
        stats.restarts_after_crash >= 3,
        "{} restarts after a crash",
        stats.restarts_after_crash
    );
    Ok(())
}

/// A case hangs; its probe ignores SIGTERM and started a child that ignores
/// it too. After the case timeout and the grace, the whole group is gone and
/// the neighbours have their results.
fn hung_group_ended(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), None);
    let pids = dir.path().join("pids");
    let hang = format!("hang-group {}", pids.display());
    let cases = vec![case("ok"), case(&hang), case("ok"), case("ok")];
    t.inject(1);
    let timeout = Duration::from_secs(2);
    let run = run_fake(&install, &cases, 4, timeout);
    run.stats()?;
    check!(
        matches!(run.of(1)?, Observation::Timeout(_)),
        "the hung case is not a timeout: {:?}",
        run.of(1)?
    );
    t.lose(run.lost_of(&[0, 2, 3], 1));
    let group = alive_in(&pids)?;
    check!(
        group.is_empty(),
        "processes {group:?} of the hung probe's group are alive"
    );
    // Timeout, then SIGTERM and the grace (which the group ignores), then
    // SIGKILL.
    let least = timeout + mastra_conform::observe::proc::GRACE;
    check!(
        run.took >= least && run.took < least + Duration::from_secs(10),
        "ending the hung probe took {:?}",
        run.took
    );
    Ok(())
}

/// A case blocks the probe's event loop for good, so the probe stops
/// reading its stdin while the driver still has 200 KB requests to send.
/// The driver must not block on the pipe: the case times out, the
/// neighbours (sent to the same stuck probe) are retried alone and finish.
fn blocked_event_loop(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), None);
    let big = format!(r#","source":"{}""#, "s".repeat(200 << 10));
    let cases = vec![
        case_with("spin", &big),
        case_with("ok", &big),
        case_with("ok", &big),
        case_with("ok", &big),
    ];
    t.inject(1);
    let run = run_fake(&install, &cases, 4, Duration::from_secs(2));
    run.stats()?;
    check!(
        matches!(run.of(0)?, Observation::Timeout(_)),
        "the spinning case is not a timeout: {:?}",
        run.of(0)?
    );
    t.lose(run.lost_of(&[1, 2, 3], 1));
    check!(run.took < Duration::from_secs(20), "took {:?}", run.took);
    Ok(())
}

/// Lines that are not answers (text, bytes that are not UTF-8, JSON that is
/// no answer, an answer for a seq never sent, a 6 MiB line) are counted and
/// ignored.
fn garbage(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), None);
    let cases = vec![case("garbage"), case("ok"), case("garbage"), case("ok")];
    t.inject(2);
    let run = run_fake(&install, &cases, 4, Duration::from_secs(10));
    let stats = run.stats()?;
    t.lose(run.lost_of(&[0, 1, 2, 3], 1));
    check!(
        stats.garbage_lines >= 16,
        "{} garbage lines counted",
        stats.garbage_lines
    );
    check!(
        stats.restarts_after_crash == 0,
        "garbage made the probe restart"
    );
    Ok(())
}

/// Each case keeps 40 MB more; the probe is recycled between cases before
/// it passes the limit by much, and every case has its result.
fn memory_climbs(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), None);
    let cases: Vec<_> = (0..12).map(|_| case("grow 40")).collect();
    t.inject(1);
    let cfg = PoolConfig {
        ping_every: 2,
        recycle_rss: 250 << 20,
        ..pool(2, Duration::from_secs(10))
    };
    let run = run_pool(&fake_probe(), &install, &cases, &cfg);
    let stats = run.stats()?;
    t.lose(run.lost_of(&(0..12).collect::<Vec<_>>(), 1));
    check!(
        stats.recycled >= 1,
        "never recycled (max rss {})",
        stats.max_rss
    );
    check!(
        stats.max_rss < 600 << 20,
        "memory reached {} MB before a recycle",
        stats.max_rss >> 20
    );
    Ok(())
}

/// A probe that never says hello is ended after the start timeout, as a
/// process: nothing is left running.
fn no_hello(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let install = fake_install(
        dir.path(),
        Some(&format!(
            r#"{{"startup":"no-hello","pidfile":"{}"}}"#,
            pidfile.display()
        )),
    );
    t.inject(1);
    let cmd = mastra_conform::observe::probe::ProbeCommand {
        start_timeout: Duration::from_secs(1),
        ..fake_probe()
    };
    let run = run_pool(
        &cmd,
        &install,
        &[case("ok")],
        &pool(1, Duration::from_secs(5)),
    );
    check!(
        matches!(run.result, Err(ProbeError::NoHello { .. })),
        "not a NoHello: {:?}",
        run.result.as_ref().err()
    );
    check!(run.took < Duration::from_secs(6), "took {:?}", run.took);
    // On a loaded machine Node may not reach its first line within the
    // one-second start timeout; then there is no pid to check, and no
    // process running from the install may be left instead.
    match std::fs::read_to_string(&pidfile) {
        Ok(text) => {
            let pid: u32 = text.trim().parse().map_err(|e| format!("{e}"))?;
            check!(!alive(pid), "the probe that said no hello is alive");
        }
        Err(_) => {
            let left = processes_mentioning(&install.display().to_string());
            check!(
                left.is_empty(),
                "the probe that said no hello left {left:?}"
            );
        }
    }
    Ok(())
}

fn exits_at_start(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), Some(r#"{"startup":"exit"}"#));
    t.inject(1);
    let run = run_fake(&install, &[case("ok")], 1, Duration::from_secs(5));
    check!(
        matches!(run.result, Err(ProbeError::LoadFailed { .. })),
        "not a LoadFailed: {:?}",
        run.result.as_ref().err()
    );
    check!(run.took < Duration::from_secs(5), "took {:?}", run.took);
    Ok(())
}

/// A probe that dies shortly after every start, whatever it runs: the
/// version's run gives up after a bounded number of deaths, instead of
/// restarting for ever or blaming every case in turn.
fn dies_whatever_it_runs(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), Some(r#"{"startup":"exit-after-hello"}"#));
    let cases: Vec<_> = (0..20).map(|_| case("hang")).collect();
    t.inject(1);
    let run = run_fake(&install, &cases, 4, Duration::from_secs(10));
    check!(
        matches!(run.result, Err(ProbeError::Unstable { .. })),
        "not Unstable: {:?}",
        run.result.as_ref().map(|s| s.starts)
    );
    check!(
        run.observations.len() <= 3,
        "{} cases were blamed for the probe's own deaths",
        run.observations.len()
    );
    check!(run.took < Duration::from_secs(15), "took {:?}", run.took);
    Ok(())
}

fn garbage_before_hello(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), Some(r#"{"startup":"garbage-first"}"#));
    t.inject(1);
    let run = run_fake(&install, &[case("ok")], 1, Duration::from_secs(5));
    run.stats()?;
    t.lose(run.lost_of(&[0], 1));
    Ok(())
}
