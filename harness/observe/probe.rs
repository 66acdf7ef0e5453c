//! `Probe`: one long-lived Node process running `node-probe/probe.mjs` for
//! one installed `@mastra/core` version, spoken to over the line protocol of
//! `node-probe/PROTOCOL.md`.
//!
//! In: case requests (`seq`, model URL, the case as written). Out: `Answer`s
//! in completion order. Lines that are not protocol answers are counted as
//! garbage, never trusted; a line longer than `MAX_LINE` is garbage too, and
//! is skipped without being held in memory. Requests are written by a thread
//! of their own, so a probe that stops reading its stdin can never block the
//! driver past a case's deadline. `pool` schedules many cases over a probe,
//! with timeouts, crash recovery and recycling.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::observe::proc::{Child, CommandSpec, ProcError};
use crate::observe::sandbox::{self, Policy};
use crate::results::Hello;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// The longest answer line kept. A result is a few kilobytes; a probe that
/// writes more than this without a newline is writing garbage, and holding
/// it would let a broken probe grow the harness without bound.
pub const MAX_LINE: usize = 4 << 20;

#[derive(Debug)]
pub enum Answer {
    Hello(Json),
    Result {
        seq: u64,
        result: Json,
    },
    Fault {
        seq: Option<u64>,
        message: String,
    },
    Pong {
        seq: u64,
        rss: u64,
    },
    /// A line that is not a protocol answer.
    Garbage(String),
    /// stdout closed: the probe exited or died.
    Closed,
}

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Spawn(#[from] ProcError),
    #[error("the probe for {install} did not say hello within {after:?}{}", tail(.stderr))]
    NoHello {
        install: String,
        after: Duration,
        stderr: String,
    },
    #[error("the probe for {install} could not load it: {message}")]
    LoadFailed { install: String, message: String },
    #[error("writing to the probe failed")]
    Write(#[source] std::io::Error),
    #[error("writing {} failed", .file.display())]
    SourcesEntry {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the probe for {install} was not started: the run was interrupted")]
    Interrupted { install: String },
    #[error("the probe for {install} died {restarts} times without a case finishing in between{}", tail(.stderr))]
    Unstable {
        install: String,
        restarts: u32,
        stderr: String,
    },
    #[error("a probe driver thread panicked")]
    DriverPanicked,
}

fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .rev()
        .take(8)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    if lines.is_empty() {
        String::new()
    } else {
        format!("; stderr ends:\n  {}", lines.join("\n  "))
    }
}

/// How to start probes.
#[derive(Debug, Clone)]
pub struct ProbeCommand {
    pub node: PathBuf,
    pub script: PathBuf,
    pub start_timeout: Duration,
    /// Start each probe in the OS sandbox where the machine has one
    /// (`observe::sandbox`); the JavaScript guard is there either way.
    pub sandboxed: bool,
    /// The program a probe starts for a case's MCP servers: this harness's
    /// binary (`mastra-conform mcp-server NAMES_FILE`, `observe::mcp_server`),
    /// the one child the probe's guard allows. `None`: the pinned Node
    /// running `node-probe/mcp-server.mjs`.
    pub mcp_server: Option<PathBuf>,
    /// Flags for Node before the script (V8's heap sizing, where a run
    /// holds its probes' memory: `PoolConfig::heap_growing_percent`).
    pub node_flags: Vec<String>,
}

/// The variable that names `ProbeCommand::mcp_server` to the probe
/// (`node-probe/cases.mjs` reads it, then removes it).
pub const MCP_SERVER_VAR: &str = "MASTRA_CONFORM_MCP_SERVER";

/// Where a probe's listener is: the loopback port its case URLs name, and
/// the Unix socket the same listener serves, the one way out of a
/// sandboxed probe (`node-probe/relay.mjs` listens on the port inside).
#[derive(Debug, Clone)]
pub struct ListenerReach {
    pub port: u16,
    pub socket: Option<PathBuf>,
}

/// The file `node-probe/cases.mjs` imports an install's extra packages
/// through, with exactly the text it writes. A sandboxed probe sees its
/// install read-only, so the driver writes it first (the probe then finds
/// it in place and writes nothing).
const SOURCES_ENTRY: &str = "export const importHere = (specifier) => import(specifier);\n";

/// Write `probe-sources.mjs` into `install` unless it is there already:
/// beside it, then renamed, since probes of one install start together.
/// Each writer has a file of its own to rename: the threads of one run
/// share a pid, and a name made from it let one thread rename the file
/// another was about to rename.
fn write_sources_entry(install: &Path) -> Result<(), ProbeError> {
    let file = install.join("probe-sources.mjs");
    if std::fs::read_to_string(&file).is_ok_and(|t| t == SOURCES_ENTRY) {
        return Ok(());
    }
    let failed = |source| ProbeError::SourcesEntry {
        file: file.clone(),
        source,
    };
    let mut tmp = tempfile::Builder::new()
        .prefix("probe-sources.mjs.")
        .suffix(".tmp")
        .tempfile_in(install)
        .map_err(failed)?;
    tmp.write_all(SOURCES_ENTRY.as_bytes()).map_err(failed)?;
    tmp.persist(&file).map_err(|e| failed(e.error))?;
    Ok(())
}

impl ProbeCommand {
    /// The command for one probe of `install`: in the sandbox (when asked
    /// and the machine has one) with the listener's socket bound in, else
    /// as a plain child behind the guard alone.
    fn spec(&self, install: &Path, reach: Option<&ListenerReach>) -> CommandSpec {
        let mut plain = CommandSpec::new(&self.node);
        for flag in &self.node_flags {
            plain = plain.arg(flag);
        }
        let mut plain = plain.arg(&self.script).arg(install).scrubbed();
        if let Some(server) = &self.mcp_server {
            plain = plain.env(MCP_SERVER_VAR, &server.to_string_lossy());
        }
        if !self.sandboxed {
            return plain;
        }
        let Ok(sandbox) = sandbox::detect() else {
            sandbox::notice_fallback();
            return plain;
        };
        let mut policy = Policy::new().read_only(install);
        if let Some(dir) = self.script.parent() {
            policy = policy.read_only(dir);
        }
        if let Some(server) = &self.mcp_server {
            policy = policy.read_only(server);
        }
        let mut spec = plain;
        if let Some((port, socket)) = reach.and_then(|r| Some((r.port, r.socket.as_ref()?))) {
            let (with_socket, inside) = policy.listener_socket(socket);
            policy = with_socket;
            spec = spec.env("MASTRA_CONFORM_RELAY", &format!("{port}={inside}"));
        }
        sandbox.wrap(spec, &policy)
    }
}

pub struct Probe {
    child: Child,
    answers: Receiver<Answer>,
    /// Lines for the writer thread; dropping it closes the probe's stdin.
    requests: Option<Sender<String>>,
    /// Raised by the writer thread when a write failed (the probe is gone).
    broken: std::sync::Arc<AtomicBool>,
    pub hello: Hello,
}

impl Probe {
    /// Start a probe for `install` and wait for its hello (giving up, and
    /// ending it, when `stop` is raised first).
    pub fn start(
        cmd: &ProbeCommand,
        install: &Path,
        reach: Option<&ListenerReach>,
        stop: &AtomicBool,
    ) -> Result<Probe, ProbeError> {
        let started = Instant::now();
        write_sources_entry(install)?;
        let mut child = cmd.spec(install, reach).spawn_piped()?;
        let no_pipe = || ProbeError::Write(std::io::Error::other("no pipe to the probe"));
        let stdout = child.stdout.take().ok_or_else(no_pipe)?;
        let stdin = child.stdin.take().ok_or_else(no_pipe)?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("probe-reader".into())
            .spawn(move || read_answers(stdout, &tx))
            .map_err(ProbeError::Write)?;
        let broken = std::sync::Arc::new(AtomicBool::new(false));
        let (req_tx, req_rx) = mpsc::channel::<String>();
        let flag = broken.clone();
        std::thread::Builder::new()
            .name("probe-writer".into())
            .spawn(move || {
                let mut stdin = stdin;
                for line in req_rx {
                    if stdin
                        .write_all(line.as_bytes())
                        .and_then(|()| stdin.flush())
                        .is_err()
                    {
                        flag.store(true, Ordering::SeqCst);
                        return;
                    }
                }
                // The sender is gone: the pipe closes here, which is the
                // probe's request to exit.
            })
            .map_err(ProbeError::Write)?;
        let install_name = install.display().to_string();
        let deadline = started.checked_add(cmd.start_timeout);
        loop {
            if stop.load(Ordering::SeqCst) {
                child.kill();
                return Err(ProbeError::Interrupted {
                    install: install_name,
                });
            }
            let left = deadline.map_or(Duration::from_millis(200), |d| {
                d.saturating_duration_since(Instant::now())
            });
            match rx.recv_timeout(left.min(Duration::from_millis(200))) {
                Ok(Answer::Hello(h)) => {
                    let s = |k: &str| {
                        h.get(k)
                            .and_then(Json::as_str)
                            .map(JsString::to_lossy)
                            .unwrap_or_default()
                    };
                    let builtins = h
                        .get("builtins")
                        .and_then(Json::as_array)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|b| b.as_str().map(JsString::to_lossy))
                        .collect();
                    let packages = h
                        .get("packages")
                        .and_then(Json::members)
                        .unwrap_or_default()
                        .into_iter()
                        .filter_map(|(k, v)| Some((k.to_lossy(), v.as_str()?.to_lossy())))
                        .collect();
                    let hello = Hello {
                        node: s("node"),
                        mastra: s("mastra"),
                        zod: s("zod"),
                        packages,
                        builtins,
                        startup: started.elapsed(),
                    };
                    return Ok(Probe {
                        child,
                        answers: rx,
                        requests: Some(req_tx),
                        broken,
                        hello,
                    });
                }
                Ok(Answer::Fault { message, .. }) => {
                    child.kill();
                    return Err(ProbeError::LoadFailed {
                        install: install_name,
                        message,
                    });
                }
                Ok(Answer::Closed) => {
                    child.kill();
                    return Err(ProbeError::LoadFailed {
                        install: install_name,
                        message: format!("the probe exited{}", tail(&child.stderr_tail())),
                    });
                }
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) if deadline.is_none_or(|d| Instant::now() < d) => {
                    continue
                }
                Err(RecvTimeoutError::Disconnected) => {
                    child.kill();
                    return Err(ProbeError::LoadFailed {
                        install: install_name,
                        message: format!("the probe exited{}", tail(&child.stderr_tail())),
                    });
                }
                Err(RecvTimeoutError::Timeout) => {
                    child.kill();
                    return Err(ProbeError::NoHello {
                        install: install_name,
                        after: cmd.start_timeout,
                        stderr: child.stderr_tail(),
                    });
                }
            }
        }
    }

    /// Queue one request line. It never blocks: the writer thread waits on
    /// the pipe, and the deadlines of the cases in flight still run.
    fn send(&mut self, request: &Json) -> Result<(), ProbeError> {
        let gone = || ProbeError::Write(std::io::Error::other("the probe's stdin is closed"));
        if self.broken.load(Ordering::SeqCst) {
            return Err(gone());
        }
        let mut line = request.to_compact();
        line.push('\n');
        self.requests
            .as_ref()
            .ok_or_else(gone)?
            .send(line)
            .map_err(|_| gone())
    }

    pub fn send_run(&mut self, seq: u64, url: &str, case: &Json) -> Result<(), ProbeError> {
        self.send(&Json::object([
            ("op", Json::str("run")),
            ("seq", Json::int(seq as i64)),
            ("url", Json::str(url)),
            ("case", case.clone()),
        ]))
    }

    pub fn send_ping(&mut self, seq: u64) -> Result<(), ProbeError> {
        self.send(&Json::object([
            ("op", Json::str("ping")),
            ("seq", Json::int(seq as i64)),
        ]))
    }

    /// The next answer, or `None` when `timeout` passes first.
    pub fn recv(&self, timeout: Duration) -> Option<Answer> {
        match self.answers.recv_timeout(timeout) {
            Ok(a) => Some(a),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Answer::Closed),
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.pid()
    }

    pub fn stderr_tail(&self) -> String {
        self.child.stderr_tail()
    }

    /// Ask it to exit (close stdin), then end its group after the grace.
    pub fn shutdown(mut self) {
        self.requests.take();
        self.child.shutdown();
    }

    /// End its process group now.
    pub fn kill(mut self) {
        self.requests.take();
        self.child.kill();
    }
}

/// Read answer lines until stdout closes, then say `Closed`. A line over
/// `MAX_LINE` is dropped as it streams past and reported as garbage.
fn read_answers(stdout: os_pipe::PipeReader, tx: &Sender<Answer>) {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    let mut line = Vec::new();
    let mut overlong = false;
    loop {
        let (done, used) = match reader.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(buf) => match buf.iter().position(|b| *b == b'\n') {
                Some(i) => {
                    if !overlong {
                        line.extend_from_slice(&buf[..i]);
                    }
                    (true, i + 1)
                }
                None => {
                    if !overlong {
                        line.extend_from_slice(buf);
                    }
                    (false, buf.len())
                }
            },
        };
        reader.consume(used);
        if line.len() > MAX_LINE {
            overlong = true;
            line = Vec::new();
        }
        if done {
            let answer = if overlong {
                Answer::Garbage(format!("a line longer than {MAX_LINE} bytes"))
            } else {
                parse_line(&line)
            };
            if tx.send(answer).is_err() {
                return;
            }
            line.clear();
            overlong = false;
        }
    }
    if !line.is_empty() && !overlong {
        let _ = tx.send(parse_line(&line));
    }
    let _ = tx.send(Answer::Closed);
}

fn parse_line(line: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(line)
        .trim_end_matches(['\n', '\r'])
        .to_string();
    let Ok(v) = Json::parse_document(&text) else {
        return Answer::Garbage(text);
    };
    if let Some(h) = v.get("hello") {
        return Answer::Hello(h.clone());
    }
    let seq = v
        .get("seq")
        .and_then(Json::as_f64)
        .filter(|s| *s >= 0.0 && s.fract() == 0.0)
        .map(|s| s as u64);
    if let Some(result) = v.get("result") {
        if let Some(seq) = seq {
            return Answer::Result {
                seq,
                result: result.clone(),
            };
        }
    }
    if let Some(f) = v.get("fault") {
        let message = f
            .as_str()
            .map_or_else(|| f.to_compact(), JsString::to_lossy);
        return Answer::Fault { seq, message };
    }
    if let (Some(seq), Some(p)) = (seq, v.get("pong")) {
        let rss = p.get("rss").and_then(Json::as_f64).unwrap_or(0.0) as u64;
        return Answer::Pong { seq, rss };
    }
    Answer::Garbage(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sources_entry_is_the_one_the_probe_writes() {
        let cases = include_str!("../../node-probe/cases.mjs");
        let js = SOURCES_ENTRY.replace('\n', "\\n");
        assert!(
            cases.contains(&format!("const SOURCES_ENTRY = '{js}';")),
            "node-probe/cases.mjs writes another probe-sources.mjs than {SOURCES_ENTRY:?}"
        );
    }

    #[test]
    fn probes_of_one_install_starting_together_all_write_the_sources_entry() {
        // Many rounds, each a new install folder, so that threads meet
        // before the file exists, as the probes of a fresh install do.
        for _ in 0..50 {
            let install = tempfile::tempdir().unwrap();
            let results: Vec<_> = std::thread::scope(|s| {
                let writers: Vec<_> = (0..8)
                    .map(|_| {
                        s.spawn(|| write_sources_entry(install.path()).map_err(|e| e.to_string()))
                    })
                    .collect();
                writers.into_iter().map(|w| w.join().unwrap()).collect()
            });
            assert!(results.iter().all(Result::is_ok), "{results:?}");
            let text = std::fs::read_to_string(install.path().join("probe-sources.mjs")).unwrap();
            assert_eq!(text, SOURCES_ENTRY);
            let left: Vec<_> = std::fs::read_dir(install.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(left.len(), 1, "temporary files left behind: {left:?}");
        }
    }

    #[test]
    fn protocol_lines_are_recognised_and_everything_else_is_garbage() {
        assert!(matches!(
            parse_line(br#"{"seq":3,"result":{"applicable":true}}"#),
            Answer::Result { seq: 3, .. }
        ));
        assert!(matches!(
            parse_line(br#"{"seq":null,"fault":"bad"}"#),
            Answer::Fault { seq: None, .. }
        ));
        assert!(matches!(
            parse_line(br#"{"seq":4,"pong":{"rss":10}}"#),
            Answer::Pong { seq: 4, rss: 10 }
        ));
        for junk in [
            &b"Upstream LLM API error"[..],
            b"{\"seq\":1}",
            b"{\"result\":{}}",
            b"\xff\xfe",
            b"",
        ] {
            assert!(matches!(parse_line(junk), Answer::Garbage(_)), "{junk:?}");
        }
    }
}
