//! `Sandbox`: the OS wall around code the harness did not write (the
//! `@mastra/core` under test in a probe, a user's project in the loader of
//! `lint --project`), and `Isolation`, which one a run had.
//!
//! In: a `CommandSpec` and a `Policy` (what the child may read, whether it
//! gets one Unix socket to a listener). Out: the same command wrapped in
//! bubblewrap, with its own user, PID, network, mount, IPC and UTS
//! namespaces:
//!
//! - the filesystem is a fresh tmpfs root holding the system's programs and
//!   libraries (`/usr`, `/bin`, `/lib*`, a few files of `/etc`), the paths
//!   the policy names, all read-only, plus a scratch `/tmp` and HOME
//!   (`/home/sandbox`) that vanish with it. The user's HOME, other projects,
//!   `/run` (and so the sockets of docker, dbus, ...) are not there at all;
//! - `/proc` is the namespace's own: the harness and every other process of
//!   the machine are not in it, so `/proc/$PPID/environ` reads nothing of
//!   the harness's;
//! - the network namespace is empty: no interface leads out, its loopback
//!   is its own, and nothing listens on it but what the child starts. A
//!   probe reaches its listener only through the one Unix socket the policy
//!   binds in (`Policy::listener_socket`);
//! - every process the child starts, detached, `setsid` or daemonised,
//!   lives in the PID namespace and is killed by the kernel when the
//!   child's namespace ends, which it does when the child exits or the
//!   harness dies (`--die-with-parent`);
//! - no capability, no new user namespace inside, a new session (no
//!   terminal to push input into).
//!
//! Why bubblewrap and not namespaces made here: setting up a PID namespace
//! needs a second fork and an init that reaps and forwards, a mount
//! namespace needs `pivot_root` and the right order of binds, and all of it
//! would run between `fork` and `exec` of a multi-threaded harness, where
//! only async-signal-safe calls are allowed. bubblewrap does exactly this,
//! is the sandbox of Flatpak, has been audited, is packaged by Debian
//! (`bubblewrap`) and most distributions, and runs unprivileged wherever the
//! kernel gives users namespaces. The crates that wrap namespaces are
//! younger, smaller, and would bring the same code into the harness's
//! address space.
//!
//! Where bubblewrap is missing or the kernel forbids namespaces (macOS, a
//! hardened kernel, a container without them), `detect` says why once and
//! the callers fall back to the JavaScript guard (`node-probe/guard.mjs`),
//! which is also the second wall inside the sandbox. `MASTRA_CONFORM_SANDBOX=off`
//! asks for the fallback on purpose.

use crate::observe::proc::{CommandSpec, ProcError};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// HOME inside the sandbox: a tmpfs of its own.
pub const SANDBOX_HOME: &str = "/home/sandbox";

/// Where a policy's listener socket appears inside the sandbox.
pub const SOCKET_DIR: &str = "/run/mastra-conform";

/// The variable that turns the sandbox off (`off`), for machines where it
/// cannot run and for the fault suite's fallback scenario.
pub const SWITCH: &str = "MASTRA_CONFORM_SANDBOX";

/// What walls a run's untrusted code had. Recorded in every report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Isolation {
    /// The OS sandbox and, inside it, the JavaScript guard.
    Namespaces { tool: String },
    /// The JavaScript guard alone, and why.
    Guard { why: String },
}

impl Isolation {
    /// One line for reports: `namespaces (bubblewrap 0.8.0)`, or
    /// `javascript guard only: bwrap not found on PATH`.
    pub fn describe(&self) -> String {
        match self {
            Isolation::Namespaces { tool } => {
                format!("namespaces ({tool}) and the javascript guard")
            }
            Isolation::Guard { why } => format!("javascript guard only: {why}"),
        }
    }

    pub fn is_sandboxed(&self) -> bool {
        matches!(self, Isolation::Namespaces { .. })
    }
}

/// bubblewrap, found and proved to work on this machine.
#[derive(Debug, Clone)]
pub struct Sandbox {
    bwrap: PathBuf,
    version: String,
    /// `--disable-userns` (bubblewrap 0.8 and later).
    disable_userns: bool,
}

/// What a sandboxed child may see and reach.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    read_only: Vec<PathBuf>,
    socket: Option<PathBuf>,
}

impl Policy {
    /// Nothing but the system's programs and libraries, and the program.
    pub fn new() -> Policy {
        Policy::default()
    }

    /// Let the child read `path` (a file or a folder), at its own path.
    pub fn read_only(mut self, path: impl AsRef<Path>) -> Policy {
        self.read_only.push(path.as_ref().to_path_buf());
        self
    }

    /// Let the child read a Node project at `dir` and every package it
    /// can resolve: `dir` itself, the `node_modules` of each folder above
    /// it (Node looks there; a monorepo hoists there), and, followed to
    /// where they really are, the packages its `node_modules` link to (a
    /// workspace package, a store elsewhere, `npm link`). A link into a
    /// `node_modules` binds that whole `node_modules`, since the package
    /// resolves its own dependencies from beside it. Only the names at the
    /// top of each `node_modules` (and of its `@scope` folders) are
    /// followed: bounded, whatever the tree's size.
    pub fn node_project(mut self, dir: &Path) -> Policy {
        let Ok(dir) = dir.canonicalize() else {
            return self.read_only(dir);
        };
        let mut todo = vec![dir.clone()];
        for above in dir.ancestors().skip(1) {
            let modules = above.join("node_modules");
            if modules.is_dir() {
                todo.push(modules);
            }
        }
        let mut bound: Vec<PathBuf> = Vec::new();
        while let Some(root) = todo.pop() {
            let Ok(root) = root.canonicalize() else {
                continue;
            };
            if bound.iter().any(|b| root.starts_with(b)) {
                continue;
            }
            for modules in [root.join("node_modules"), root.clone()] {
                if modules.file_name().is_some_and(|n| n == "node_modules") {
                    todo.extend(linked_packages(&modules));
                }
            }
            bound.push(root);
        }
        for root in bound {
            self = self.read_only(root);
        }
        self
    }

    /// Bind the folder holding the Unix socket `socket` into the sandbox
    /// at `SOCKET_DIR`; returns the policy and the socket's path inside.
    /// It is the child's one way out.
    pub fn listener_socket(mut self, socket: &Path) -> (Policy, String) {
        let name = socket.file_name().map_or_else(
            || "listener.sock".into(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.socket = Some(socket.to_path_buf());
        (self, format!("{SOCKET_DIR}/{name}"))
    }
}

/// Where the links at the top of `modules` (and of its `@scope` folders)
/// really lead, as folders to bind: the outermost `node_modules` holding a
/// target, or the target itself when none does. `modules` may be a link.
fn linked_packages(modules: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Ok(real) = modules.canonicalize() {
        if real != std::path::absolute(modules).unwrap_or_default() {
            found.push(real);
        }
    }
    let entries = |d: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(d)
            .map(|r| r.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    for entry in entries(modules) {
        let scoped = entry
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('@'));
        let names = if scoped && !entry.is_symlink() {
            entries(&entry)
        } else {
            vec![entry]
        };
        for name in names.into_iter().filter(|n| n.is_symlink()) {
            let Ok(target) = name.canonicalize() else {
                continue;
            };
            let outermost = target
                .ancestors()
                .filter(|a| a.file_name().is_some_and(|n| n == "node_modules"))
                .last()
                .map(Path::to_path_buf);
            found.push(outermost.unwrap_or(target));
        }
    }
    found
}

/// The system folders every program needs, read-only when present.
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];

/// Of `/etc`, only what a program needs to start and to name users and
/// time: not the machine's secrets (`/etc/shadow`, keys, credentials).
const ETC: &[&str] = &[
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/localtime",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/ssl/certs",
    "/etc/ca-certificates",
];

/// Whether this machine can sandbox, found out once per process: the
/// first caller pays for one `bwrap ... true` (a few milliseconds).
pub fn detect() -> Result<&'static Sandbox, &'static str> {
    static DETECTED: OnceLock<Result<Sandbox, String>> = OnceLock::new();
    DETECTED.get_or_init(find).as_ref().map_err(String::as_str)
}

/// The isolation this process gives untrusted code.
pub fn isolation() -> Isolation {
    match detect() {
        Ok(s) => Isolation::Namespaces {
            tool: format!("bubblewrap {}", s.version),
        },
        Err(why) => Isolation::Guard { why: why.into() },
    }
}

/// The one notice of a fallback, printed at most once per process.
pub fn notice_fallback() {
    static SAID: OnceLock<()> = OnceLock::new();
    if let Err(why) = detect() {
        SAID.get_or_init(|| {
            eprintln!(
                "notice: no OS sandbox ({why}); code under test runs behind the JavaScript guard only (docs/isolation.md)"
            );
        });
    }
}

/// Make the harness non-dumpable: its `/proc/PID/environ`, `mem`, `maps`
/// and fds then belong to root, and no process of the same user (a probe,
/// a project's code, anything they start) may read them. Without a sandbox
/// this is the wall that keeps the harness's own environment, credentials
/// included, from its children; with one, they cannot see it at all.
/// Children get their own flag back at `exec`. Root's children (outside a
/// sandbox) can still read it: root may read every process.
pub fn harden_harness() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_DUMPABLE) changes a flag of this process and
    // touches no memory.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/// `spec` in the sandbox under `policy` where this machine has one; else
/// `spec` itself, behind the JavaScript guard alone, after the one notice.
pub fn confine(spec: CommandSpec, policy: &Policy) -> CommandSpec {
    match detect() {
        Ok(sandbox) => sandbox.wrap(spec, policy),
        Err(_) => {
            notice_fallback();
            spec
        }
    }
}

fn find() -> Result<Sandbox, String> {
    if std::env::var(SWITCH).is_ok_and(|v| v == "off") {
        return Err(format!("{SWITCH}=off"));
    }
    if !cfg!(target_os = "linux") {
        return Err("namespaces are Linux's".into());
    }
    let bwrap = which("bwrap").ok_or_else(|| {
        "bwrap not found on PATH (Debian and Ubuntu: apt-get install bubblewrap)".to_string()
    })?;
    let version = CommandSpec::new(&bwrap)
        .arg("--version")
        .timeout(Duration::from_secs(10))
        .run_capture()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .trim_start_matches("bubblewrap ")
                .to_string()
        })
        .map_err(|e| format!("{} --version: {e}", bwrap.display()))?;
    let mut sandbox = Sandbox {
        bwrap,
        version,
        disable_userns: true,
    };
    // The proof is the real thing: the same flags every child gets.
    let prove = |s: &Sandbox| {
        s.wrap(CommandSpec::new("true"), &Policy::new())
            .timeout(Duration::from_secs(10))
            .run_capture()
    };
    if let Err(e) = prove(&sandbox) {
        // bubblewrap before 0.8 has no --disable-userns; the rest holds.
        if e.stderr_mentions(&["disable-userns"]) {
            sandbox.disable_userns = false;
            prove(&sandbox).map_err(|e| cannot(&e))?;
        } else {
            return Err(cannot(&e));
        }
    }
    Ok(sandbox)
}

fn cannot(e: &ProcError) -> String {
    let line = match e {
        ProcError::Failed { stderr, .. } => stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string(),
        other => other.to_string(),
    };
    format!("bubblewrap cannot make namespaces here: {line}")
}

/// `name` found on PATH, as a canonical path.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
        .and_then(|p| p.canonicalize().ok())
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

impl Sandbox {
    pub fn version(&self) -> &str {
        &self.version
    }

    /// `spec` run inside the sandbox, as `policy` allows. The environment,
    /// timeout, stop flag and process group of `spec` stay as they were
    /// (bubblewrap is the group leader the harness signals; its namespaces
    /// die with it); HOME and TMPDIR point at the sandbox's scratch folders.
    pub fn wrap(&self, spec: CommandSpec, policy: &Policy) -> CommandSpec {
        let mut args: Vec<OsString> = [
            "--unshare-user",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--die-with-parent",
            "--new-session",
        ]
        .map(OsString::from)
        .into();
        if self.disable_userns {
            args.push("--disable-userns".into());
        }
        for dir in SYSTEM.iter().chain(ETC) {
            push(&mut args, ["--ro-bind-try", dir, dir]);
        }
        push(&mut args, ["--proc", "/proc", "--dev", "/dev"]);
        push(&mut args, ["--tmpfs", "/tmp", "--tmpfs", SANDBOX_HOME]);
        push(&mut args, ["--setenv", "HOME", SANDBOX_HOME]);
        push(&mut args, ["--setenv", "TMPDIR", "/tmp"]);
        push(&mut args, ["--unsetenv", "TMP", "--unsetenv", "TEMP"]);
        let program = spec.program().to_path_buf();
        let program = if program.components().count() == 1 {
            which(&program.to_string_lossy()).unwrap_or(program)
        } else {
            program
        };
        let mut seen = Vec::new();
        for path in policy.read_only.iter().chain(std::iter::once(&program)) {
            bind_read_only(&mut args, &mut seen, path);
        }
        if let Some(socket) = &policy.socket {
            if let Some(dir) = socket.parent() {
                args.push("--ro-bind".into());
                args.push(dir.into());
                args.push(SOCKET_DIR.into());
            }
        }
        if let Some(dir) = spec.working_dir() {
            let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
            args.push("--chdir".into());
            args.push(dir.into());
        }
        args.push("--".into());
        args.push(program.into());
        spec.wrapped_in(&self.bwrap, args)
    }
}

fn push<const N: usize>(args: &mut Vec<OsString>, items: [&str; N]) {
    args.extend(items.map(OsString::from));
}

/// Bind `path` read-only at its canonical path, and at the path as given
/// when a link leads there, so both names work inside. A path that does
/// not exist is left out: the child finds nothing there, as it would
/// outside.
fn bind_read_only(args: &mut Vec<OsString>, seen: &mut Vec<PathBuf>, path: &Path) {
    let Ok(real) = path.canonicalize() else {
        return;
    };
    let given = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    for at in [real.clone(), given] {
        if seen.iter().any(|s| at.starts_with(s)) || SYSTEM.iter().any(|s| at.starts_with(s)) {
            continue;
        }
        args.push("--ro-bind".into());
        args.push(real.clone().into());
        args.push(at.clone().into());
        seen.push(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isolation_is_described_in_one_line() {
        let sandboxed = Isolation::Namespaces {
            tool: "bubblewrap 0.8.0".into(),
        };
        assert_eq!(
            sandboxed.describe(),
            "namespaces (bubblewrap 0.8.0) and the javascript guard"
        );
        let guard = Isolation::Guard {
            why: "bwrap not found on PATH".into(),
        };
        assert_eq!(
            guard.describe(),
            "javascript guard only: bwrap not found on PATH"
        );
        assert!(sandboxed.is_sandboxed() && !guard.is_sandboxed());
    }

    /// The sandbox on this machine: `make test` installs bubblewrap, and
    /// these machines give users namespaces, so its absence is a failure.
    fn here() -> &'static Sandbox {
        detect().unwrap_or_else(|why| panic!("the OS sandbox is not available here: {why}"))
    }

    fn sh(script: &str, policy: &Policy) -> Result<String, ProcError> {
        here()
            .wrap(
                CommandSpec::new("sh")
                    .args(["-c", script])
                    .scrubbed()
                    .timeout(Duration::from_secs(20)),
                policy,
            )
            .run_capture()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    }

    #[test]
    fn the_sandbox_sees_no_process_of_the_machine() {
        std::env::set_var("MC_SANDBOX_SECRET", "s3cret-in-the-harness");
        let seen = sh(
            "ls /proc | grep -c '^[0-9]'; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c s3cret; true",
            &Policy::new(),
        )
        .unwrap();
        let counts: Vec<&str> = seen.split_whitespace().collect();
        // bubblewrap's init, the shell, ls and grep: a handful, not the machine's.
        let processes: usize = counts[0].parse().unwrap();
        assert!(processes <= 6, "{processes} processes visible: {seen}");
        assert_eq!(counts[1], "0", "the secret was readable: {seen}");
    }

    #[test]
    fn the_sandbox_reaches_no_loopback_port_of_the_machine() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        // bash, for its /dev/tcp: the system's, which every sandbox has.
        let said = here()
            .wrap(
                CommandSpec::new("bash").args([
                    "-c",
                    &format!("if (echo hi > /dev/tcp/127.0.0.1/{port}) 2>/dev/null; then echo reached; else echo refused; fi"),
                ]),
                &Policy::new(),
            )
            .run_capture()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap();
        assert_eq!(said.trim(), "refused");
        assert!(listener.accept().is_err(), "a connection arrived");
    }

    #[test]
    fn every_descendant_ends_with_the_sandbox() {
        let mark = format!("{}.{}", 40 + std::process::id() % 50, std::process::id());
        sh(
            &format!("setsid sleep {mark} & (sleep {mark} &) ; nohup sleep {mark} >/dev/null 2>&1 & echo started"),
            &Policy::new(),
        )
        .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        let alive = || {
            std::fs::read_dir("/proc")
                .unwrap()
                .filter_map(Result::ok)
                .any(|e| {
                    std::fs::read(e.path().join("cmdline"))
                        .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&mark))
                })
        };
        while alive() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(), "a sleep {mark} outlived its sandbox");
    }

    #[test]
    fn the_policy_is_read_only_and_the_scratch_folders_are_the_sandbox_own() {
        let shown = tempfile::tempdir().unwrap();
        let hidden = tempfile::tempdir().unwrap();
        std::fs::write(shown.path().join("f"), "x\n").unwrap();
        std::fs::write(hidden.path().join("g"), "y").unwrap();
        let said = sh(
            &format!(
                "cat {s}/f; touch {s}/new 2>/dev/null && echo wrote-policy; \
                 test -e {h}/g && echo saw-hidden; \
                 touch /tmp/t \"$HOME/t\" && echo scratch-ok; echo \"$HOME\"",
                s = shown.path().display(),
                h = hidden.path().display()
            ),
            &Policy::new().read_only(shown.path()),
        )
        .unwrap();
        assert_eq!(
            said.lines().collect::<Vec<_>>(),
            ["x", "scratch-ok", SANDBOX_HOME],
            "{said}"
        );
        assert!(!shown.path().join("new").exists());
    }

    #[test]
    fn a_node_project_sees_the_packages_it_links_to_and_nothing_beside_them() {
        let project = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let store = elsewhere.path().join("store/node_modules");
        for pkg in ["linked", "dep", "@scope/inner"] {
            std::fs::create_dir_all(store.join(pkg)).unwrap();
            std::fs::write(store.join(pkg).join("index.js"), pkg).unwrap();
        }
        std::fs::write(elsewhere.path().join("secret"), "no").unwrap();
        let modules = project.path().join("node_modules");
        std::fs::create_dir_all(modules.join("@scope")).unwrap();
        std::os::unix::fs::symlink(store.join("linked"), modules.join("linked")).unwrap();
        std::os::unix::fs::symlink(store.join("@scope/inner"), modules.join("@scope/inner"))
            .unwrap();
        let said = sh(
            &format!(
                "cd {p}/node_modules && cat linked/index.js @scope/inner/index.js linked/../dep/index.js; \
                 echo; test -e {e}/secret && echo saw-secret; true",
                p = project.path().display(),
                e = elsewhere.path().display()
            ),
            &Policy::new().node_project(project.path()),
        )
        .unwrap();
        assert_eq!(said.trim(), "linked@scope/innerdep", "{said}");
    }

    #[test]
    fn a_path_under_a_bound_one_is_bound_once() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("a");
        std::fs::create_dir(&inner).unwrap();
        let (mut args, mut seen) = (Vec::new(), Vec::new());
        bind_read_only(&mut args, &mut seen, dir.path());
        bind_read_only(&mut args, &mut seen, &inner);
        bind_read_only(&mut args, &mut seen, Path::new("/nonexistent/for/sure"));
        assert_eq!(args.len(), 3, "{args:?}");
    }
}
