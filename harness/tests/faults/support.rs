//! What the scenarios share: the tally, fake probes and installs, running the
//! pool and the binary, and looking for processes left behind.

pub use crate::common::{bin, root, run_on, text};
use mastra_conform::case::Case;
use mastra_conform::install::layout::{default_cache, Installs, INSTALLS};
use mastra_conform::js::json::Json;
use mastra_conform::js::string::JsString;
use mastra_conform::observation::Observation;
use mastra_conform::observe::capture::Listener;
use mastra_conform::observe::pool::{run_cases, PoolConfig};
use mastra_conform::observe::probe::{ProbeCommand, ProbeError};
use mastra_conform::results::PoolStats;
use mastra_conform::version::spec::MastraVersion;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// One scenario's counts.
#[derive(Debug, Default)]
pub struct Tally {
    pub injected: u32,
    pub bad_inputs: u32,
    pub lost: u32,
}

impl Tally {
    pub fn inject(&mut self, n: u32) {
        self.injected += n;
    }
    pub fn bad_input(&mut self) {
        self.bad_inputs += 1;
    }
    pub fn lose(&mut self, n: usize) {
        self.lost += n as u32;
    }
}

pub type Check = Result<(), String>;

pub struct Scenario {
    pub name: &'static str,
    pub run: fn(&mut Tally) -> Check,
}

/// `check!(condition, "what went wrong {}", x)`: fail the scenario.
#[macro_export]
macro_rules! check {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

/// `node-probe/testing/`: the misbehaving probe (`probe.mjs`) and `bin/npm`.
pub fn testing_dir() -> PathBuf {
    root().join("node-probe").join("testing")
}

/// A case whose `about` tells the fake probe what to do.
pub fn case(about: &str) -> Case {
    case_with(about, "")
}

/// The same, with more top-level fields (`"source": ...` and such).
pub fn case_with(about: &str, more: &str) -> Case {
    let about = Json::String(JsString::from(about)).to_compact();
    let text = format!(r#"{{"about":{about}{more}}}"#);
    Case::parse(Path::new("fault.json"), &text).expect("a fault case is a valid case")
}

/// A folder the fake probe is started on, with its start-up behaviour.
pub fn fake_install(dir: &Path, startup: Option<&str>) -> PathBuf {
    let install = dir.join("install");
    std::fs::create_dir_all(&install).unwrap();
    if let Some(s) = startup {
        std::fs::write(install.join("fake-probe.json"), s).unwrap();
    }
    install
}

pub fn fake_probe() -> ProbeCommand {
    ProbeCommand {
        node: PathBuf::from("node"),
        script: testing_dir().join("probe.mjs"),
        start_timeout: Duration::from_secs(20),
        // The fake probe is the harness's own code, and it reports its pid
        // and its children's through files the scenarios read: it runs
        // outside the sandbox (the sandbox scenarios use the real probe).
        sandboxed: false,
        mcp_server: None,
        node_flags: Vec::new(),
    }
}

pub fn pool(concurrency: usize, case_timeout: Duration) -> PoolConfig {
    PoolConfig {
        concurrency,
        case_timeout,
        ..PoolConfig::default()
    }
}

pub struct PoolRun {
    pub observations: Vec<(usize, Observation)>,
    pub result: Result<PoolStats, ProbeError>,
    pub took: Duration,
}

impl PoolRun {
    /// The one observation of case `i`, or why there is not exactly one.
    pub fn of(&self, i: usize) -> Result<&Observation, String> {
        let mut found = self.observations.iter().filter(|(x, _)| *x == i);
        match (found.next(), found.next()) {
            (Some((_, o)), None) => Ok(o),
            (None, _) => Err(format!("case {i} has no observation")),
            (Some(_), Some(_)) => Err(format!("case {i} has two observations")),
        }
    }

    /// How many of `cases` did not end as `Done` with exactly `requests`
    /// captured bodies: results lost.
    pub fn lost_of(&self, cases: &[usize], requests: usize) -> usize {
        cases
            .iter()
            .filter(|i| {
                !matches!(self.of(**i), Ok(Observation::Done { captured, .. }) if captured.len() == requests)
            })
            .count()
    }

    pub fn stats(&self) -> Result<&PoolStats, String> {
        self.result.as_ref().map_err(|e| e.to_string())
    }
}

/// Run `cases` on the fake probe for `install`, `concurrency` at a time,
/// each given `case_timeout`.
pub fn run_fake(
    install: &Path,
    cases: &[Case],
    concurrency: usize,
    case_timeout: Duration,
) -> PoolRun {
    run_pool(
        &fake_probe(),
        install,
        cases,
        &pool(concurrency, case_timeout),
    )
}

/// Run `cases` on `cmd` for `install` against a fresh listener.
pub fn run_pool(cmd: &ProbeCommand, install: &Path, cases: &[Case], cfg: &PoolConfig) -> PoolRun {
    let listener = Listener::start(1 << 20).unwrap();
    run_pool_on(cmd, install, cases, cfg, &listener, &AtomicBool::new(false))
}

pub fn run_pool_on(
    cmd: &ProbeCommand,
    install: &Path,
    cases: &[Case],
    cfg: &PoolConfig,
    listener: &Listener,
    stop: &AtomicBool,
) -> PoolRun {
    let refs: Vec<&Case> = cases.iter().collect();
    let mut observations = Vec::new();
    let began = Instant::now();
    let result = run_cases(cmd, install, listener, &refs, cfg, stop, |i, o| {
        observations.push((i, o))
    });
    PoolRun {
        observations,
        result,
        took: began.elapsed(),
    }
}

/// Whether process `pid` is running (a zombie is not).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the command name, which is in parentheses.
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// Live processes whose command line mentions `needle` (a scenario's own
/// temporary folder), other than this one.
pub fn processes_mentioning(needle: &str) -> Vec<(u32, String)> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) && alive(pid) {
            found.push((pid, cmdline));
        }
    }
    found
}

/// The pids in `file` (a fake probe writes its group's there) that are
/// still alive.
pub fn alive_in(file: &Path) -> Result<Vec<u32>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("no pid file: {e}"))?;
    Ok(text
        .split_whitespace()
        .filter_map(|p| p.parse::<u32>().ok())
        .filter(|&pid| alive(pid))
        .collect())
}

/// A scenario's probes all name its folder `needle` (their install is in
/// it): wait for one to start.
pub fn a_probe_starts(needle: &str) -> Check {
    check!(
        wait_for(Duration::from_secs(10), || !processes_mentioning(needle)
            .is_empty()),
        "no probe started"
    );
    Ok(())
}

/// None of a scenario's probes (they name `needle`) is left running.
pub fn no_probe_left(needle: &str) -> Check {
    let left = processes_mentioning(needle);
    check!(left.is_empty(), "left running: {left:?}");
    Ok(())
}

/// Wait up to `within` for `f` to hold.
pub fn wait_for(within: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if f() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The binary running in the background, its output going to files. If a
/// scenario fails before it has ended, dropping it kills and reaps it: a
/// failed check must not leave a harness behind.
pub struct Spawned {
    child: Option<Child>,
    stdout: PathBuf,
    stderr: PathBuf,
}

impl Spawned {
    pub fn start(cmd: &mut Command, dir: &Path) -> Spawned {
        let (stdout, stderr) = (dir.join("harness.stdout"), dir.join("harness.stderr"));
        let child = cmd
            .stdout(std::fs::File::create(&stdout).unwrap())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("the binary starts");
        Spawned {
            child: Some(child),
            stdout,
            stderr,
        }
    }

    pub fn signal(&self, sig: i32) {
        if let Some(c) = &self.child {
            // SAFETY: kill(2) on the pid of our own, unreaped child.
            unsafe { libc::kill(c.id() as libc::pid_t, sig) };
        }
    }

    /// Wait for it to exit (killing it past `within`): its exit code (None
    /// for a signal) and what it printed.
    pub fn finish(&mut self, within: Duration) -> Result<(Option<i32>, String, String), String> {
        let mut child = self.child.take().ok_or("already finished")?;
        let deadline = Instant::now() + within;
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the harness did not exit within {within:?}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        Ok((status.code(), read(&self.stdout), read(&self.stderr)))
    }
}

impl Spawned {
    /// Interrupt it with `sig`: within `within` it must exit as an
    /// interrupted run does (3). What it printed.
    pub fn interrupt(&mut self, sig: i32, within: Duration) -> Result<(String, String), String> {
        self.signal(sig);
        let (code, stdout, stderr) = self.finish(within)?;
        check!(code == Some(3), "exit {code:?}:\n{stdout}{stderr}");
        Ok((stdout, stderr))
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub fn read_json(path: &Path) -> Result<Json, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("no report at {}: {e}", path.display()))?;
    Json::parse(&text).map_err(|e| format!("the report is not JSON: {e}"))
}

pub fn s(v: &Json) -> String {
    v.as_str().map(JsString::to_lossy).unwrap_or_default()
}

pub fn results(report: &Json) -> Vec<Json> {
    report
        .get("results")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .to_vec()
}

/// A port on 127.0.0.1 that nobody listens on (bound, then let go).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A cache for the binary with a finished fake install of 1.67.0 (the fake
/// probe ignores what is in it), and the environment that points the binary
/// at the fake probe and the machine's `node`.
pub fn fake_cache(dir: &Path, startup: Option<&str>) -> Vec<(String, String)> {
    let cache = dir.join("cache");
    let install = cache.join(INSTALLS).join("1.67.0");
    std::fs::create_dir_all(&install).unwrap();
    let installs = Installs {
        cache: cache.clone(),
        probe_dir: testing_dir(),
        install_timeout: Duration::from_secs(1),
        cancel: None,
    };
    let v = MastraVersion::parse("1.67.0").unwrap();
    let (marker, key) = installs.complete_marker(v);
    assert_eq!(marker.parent(), Some(install.as_path()));
    std::fs::write(marker, key).unwrap();
    if let Some(s) = startup {
        std::fs::write(install.join("fake-probe.json"), s).unwrap();
    }
    fake_env(&cache)
}

/// `run --versions 1.67.0 --cases CASES` with `env` (`fake_cache`'s).
pub fn run_fake_cases(env: &[(String, String)], cases: &Path) -> Command {
    let mut c = run_on("1.67.0", cases);
    c.envs(env.iter().cloned());
    c
}

pub fn fake_env(cache: &Path) -> Vec<(String, String)> {
    vec![
        (
            "MASTRA_CONFORM_PROBE_DIR".into(),
            testing_dir().display().to_string(),
        ),
        ("MASTRA_CONFORM_CACHE".into(), cache.display().to_string()),
        ("MASTRA_CONFORM_NODE".into(), "node".into()),
        // As `fake_probe`: the fake probe runs outside the sandbox.
        ("MASTRA_CONFORM_SANDBOX".into(), "off".into()),
    ]
}

/// A folder of fake-probe cases, one file per `about`.
pub fn case_dir(dir: &Path, abouts: &[&str]) -> PathBuf {
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    for (i, about) in abouts.iter().enumerate() {
        let about = Json::String(JsString::from(*about)).to_compact();
        std::fs::write(
            cases.join(format!("c{i:03}.json")),
            format!(r#"{{"about":{about}}}"#),
        )
        .unwrap();
    }
    cases
}

/// The real install of `v` and the Node that runs it, from the default
/// cache (installed on first use, as the e2e tests do), made once.
pub fn real_mastra(v: &str) -> Result<(PathBuf, PathBuf), String> {
    type Installed = Result<(PathBuf, PathBuf), String>;
    static REAL: OnceLock<Mutex<Vec<(String, Installed)>>> = OnceLock::new();
    let lock = REAL.get_or_init(|| Mutex::new(Vec::new()));
    let mut known = lock.lock().unwrap();
    if let Some((_, r)) = known.iter().find(|(k, _)| k == v) {
        return r.clone();
    }
    let installs = Installs {
        cache: default_cache(),
        probe_dir: root().join("node-probe"),
        install_timeout: Duration::from_secs(600),
        cancel: None,
    };
    let version = MastraVersion::parse(v).ok_or("bad version")?;
    let r = installs
        .ensure(version, None)
        .map_err(|e| mastra_conform::outcome::error_chain(&e))
        .and_then(|dir| {
            let node = installs
                .node()
                .map_err(|e| mastra_conform::outcome::error_chain(&e))?;
            let node = if node.path.is_absolute() {
                node.path
            } else {
                which(&node.path).ok_or("node is not on PATH")?
            };
            Ok((dir, node))
        });
    known.push((v.to_string(), r.clone()));
    r
}

fn which(program: &Path) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}

/// A private cache that links to the real installs, so that the probes of a
/// scenario are told apart by their command lines (they name the install).
pub fn linked_cache(dir: &Path, installs: &[&Path]) -> PathBuf {
    let cache = dir.join("cache");
    let mastra = cache.join(INSTALLS);
    std::fs::create_dir_all(&mastra).unwrap();
    for install in installs {
        std::os::unix::fs::symlink(install, mastra.join(install.file_name().unwrap())).unwrap();
    }
    cache
}

/// A scenario's folder for installs of its own (a cache, a pnpm store, a
/// copy of Node): removed after the scenario by a detached `rm`, not by
/// the worker that ran it. Deleting such a tree (tens of thousands of
/// files) held a worker for tens of seconds at almost no CPU on a loaded
/// machine, inside the suite's time budget.
pub struct InstallDir(Option<tempfile::TempDir>);

/// A new `InstallDir` in the temporary folder.
pub fn install_dir() -> InstallDir {
    InstallDir(Some(tempfile::tempdir().unwrap()))
}

impl InstallDir {
    pub fn path(&self) -> &Path {
        self.0.as_ref().expect("the folder until drop").path()
    }
}

impl Drop for InstallDir {
    fn drop(&mut self) {
        use std::os::unix::process::CommandExt;
        use std::process::Stdio;
        let Some(dir) = self.0.take() else {
            return;
        };
        let path = dir.keep();
        let spawned = Command::new("rm")
            .arg("-rf")
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
        if spawned.is_err() {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}
