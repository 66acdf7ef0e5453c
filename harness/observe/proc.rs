//! `CommandSpec`: the one builder for every child process the harness starts
//! (npm, Node probes), and `Child`, a long-lived one with piped stdio.
//!
//! Every child runs in its own process group, so that ending it ends whatever
//! it started too; ending is a signal, a grace period, then SIGKILL to the
//! group. Every wait has a wall-clock timeout (and stops early when the run
//! is interrupted), captured output is capped and marked when cut, and a
//! probe's environment is cut down to an allowlist, so no credential or proxy
//! setting reaches it and the model URL is the only place it is sent.
//!
//! A group is signalled only while its leader is unreaped: a zombie keeps its
//! pid, so the group id cannot have been handed to someone else's processes.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Output kept from one stream of a child: enough to explain a failure.
pub const OUTPUT_CAP: usize = 64 * 1024;

/// How long a child gets to exit after SIGTERM before SIGKILL.
pub const GRACE: Duration = Duration::from_millis(1500);

#[derive(Debug, thiserror::Error)]
pub enum ProcError {
    #[error("cannot start {program}: {cause}")]
    Spawn {
        program: String,
        cause: std::io::Error,
    },
    #[error("{program} did not finish within {after:?}; its process group was ended")]
    Timeout { program: String, after: Duration },
    #[error("{program} exited with {status}{}", tail(stderr))]
    Failed {
        program: String,
        status: String,
        stderr: String,
    },
    #[error("{program} was ended because the run was interrupted")]
    Interrupted { program: String },
}

fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(6);
    if lines.is_empty() {
        String::new()
    } else {
        format!("; its last words:\n  {}", lines[start..].join("\n  "))
    }
}

impl ProcError {
    /// Whether the failed command's stderr says any of `needles`, in any
    /// case and across line breaks: package managers capitalise the same
    /// words differently, and pnpm wraps its messages to the terminal.
    pub fn stderr_mentions(&self, needles: &[&str]) -> bool {
        let ProcError::Failed { stderr, .. } = self else {
            return false;
        };
        let words = |t: &str| {
            t.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        };
        let said = words(stderr);
        needles.iter().any(|n| said.contains(&words(n)))
    }
}

#[derive(Debug)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// What the child wrote on file descriptor 3 (`CommandSpec::channel`).
    pub channel: Vec<u8>,
}

#[derive(Debug, Clone)]
pub struct CommandSpec {
    program: PathBuf,
    args: Vec<OsString>,
    dir: Option<PathBuf>,
    env: Vec<(String, String)>,
    scrub: bool,
    timeout: Duration,
    cancel: Option<Arc<AtomicBool>>,
    /// The kernel kills the child when the harness dies (`spawn_piped`).
    die_with_parent: bool,
    /// Written to the child's stdin, which is then closed (else stdin is
    /// `/dev/null`).
    input: Option<Vec<u8>>,
    /// A fourth stream, a pipe on the child's file descriptor 3.
    channel: bool,
    /// The name errors give it, when the program is a launcher (a sandbox).
    label: Option<String>,
}

/// Whether an environment variable may carry a credential or send traffic
/// somewhere else than where the harness points it.
pub fn is_sensitive_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.ends_with("_API_KEY")
        || upper == "API_KEY"
        || upper.ends_with("_KEY")
        || upper.ends_with("_TOKEN")
        || upper.ends_with("_SECRET")
        || upper.ends_with("_PASSWORD")
        || upper.ends_with("_CREDENTIALS")
        || upper.ends_with("_BASE_URL")
        || upper.contains("SECRET_")
        || upper.contains("PROXY")
        || upper.starts_with("OPENAI")
        || upper.starts_with("ANTHROPIC")
        || upper.starts_with("AWS_")
        || upper.starts_with("AZURE_")
        || upper.starts_with("GOOGLE_")
        || upper.starts_with("NODE_")
}

/// Whether a variable reaches a scrubbed child (a probe). An allowlist, not
/// a denylist: a credential under a name nobody foresaw (`DB_URL` with a
/// password in it, a provider's `*_AUTH`) must not pass either. What is kept
/// is what Node needs to run and to format text; `is_sensitive_env` is
/// checked too, so a future addition here cannot let a secret through.
pub fn passes_scrub(name: &str) -> bool {
    const KEEP: &[&str] = &[
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR",
        "TMP", "TEMP",
    ];
    (KEEP.contains(&name) || name.starts_with("LC_")) && !is_sensitive_env(name)
}

impl CommandSpec {
    pub fn new(program: impl AsRef<Path>) -> Self {
        CommandSpec {
            program: program.as_ref().to_path_buf(),
            args: Vec::new(),
            dir: None,
            env: Vec::new(),
            scrub: false,
            timeout: Duration::from_secs(600),
            cancel: None,
            die_with_parent: false,
            input: None,
            channel: false,
            label: None,
        }
    }

    /// Write BYTES to the child's stdin, then close it.
    pub fn input(mut self, bytes: Vec<u8>) -> Self {
        self.input = Some(bytes);
        self
    }

    /// Give the child a pipe on file descriptor 3, for a document that must
    /// not share a stream with whatever else the child prints; `run_capture`
    /// returns what came through it as `Output::channel`.
    pub fn channel(mut self) -> Self {
        self.channel = true;
        self
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = Some(dir.as_ref().to_path_buf());
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> Self {
        self.env.push((k.to_string(), v.to_string()));
        self
    }

    /// Start from an environment of only the variables `passes_scrub`
    /// allows (then `env` adds to it).
    pub fn scrubbed(mut self) -> Self {
        self.scrub = true;
        self
    }

    /// End the child's group, and `run_capture` with `Interrupted`, as soon
    /// as `flag` is raised (the run's stop flag: Ctrl-C must not wait for a
    /// ten-minute install to finish).
    pub fn cancel_on(mut self, flag: Option<Arc<AtomicBool>>) -> Self {
        self.cancel = flag;
        self
    }

    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    pub fn working_dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The same command started through `launcher` with `launcher_args`
    /// first (which end with this program; its own arguments follow): a
    /// sandbox. Environment, folder, timeout and stop flag stay.
    pub fn wrapped_in(self, launcher: &Path, launcher_args: Vec<OsString>) -> CommandSpec {
        let mut args = launcher_args;
        args.extend(self.args.iter().cloned());
        CommandSpec {
            label: Some(format!("{} (sandboxed)", self.program_name())),
            program: launcher.to_path_buf(),
            args,
            ..self
        }
    }

    pub fn program_name(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        self.program.file_name().map_or_else(
            || self.program.display().to_string(),
            |n| n.to_string_lossy().into(),
        )
    }

    fn expression(&self) -> duct::Expression {
        self.expression_with(None)
    }

    /// The command, with `channel_fd` (when given) as the child's fd 3.
    fn expression_with(&self, channel_fd: Option<std::os::fd::RawFd>) -> duct::Expression {
        // A bare name goes to duct as a string, so PATH finds it; duct would
        // take a `Path` as relative to the working directory.
        let mut e = duct::cmd(self.program.clone().into_os_string(), &self.args).unchecked();
        if let Some(d) = &self.dir {
            e = e.dir(d);
        }
        // duct applies the outermost setting first, so `env` on top of
        // `full_env` would be overwritten by it: the additions go into the
        // one full environment instead.
        if self.scrub {
            let mut env: std::collections::HashMap<OsString, OsString> = std::env::vars_os()
                .filter(|(k, _)| k.to_str().is_some_and(passes_scrub))
                .collect();
            env.extend(self.env.iter().map(|(k, v)| (k.into(), v.into())));
            e = e.full_env(env);
        } else {
            for (k, v) in &self.env {
                e = e.env(k, v);
            }
        }
        // Its own process group: a signal to the group reaches everything it
        // started, and a Ctrl-C at the terminal reaches only the harness,
        // which then ends its children in order.
        let die_with_parent = self.die_with_parent;
        e.before_spawn(move |cmd| {
            cmd.process_group(0);
            if let Some(fd) = channel_fd {
                // SAFETY: runs in the forked child before exec and calls only
                // async-signal-safe functions (dup2, fcntl). `fd` is open
                // (the parent holds it until the spawn returns) and at least
                // 10, so it is none of the stdio descriptors set up before.
                unsafe {
                    cmd.pre_exec(move || {
                        if libc::dup2(fd, 3) < 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                        Ok(())
                    });
                }
            }
            if die_with_parent {
                let parent = std::process::id() as libc::pid_t;
                // SAFETY: the closure runs in the forked child before exec and
                // calls only async-signal-safe functions (prctl, getppid,
                // _exit).
                unsafe {
                    cmd.pre_exec(move || {
                        // A harness killed with SIGKILL runs no cleanup: the
                        // kernel then kills its probes. PDEATHSIG follows the
                        // thread that forked, so long-lived children are
                        // started from threads that live as long as the run
                        // (the driver's). If the harness died before prctl
                        // took effect, the parent is already someone else.
                        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0
                            || libc::getppid() != parent
                        {
                            libc::_exit(70);
                        }
                        Ok(())
                    });
                }
            }
            Ok(())
        })
    }

    /// Run to completion, capturing output; a non-zero exit is an error.
    pub fn run_capture(&self) -> Result<Output, ProcError> {
        let (status, output) = self.run_to_end()?;
        if !status.success() {
            return Err(ProcError::Failed {
                program: self.program_name(),
                status: status.to_string(),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            });
        }
        Ok(output)
    }

    /// Run to completion, capturing output, whatever the exit status.
    pub fn run_to_end(&self) -> Result<(std::process::ExitStatus, Output), ProcError> {
        let program = self.program_name();
        let (out_r, out_w) = os_pipe::pipe().map_err(|cause| ProcError::Spawn {
            program: program.clone(),
            cause,
        })?;
        let (err_r, err_w) = os_pipe::pipe().map_err(|cause| ProcError::Spawn {
            program: program.clone(),
            cause,
        })?;
        let spawn_err = |cause| ProcError::Spawn {
            program: program.clone(),
            cause,
        };
        // The channel's write end, moved to a descriptor of 10 or more so
        // that the child's dup2 onto 3 can never clobber its stdio.
        let channel = if self.channel {
            let (r, w) = os_pipe::pipe().map_err(spawn_err)?;
            use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
            // SAFETY: fcntl duplicates an open descriptor we own; the new
            // one is owned by the returned OwnedFd alone.
            let high = unsafe { libc::fcntl(w.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
            if high < 0 {
                return Err(spawn_err(std::io::Error::last_os_error()));
            }
            drop(w);
            Some((r, unsafe { OwnedFd::from_raw_fd(high) }))
        } else {
            None
        };
        let channel_fd = channel.as_ref().map(|(_, w)| {
            use std::os::fd::AsRawFd;
            w.as_raw_fd()
        });
        let mut expression = self
            .expression_with(channel_fd)
            .stdout_file(out_w)
            .stderr_file(err_w);
        expression = match &self.input {
            Some(bytes) => expression.stdin_bytes(bytes.clone()),
            None => expression.stdin_null(),
        };
        let handle = expression.start().map_err(spawn_err);
        // The expression holds the write ends of the pipes: they go now, so
        // the readers see the end of the streams when the child exits.
        drop(expression);
        let handle = handle?;
        let out = Capped::drain(out_r, usize::MAX >> 1);
        let err = Capped::drain(err_r, OUTPUT_CAP);
        // The child has its copy; ours goes, so the reader sees the end.
        let channel = channel.map(|(r, w)| {
            drop(w);
            Capped::drain(r, usize::MAX >> 1)
        });
        let pid = handle.pids().first().copied();
        let deadline = Instant::now().checked_add(self.timeout);
        let cancelled = || {
            self.cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::SeqCst))
        };
        loop {
            if pid.is_none_or(leader_exited) {
                break;
            }
            if cancelled() {
                end_group(&handle);
                return Err(ProcError::Interrupted { program });
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                end_group(&handle);
                return Err(ProcError::Timeout {
                    program,
                    after: self.timeout,
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // The leader is done; whatever it left running in its group goes
        // with it (while the unreaped leader still pins the group id).
        if let Some(pid) = pid {
            signal_group(pid, libc::SIGKILL);
        }
        let status = match handle.wait() {
            Ok(o) => o.status,
            Err(cause) => return Err(ProcError::Spawn { program, cause }),
        };
        let (stdout, stderr) = (out.finish(), err.finish());
        let channel = channel.map(Capped::finish).unwrap_or_default();
        Ok((
            status,
            Output {
                stdout,
                stderr,
                channel,
            },
        ))
    }

    /// Start a long-lived child with piped stdin and stdout; stderr is kept,
    /// capped, for diagnosis. The child dies with the harness, even when the
    /// harness is SIGKILLed (the parent-death signal): call this from a
    /// thread that lives as long as the child should.
    pub fn spawn_piped(&self) -> Result<Child, ProcError> {
        let spec = CommandSpec {
            die_with_parent: true,
            ..self.clone()
        };
        spec.spawn_piped_now()
    }

    fn spawn_piped_now(&self) -> Result<Child, ProcError> {
        let program = self.program_name();
        let spawn_err = |cause| ProcError::Spawn {
            program: program.clone(),
            cause,
        };
        let (in_r, in_w) = os_pipe::pipe().map_err(spawn_err)?;
        let (out_r, out_w) = os_pipe::pipe().map_err(spawn_err)?;
        let (err_r, err_w) = os_pipe::pipe().map_err(spawn_err)?;
        let handle = self
            .expression()
            .stdin_file(in_r)
            .stdout_file(out_w)
            .stderr_file(err_w)
            .start()
            .map_err(spawn_err)?;
        Ok(Child {
            handle,
            stdin: Some(in_w),
            stdout: Some(out_r),
            stderr: Capped::drain(err_r, OUTPUT_CAP),
            reaped: false,
        })
    }
}

/// A long-lived child process in its own process group.
pub struct Child {
    handle: duct::Handle,
    pub stdin: Option<os_pipe::PipeWriter>,
    pub stdout: Option<os_pipe::PipeReader>,
    stderr: Capped,
    /// Set once the leader is reaped: from then on its pid (and group id)
    /// may belong to someone else, and nothing may be signalled.
    reaped: bool,
}

impl Child {
    pub fn pid(&self) -> Option<u32> {
        self.handle.pids().first().copied()
    }

    /// Whether the leader has exited. It is not reaped here, so its group
    /// can still be signalled safely.
    pub fn has_exited(&self) -> bool {
        self.reaped || self.pid().is_none_or(leader_exited)
    }

    /// The last of what it wrote to stderr (marked when cut).
    pub fn stderr_tail(&self) -> String {
        self.stderr.snapshot()
    }

    /// Close stdin (the polite request to exit), give it the grace period,
    /// then end its process group, stragglers included.
    pub fn shutdown(&mut self) {
        self.stdin.take();
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline && !self.has_exited() {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }

    /// End the process group now: SIGTERM, grace, SIGKILL, reap.
    pub fn kill(&mut self) {
        self.stdin.take();
        if !self.reaped {
            end_group(&self.handle);
            self.reaped = true;
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Whether the process `pid` (our child) has exited, without reaping it.
fn leader_exited(pid: u32) -> bool {
    // SAFETY: waitid writes only into `info`, a zeroed siginfo_t we own.
    // WNOWAIT leaves the child waitable, so duct's later wait still reaps it.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        if r != 0 {
            // ECHILD: already reaped, so certainly exited. Anything else
            // (EINTR, which WNOHANG makes unlikely) says nothing: ask again.
            return std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD);
        }
        info.si_pid() != 0
    }
}

fn signal_group(pid: u32, signal: libc::c_int) {
    // SAFETY: kill(2) with a negative pid signals the process group our
    // child leads (process_group(0)); callers only do this while the leader
    // is unreaped, so the group id is still ours. It touches no memory.
    unsafe { libc::kill(-(pid as libc::pid_t), signal) };
}

/// SIGTERM to the group, wait up to `GRACE` for the leader, SIGKILL to the
/// group (whatever ignored SIGTERM, or outlived the leader), reap.
fn end_group(handle: &duct::Handle) {
    let Some(pid) = handle.pids().first().copied() else {
        return;
    };
    signal_group(pid, libc::SIGTERM);
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline && !leader_exited(pid) {
        std::thread::sleep(Duration::from_millis(20));
    }
    signal_group(pid, libc::SIGKILL);
    let _ = handle.wait();
    // SIGKILL is delivered asynchronously: a grandchild in the group can
    // still be running for a moment after the leader is reaped. Return only
    // once none is, so "ended" means ended (bounded: a member that is stuck
    // in the kernel is left to die on its own).
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline && group_has_live_member(pid) {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether any process of group `pgid` is still running (zombies, which
/// only wait to be reaped, do not count), read from `/proc`.
fn group_has_live_member(pgid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.filter_map(Result::ok).any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // `pid (comm) state ppid pgrp ...`: comm may hold spaces and
        // parentheses, so the fields are counted after its last `)`.
        let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let state = fields.next().unwrap_or("Z");
        let pgrp = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
        pgrp == Some(pgid) && !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// A stream drained on its own thread into a buffer that keeps at most
/// `cap` bytes (the last ones), so a chatty child never blocks on a full
/// pipe and never grows the harness without bound.
#[derive(Clone)]
struct Capped {
    buf: Arc<Mutex<(Vec<u8>, bool)>>,
    thread: Arc<Mutex<Option<std::thread::JoinHandle<()>>>>,
}

impl Capped {
    fn drain(mut r: os_pipe::PipeReader, cap: usize) -> Capped {
        let buf = Arc::new(Mutex::new((Vec::new(), false)));
        let sink = buf.clone();
        let thread = std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = r.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let mut b = sink.lock().unwrap_or_else(|p| p.into_inner());
                b.0.extend_from_slice(&chunk[..n]);
                if b.0.len() > cap {
                    let cut = b.0.len() - cap;
                    b.0.drain(..cut);
                    b.1 = true;
                }
            }
        });
        Capped {
            buf,
            thread: Arc::new(Mutex::new(Some(thread))),
        }
    }

    fn finish(self) -> Vec<u8> {
        if let Some(t) = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = t.join();
        }
        let b = self.buf.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::new();
        if b.1 {
            out.extend_from_slice(b"[... earlier output cut ...]\n");
        }
        out.extend_from_slice(&b.0);
        out
    }

    fn snapshot(&self) -> String {
        let b = self.buf.lock().unwrap_or_else(|p| p.into_inner());
        let text = String::from_utf8_lossy(&b.0).into_owned();
        if b.1 {
            format!("[... earlier output cut ...]\n{text}")
        } else {
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_proxies_are_sensitive() {
        for name in [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "HTTPS_PROXY",
            "http_proxy",
            "GITHUB_TOKEN",
            "NODE_OPTIONS",
        ] {
            assert!(is_sensitive_env(name), "{name}");
        }
        for name in ["PATH", "HOME", "LANG", "TMPDIR"] {
            assert!(!is_sensitive_env(name), "{name}");
        }
    }

    #[test]
    fn only_what_node_needs_passes_the_scrub() {
        for name in ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"] {
            assert!(passes_scrub(name), "{name}");
        }
        for name in [
            "OPENAI_API_KEY",
            "API_KEY",
            "HTTPS_PROXY",
            "no_proxy",
            "DATABASE_URL",
            "NODE_OPTIONS",
            "NODE_EXTRA_CA_CERTS",
            "OPENAI_BASE_URL",
            "MASTRA_CONFORM_CACHE",
        ] {
            assert!(!passes_scrub(name), "{name}");
        }
    }

    #[test]
    fn a_raised_cancel_flag_ends_the_child_at_once() {
        let flag = Arc::new(AtomicBool::new(true));
        let t = Instant::now();
        let r = CommandSpec::new("sleep")
            .arg("30")
            .cancel_on(Some(flag))
            .run_capture();
        assert!(matches!(r, Err(ProcError::Interrupted { .. })), "{r:?}");
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    /// A grandchild that keeps stdout open must not keep the harness
    /// waiting once the child it started has exited.
    #[test]
    fn what_a_finished_child_left_behind_is_ended() {
        let t = Instant::now();
        let out = CommandSpec::new("sh")
            .args(["-c", "sleep 30 & echo started"])
            .timeout(Duration::from_secs(20))
            .run_capture()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "started");
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    }

    /// When a timeout ends a group, nothing of it is still running on
    /// return: not even a grandchild that ignores SIGTERM.
    #[test]
    fn an_ended_group_has_no_live_member_on_return() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!(
            "trap '' TERM; sh -c \"trap '' TERM; exec sleep 30\" & echo $! > {}; wait",
            pidfile.display()
        );
        let r = CommandSpec::new("sh")
            .args(["-c", &script])
            .timeout(Duration::from_millis(300))
            .run_capture();
        assert!(matches!(r, Err(ProcError::Timeout { .. })), "{r:?}");
        let pid: u32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let running = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| {
                !stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false);
        assert!(!running, "grandchild {pid} still runs");
    }

    #[test]
    fn a_hung_child_is_ended_by_its_timeout() {
        let t = Instant::now();
        let r = CommandSpec::new("sleep")
            .arg("30")
            .timeout(Duration::from_millis(200))
            .run_capture();
        assert!(matches!(r, Err(ProcError::Timeout { .. })), "{r:?}");
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn failure_shows_the_tail_of_stderr() {
        let r = CommandSpec::new("sh")
            .args(["-c", "echo one >&2; echo two >&2; exit 3"])
            .run_capture();
        let e = r.unwrap_err();
        assert!(e.to_string().contains("exit status: 3"), "{e}");
        assert!(e.to_string().contains("two"), "{e}");
    }

    /// The channel is its own stream: what the child writes on fd 3 comes
    /// back apart from stdout, and stdin carries the input.
    #[test]
    fn the_channel_and_the_input_are_streams_of_their_own() {
        let (status, out) = CommandSpec::new("sh")
            .args(["-c", "read line; echo \"doc $line\" >&3; echo printed"])
            .input(b"n1\n".to_vec())
            .channel()
            .timeout(Duration::from_secs(20))
            .run_to_end()
            .unwrap();
        assert!(status.success());
        assert_eq!(String::from_utf8_lossy(&out.channel), "doc n1\n");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "printed\n");
        let out = CommandSpec::new("sh")
            .args(["-c", "echo x >&3"])
            .run_to_end()
            .unwrap()
            .1;
        assert!(out.channel.is_empty(), "no channel unless asked");
    }

    #[test]
    fn a_scrubbed_child_gets_the_variables_it_is_given() {
        let out = CommandSpec::new("sh")
            .args(["-c", "echo \"[$MC_GIVEN]\""])
            .scrubbed()
            .env("MC_GIVEN", "yes")
            .run_capture()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[yes]");
    }

    #[test]
    fn scrubbed_children_do_not_see_credentials() {
        std::env::set_var("MC_TEST_API_KEY", "sk-secret");
        let out = CommandSpec::new("sh")
            .args(["-c", "echo \"[$MC_TEST_API_KEY]\""])
            .scrubbed()
            .run_capture()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
    }
}
