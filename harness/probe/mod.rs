//! `Probe`: one long-lived Node process running `node-probe/probe.mjs` for
//! one installed `@mastra/core` version, spoken to over the line protocol of
//! `node-probe/PROTOCOL.md`.
//!
//! In: case requests (`seq`, model URL, the case as written). Out: `Answer`s
//! in completion order. Lines that are not protocol answers are counted as
//! garbage, never trusted. `pool` schedules many cases over a probe, with
//! timeouts, crash recovery and recycling.

pub mod pool;

use crate::json::Json;
use crate::jsstr::JsString;
use crate::proc::{Child, CommandSpec, ProcError};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// What a probe said of itself once Mastra was imported.
#[derive(Debug, Clone)]
pub struct Hello {
    pub node: String,
    pub mastra: String,
    pub zod: String,
    pub builtins: Vec<String>,
    /// From spawn to hello: Node start plus Mastra import.
    pub startup: Duration,
}

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
    #[error("writing to the probe failed: {0}")]
    Write(std::io::Error),
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
}

pub struct Probe {
    child: Child,
    answers: Receiver<Answer>,
    pub hello: Hello,
}

impl Probe {
    /// Start a probe for `install` and wait for its hello.
    pub fn start(cmd: &ProbeCommand, install: &Path) -> Result<Probe, ProbeError> {
        let started = Instant::now();
        let mut child = CommandSpec::new(&cmd.node)
            .arg(&cmd.script)
            .arg(install)
            .scrubbed()
            .spawn_piped()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| ProbeError::Write(std::io::Error::other("no stdout pipe")))?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("probe-reader".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut line = Vec::new();
                loop {
                    line.clear();
                    match reader.read_until(b'\n', &mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            if tx.send(parse_line(&line)).is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = tx.send(Answer::Closed);
            })
            .map_err(ProbeError::Write)?;
        let install_name = install.display().to_string();
        let deadline = started + cmd.start_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
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
                    let hello = Hello {
                        node: s("node"),
                        mastra: s("mastra"),
                        zod: s("zod"),
                        builtins,
                        startup: started.elapsed(),
                    };
                    return Ok(Probe {
                        child,
                        answers: rx,
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
                Err(_) => {
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

    fn send(&mut self, request: &Json) -> Result<(), ProbeError> {
        let stdin = self
            .child
            .stdin
            .as_mut()
            .ok_or_else(|| ProbeError::Write(std::io::Error::other("stdin closed")))?;
        let mut line = request.to_compact();
        line.push('\n');
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(ProbeError::Write)
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
        self.child.shutdown();
    }

    /// End its process group now.
    pub fn kill(mut self) {
        self.child.kill();
    }
}

fn parse_line(line: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(line)
        .trim_end_matches(['\n', '\r'])
        .to_string();
    let Ok(v) = Json::parse(&text) else {
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
