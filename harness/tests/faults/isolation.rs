//! Isolation: the listener takes only loopback; probes see no credential or
//! proxy variable; a request a probe made that did not reach the listener
//! is caught (by the fake probe's count and by the real probe's own); the
//! probe's guard refuses every way out but its listener and its own MCP
//! server; and installs run no package script and check lockfile integrity.

use crate::check;
use crate::support::*;
use mastra_conform::install::layout::{Installs, INSTALLS};
use mastra_conform::install::mastra::VersionError;
use mastra_conform::js::json::Json;
use mastra_conform::observation::Observation;
use mastra_conform::observe::capture::Listener;
use mastra_conform::observe::probe::{Answer, ListenerReach, Probe, ProbeCommand};
use mastra_conform::version::spec::MastraVersion;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "isolation/listener-takes-only-loopback",
            run: loopback_only,
        },
        Scenario {
            name: "isolation/probes-see-no-credentials",
            run: no_credentials,
        },
        Scenario {
            name: "isolation/a-request-that-never-arrived-is-reported",
            run: request_lost,
        },
        Scenario {
            name: "isolation/the-real-probe-counts-its-requests",
            run: real_probe_counts,
        },
        Scenario {
            name: "isolation/the-probe-guard-refuses-every-way-out",
            run: probe_guard,
        },
        Scenario {
            name: "isolation/the-sandbox-holds-against-code-past-the-guard",
            run: sandbox_attack,
        },
        Scenario {
            name: "isolation/without-a-sandbox-the-guard-still-holds",
            run: guard_fallback,
        },
        Scenario {
            name: "isolation/a-sandboxed-probe-reaches-only-its-listener",
            run: sandboxed_probe,
        },
        Scenario {
            name: "isolation/an-attacking-project-gets-nothing-out-of-lint",
            run: lint_attack,
        },
        Scenario {
            name: "isolation/installs-run-no-scripts",
            run: no_scripts,
        },
        Scenario {
            name: "isolation/installs-check-lockfile-integrity",
            run: integrity,
        },
    ]
}

/// This machine's addresses other than loopback.
fn other_addresses() -> Vec<IpAddr> {
    let mut found = Vec::new();
    // SAFETY: getifaddrs fills a list we walk read-only and free once.
    unsafe {
        let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
        if libc::getifaddrs(&mut list) != 0 {
            return found;
        }
        let mut at = list;
        while !at.is_null() {
            let addr = (*at).ifa_addr;
            if !addr.is_null() && i32::from((*addr).sa_family) == libc::AF_INET {
                let v4 = &*(addr as *const libc::sockaddr_in);
                let ip = IpAddr::from(u32::from_be(v4.sin_addr.s_addr).to_be_bytes());
                if !ip.is_loopback() {
                    found.push(ip);
                }
            }
            at = (*at).ifa_next;
        }
        libc::freeifaddrs(list);
    }
    found
}

fn loopback_only(t: &mut Tally) -> Check {
    let listener = Listener::start(1 << 20).unwrap();
    let addr = listener.addr();
    check!(addr.ip().is_loopback(), "the listener is bound to {addr}");
    for ip in other_addresses() {
        t.inject(1);
        let there = SocketAddr::new(ip, addr.port());
        let reached = TcpStream::connect_timeout(&there, Duration::from_secs(2)).is_ok();
        check!(!reached, "the listener answered on {there}");
    }
    Ok(())
}

/// The fake probe reports its environment's names; none of the credential
/// and proxy variables set on the harness may be among them.
fn no_credentials(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let env = fake_cache(dir.path(), None);
    let cases = case_dir(dir.path(), &["env"]);
    let report = dir.path().join("report.json");
    let secrets = [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "API_KEY",
        "MY_SERVICE_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "GITHUB_TOKEN",
        "DATABASE_URL",
        "HTTPS_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "no_proxy",
        "npm_config_https_proxy",
        "NODE_OPTIONS",
        "NODE_EXTRA_CA_CERTS",
        "OPENAI_BASE_URL",
    ];
    let mut cmd = run_fake_cases(&env, &cases);
    cmd.arg("--json").arg(&report);
    for name in secrets {
        t.inject(1);
        cmd.env(name, "leaked");
    }
    let out = cmd.output().unwrap();
    let results = results(&read_json(&report)?);
    let message = results
        .first()
        .and_then(|r| r.get("observed")?.get("error")?.get("message").map(s))
        .ok_or_else(|| format!("the probe's answer is not in the report:\n{}", text(&out)))?;
    let names: Vec<&str> = message
        .strip_prefix("ENV ")
        .unwrap_or_default()
        .split(' ')
        .collect();
    check!(names.contains(&"PATH"), "the probe had no PATH: {names:?}");
    let leaked: Vec<&&str> = secrets.iter().filter(|n| names.contains(n)).collect();
    check!(leaked.is_empty(), "passed to the probe: {leaked:?}");
    Ok(())
}

/// One case counts a request that never reached the listener, another
/// sent one to a port nobody serves: both are faults that say so; the case
/// between them is untouched.
fn request_lost(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), None);
    let elsewhere = format!("elsewhere {}", free_port());
    let cases = vec![case("lose"), case("ok"), case(&elsewhere)];
    t.inject(2);
    let run = run_fake(&install, &cases, 3, Duration::from_secs(10));
    run.stats()?;
    check!(
        matches!(run.of(0)?, Observation::Fault(m) if m.contains("made 2 request(s)") && m.contains("listener received 1")),
        "the lost request was observed as {:?}",
        run.of(0)?
    );
    check!(
        matches!(run.of(2)?, Observation::Fault(m) if m.contains("somewhere other than the case's model URL")),
        "the request elsewhere was observed as {:?}",
        run.of(2)?
    );
    t.lose(run.lost_of(&[1], 1));
    Ok(())
}

/// What the real probe on `install` answers for one case run at `url`.
/// The probe runs in the OS sandbox, which these machines have; `reach`
/// is its way to a listener.
fn real_probe_result(
    node: PathBuf,
    install: &Path,
    url: &str,
    case: &str,
    reach: Option<&ListenerReach>,
) -> Result<Json, String> {
    let cmd = ProbeCommand {
        node,
        script: root().join("node-probe").join("probe.mjs"),
        start_timeout: Duration::from_secs(60),
        sandboxed: true,
        mcp_server: Some(PathBuf::from(env!("CARGO_BIN_EXE_mastra-conform"))),
        node_flags: Vec::new(),
    };
    let mut probe =
        Probe::start(&cmd, install, reach, &AtomicBool::new(false)).map_err(|e| e.to_string())?;
    let case = Json::parse(case).unwrap();
    probe.send_run(1, url, &case).map_err(|e| e.to_string())?;
    let answer = loop {
        match probe.recv(Duration::from_secs(30)) {
            Some(Answer::Result { seq: 1, result }) => break result,
            Some(Answer::Garbage(_)) => continue,
            other => return Err(format!("the probe answered {other:?}")),
        }
    };
    probe.shutdown();
    Ok(answer)
}

/// The real probe, on the real Mastra, pointed at a port nobody serves:
/// its result counts the request the listener never got.
fn real_probe_counts(t: &mut Tally) -> Check {
    let (install, node) = real_mastra("1.67.0")?;
    t.inject(1);
    let url = format!("http://127.0.0.1:{}/x/1/v1", free_port());
    let answer = real_probe_result(
        node,
        &install,
        &url,
        r#"{"about":"a","tools":["weather"]}"#,
        None,
    )?;
    let fetches = answer.get("fetches").and_then(Json::as_f64);
    check!(
        fetches == Some(1.0),
        "the probe counted {fetches:?} requests: {answer:?}"
    );
    Ok(())
}

/// An "install" whose Agent, once a case calls it, tries every way out the
/// guard covers against the scenario's own TCP and UDP listeners on
/// 127.0.0.1, and reports each attempt as its error's message. Its import
/// tries one connection outside any case.
const ESCAPING_ENTRY: &str = r#"
import childProcess from 'node:child_process';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { Worker } from 'node:worker_threads';

const { tcp, udp, mcpServer, nodeMcpServer } = JSON.parse(readFileSync(new URL('./targets.json', import.meta.url), 'utf8'));
const target = `http://127.0.0.1:${tcp}/out`;
net.connect(tcp, '127.0.0.1').on('error', () => {});

// What became of one attempt: it resolved, or it was refused (thrown or rejected).
const attempt = (f) =>
  new Promise((resolve) => resolve(f())).then(
    () => 'reached',
    (e) => (String(e?.message).includes('refused') ? 'refused' : `failed: ${e?.message}`),
  );
const event = (emitter, ok) =>
  new Promise((resolve, reject) => {
    emitter.on(ok, resolve);
    emitter.on('error', reject);
  });
const connectCode = `require('net').connect(${tcp}, '127.0.0.1')`;

class Agent {
  constructor(options) {
    this.url = options.model.url;
  }
  async generate() {
    const outcomes = {
      listener: await attempt(() => fetch(`${this.url}/chat/completions`, { method: 'POST', body: '{}' })),
      mcpServer: await new Promise((resolve) =>
        childProcess.spawn(mcpServer, ['mcp-server', 'nowhere']).on('exit', (code) => resolve(`exit ${code}`)),
      ),
      mcpServerOtherArguments: await attempt(() => childProcess.spawn(mcpServer, ['run', '--cases', 'nowhere'])),
      nodeMcpServer: await attempt(() => childProcess.spawn(process.execPath, [nodeMcpServer, 'nowhere'])),
      fetch: await attempt(() => fetch(target)),
      http: await attempt(() => event(http.get(target), 'response')),
      https: await attempt(() => event(https.get(`https://127.0.0.1:${tcp}/out`), 'response')),
      net: await attempt(() => event(net.connect(tcp, '127.0.0.1'), 'connect')),
      unix: await attempt(() => event(net.connect('/tmp/mastra-conform-no-such.sock'), 'connect')),
      tls: await attempt(() =>
        event(tls.connect({ port: tcp, host: '127.0.0.1', rejectUnauthorized: false }), 'secureConnect'),
      ),
      udp: await attempt(() => dgram.createSocket('udp4').send('x', udp, '127.0.0.1')),
      worker: await attempt(() => new Worker(connectCode, { eval: true })),
      spawn: await attempt(() => childProcess.spawn(process.execPath, ['-e', connectCode])),
      exec: await attempt(() => childProcess.exec(`node -e "${connectCode}"`)),
      fork: await attempt(() => childProcess.fork('-e')),
      spawnSync: await attempt(() => childProcess.spawnSync(process.execPath, ['-e', connectCode])),
      execSync: await attempt(() => childProcess.execSync('true')),
      execFileSync: await attempt(() => childProcess.execFileSync('/bin/true')),
      execve: await attempt(() => process.execve('/bin/true', ['/bin/true'])),
    };
    return { error: { message: JSON.stringify(outcomes) } };
  }
}

export const agent = { Agent };
export const tools = { createTool: (t) => t };
export const z = { object: (shape) => shape, string: () => 'string' };
"#;

/// The real 1.67.0 probe on a made-up install whose `probe-entry.mjs` is
/// `entry` and whose `targets.json` is `targets`, run on one case against
/// the harness's own listener (reached through its socket): the answer, the
/// outcomes the entry's Agent reports as its error message (parsed, and as
/// text), and how many requests the listener captured.
fn probe_below(entry: &str, targets: Json) -> Result<(Json, Json, String, usize), String> {
    let (_, node) = real_mastra("1.67.0")?;
    let dir = tempfile::tempdir().unwrap();
    let install = dir.path().join("install");
    std::fs::create_dir_all(&install).unwrap();
    std::fs::write(install.join("probe-entry.mjs"), entry).unwrap();
    std::fs::write(install.join("targets.json"), targets.to_compact()).unwrap();
    let listener = Listener::start(1 << 20).map_err(|e| e.to_string())?;
    listener.register(1, Vec::new());
    let answer = real_probe_result(
        node,
        &install,
        &listener.url_for(1),
        r#"{"about":"a","tools":[]}"#,
        Some(&listener.reach()),
    )?;
    let captured = listener.take(1).len();
    let message = answer
        .get("error")
        .and_then(|e| e.get("message"))
        .map(s)
        .ok_or_else(|| format!("no outcomes in {answer:?}"))?;
    let outcomes = Json::parse(&message).map_err(|e| format!("{e}: {message}"))?;
    Ok((answer, outcomes, message, captured))
}

/// The real probe on an install whose code tries every way out: nothing but
/// the case's listener and the probe's own MCP server is reached; every
/// attempt inside the case is refused and listed in its `elsewhere`; the
/// scenario's own listeners, on loopback, get no connection and no datagram.
fn probe_guard(t: &mut Tally) -> Check {
    let forbidden = TcpListener::bind("127.0.0.1:0").unwrap();
    forbidden.set_nonblocking(true).unwrap();
    let datagrams = UdpSocket::bind("127.0.0.1:0").unwrap();
    datagrams.set_nonblocking(true).unwrap();
    let mcp_server = env!("CARGO_BIN_EXE_mastra-conform");
    let node_mcp_server = root().join("node-probe").join("mcp-server.mjs");
    let (answer, outcomes, message, captured) = probe_below(
        ESCAPING_ENTRY,
        Json::object([
            (
                "tcp",
                Json::int(forbidden.local_addr().unwrap().port().into()),
            ),
            (
                "udp",
                Json::int(datagrams.local_addr().unwrap().port().into()),
            ),
            ("mcpServer", Json::str(mcp_server)),
            (
                "nodeMcpServer",
                Json::str(&node_mcp_server.to_string_lossy()),
            ),
        ]),
    )?;
    check!(captured == 1, "the listener did not get the case's request");
    let outcome = |api: &str| outcomes.get(api).map(s).unwrap_or_default();
    check!(outcome("listener") == "reached", "the listener: {message}");
    check!(
        outcome("mcpServer") == "exit 2",
        "the probe's own MCP server did not start: {message}"
    );
    let refused = [
        "fetch",
        "http",
        "https",
        "net",
        "unix",
        "tls",
        "udp",
        "worker",
        "spawn",
        "exec",
        "fork",
        "spawnSync",
        "execSync",
        "execFileSync",
        "execve",
        // The probe's MCP server with other arguments, and the Node one.
        "mcpServerOtherArguments",
        "nodeMcpServer",
    ];
    for api in refused {
        t.inject(1);
        check!(outcome(api) == "refused", "{api}: {}", outcome(api));
    }
    let elsewhere: Vec<String> = answer
        .get("elsewhere")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .map(s)
        .collect();
    check!(
        elsewhere.len() == refused.len(),
        "each refusal in the case is listed once: {elsewhere:?}"
    );
    let port = forbidden.local_addr().unwrap().port();
    for listed in [
        format!("http://127.0.0.1:{port}/out"),
        format!("https://127.0.0.1:{port}/out"),
        format!("tcp 127.0.0.1:{port}"),
        format!("tls 127.0.0.1:{port}"),
        "unix /tmp/mastra-conform-no-such.sock".to_string(),
        format!("udp 127.0.0.1:{}", datagrams.local_addr().unwrap().port()),
        "spawn /bin/sh -c".to_string(),
    ] {
        check!(
            elsewhere.iter().any(|e| e.starts_with(&listed)),
            "{listed} not in {elsewhere:?}"
        );
    }
    // No wait: `real_probe_result` has ended the probe and its process
    // group, so a connection or datagram that left it is already queued
    // (loopback delivers within the sending call).
    check!(
        forbidden.accept().is_err(),
        "a connection reached the scenario's TCP listener"
    );
    check!(
        datagrams.recv(&mut [0u8; 64]).is_err(),
        "a datagram reached the scenario's UDP socket"
    );
    Ok(())
}

/// An "install" whose Agent goes below the JavaScript guard, as code set
/// on getting out would: a raw TCP handle (`process.binding`) to the
/// scenario's own listener, the harness's `/proc/PPID/environ` and every
/// other process's, and a detached `sleep` left behind; it reports what it
/// got as its error's message.
const BELOW_THE_GUARD: &str = r#"
import { readdirSync, readFileSync } from 'node:fs';

const { tcp, secret } = JSON.parse(readFileSync(new URL('./targets.json', import.meta.url), 'utf8'));

const rawConnect = (port) =>
  new Promise((resolve) => {
    try {
      const { TCP, TCPConnectWrap, constants } = process.binding('tcp_wrap');
      const handle = new TCP(constants.SOCKET);
      const req = new TCPConnectWrap();
      req.oncomplete = (status) => resolve(status === 0 ? 'reached' : `refused ${status}`);
      const rc = handle.connect(req, '127.0.0.1', port);
      if (rc !== 0) resolve(`refused ${rc}`);
    } catch (e) {
      resolve(`no binding: ${e?.message}`);
    }
  });

const environs = () => {
  let seen = 0;
  let leaked = false;
  for (const pid of readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n))) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1');
      seen += 1;
      if (env.includes(secret)) leaked = true;
    } catch {}
  }
  return { seen, leaked };
};

class Agent {
  async generate() {
    const outcomes = {
      raw: await rawConnect(tcp),
      ppid: (() => {
        try {
          return readFileSync(`/proc/${process.ppid}/environ`, 'latin1').includes(secret) ? 'leaked' : 'no secret';
        } catch (e) {
          return `unreadable: ${e?.code}`;
        }
      })(),
      ...environs(),
    };
    return { error: { message: JSON.stringify(outcomes) } };
  }
}

export const agent = { Agent };
export const tools = { createTool: (t) => t };
export const z = { object: (shape) => shape, string: () => 'string' };
"#;

/// The real probe, sandboxed, on an install that goes below the guard: a
/// raw TCP connection to a loopback port of the machine finds nothing
/// there, and no process shows the harness's secret.
fn sandboxed_probe(t: &mut Tally) -> Check {
    let secret = format!("mc-sandbox-secret-{}", std::process::id());
    // The harness's own environment: what the probe must not read.
    std::env::set_var("MC_FAULT_SUITE_SECRET", &secret);
    let forbidden = TcpListener::bind("127.0.0.1:0").unwrap();
    forbidden.set_nonblocking(true).unwrap();
    t.inject(3);
    let (_, outcomes, message, _) = probe_below(
        BELOW_THE_GUARD,
        Json::object([
            (
                "tcp",
                Json::int(forbidden.local_addr().unwrap().port().into()),
            ),
            ("secret", Json::str(&secret)),
        ]),
    )?;
    let raw = outcomes.get("raw").map(s).unwrap_or_default();
    check!(raw.starts_with("refused"), "a raw TCP connection: {raw}");
    check!(
        outcomes.get("leaked").and_then(Json::as_bool) == Some(false),
        "a process in the sandbox showed the harness's secret: {message}"
    );
    // bubblewrap's init, node and the probe's children: a handful.
    let seen = outcomes
        .get("seen")
        .and_then(Json::as_f64)
        .map_or(99, |n| n as u32);
    check!(
        seen <= 4,
        "the sandbox showed {seen} processes' environments: {message}"
    );
    check!(
        outcomes.get("ppid").map(s).unwrap_or_default() != "leaked",
        "the parent's environment: {message}"
    );
    // No wait: the probe and its process group have ended (see
    // `probe_guard`), so anything that left is already queued.
    check!(
        forbidden.accept().is_err(),
        "a connection reached the scenario's TCP listener"
    );
    Ok(())
}

fn chain(e: &dyn std::error::Error) -> String {
    mastra_conform::outcome::error_chain(e)
}

fn installs(dir: &Path) -> Installs {
    // The pinned pnpm the installs use, as the repository pins it.
    let tool = dir.join("probe/pnpm");
    std::fs::create_dir_all(&tool).unwrap();
    for f in ["package.json", "package-lock.json"] {
        std::fs::copy(root().join("node-probe/pnpm").join(f), tool.join(f)).unwrap();
    }
    Installs {
        cache: dir.join("cache"),
        probe_dir: dir.join("probe"),
        install_timeout: Duration::from_secs(120),
        cancel: None,
    }
}

fn npm_in(dir: &Path, args: &[&str]) -> Result<std::process::Output, String> {
    std::process::Command::new("npm")
        .args(args)
        .current_dir(dir)
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false")
        .output()
        .map_err(|e| format!("npm: {e}"))
}

/// A pin whose own package.json and whose dependency both have install
/// scripts that leave a mark: installed without a lock (`pnpm install`) and
/// with an npm one (`npm ci`), no mark appears. A plain `npm install` of the same
/// pin shows the scripts would run.
fn no_scripts(t: &mut Tally) -> Check {
    let dir = install_dir();
    let marks = dir.path().join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let mark = |who: &str| {
        format!(
            "node -e \"require('fs').writeFileSync('{}/{who}','x')\"",
            marks.display()
        )
    };
    let evil = dir.path().join("evil");
    std::fs::create_dir_all(&evil).unwrap();
    let scripts = |who: &str| {
        format!(
            r#""scripts":{{"preinstall":{pre:?},"install":{ins:?},"postinstall":{post:?},"prepare":{prep:?}}}"#,
            pre = mark(&format!("{who}-preinstall")),
            ins = mark(&format!("{who}-install")),
            post = mark(&format!("{who}-postinstall")),
            prep = mark(&format!("{who}-prepare")),
        )
    };
    std::fs::write(
        evil.join("package.json"),
        format!(r#"{{"name":"evil","version":"1.0.0",{}}}"#, scripts("dep")),
    )
    .unwrap();
    let manifest = format!(
        r#"{{"name":"pin","version":"1.0.0","private":true,{},"dependencies":{{"evil":"file:{}"}}}}"#,
        scripts("root"),
        evil.display()
    );
    let pin = dir.path().join("probe/pins/1.67.0");
    std::fs::create_dir_all(&pin).unwrap();
    std::fs::write(pin.join("package.json"), &manifest).unwrap();
    let v = MastraVersion::new(1, 67, 0);
    let marked = || std::fs::read_dir(&marks).map(|d| d.count()).unwrap_or(0);

    t.inject(1);
    installs(dir.path())
        .ensure(v, None)
        .map_err(|e| format!("pnpm install path: {}", chain(&e)))?;
    check!(
        marked() == 0,
        "scripts ran on `pnpm install`: {} marks",
        marked()
    );

    // The lockfile records the dependency's path relative to where it was
    // made: make it as deep as the install's temporary folder
    // (cache/mastra/.tmp-*), so the path holds there too.
    let scratch = dir.path().join("scratch/a/b");
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(scratch.join("package.json"), &manifest).unwrap();
    let lock = npm_in(
        &scratch,
        &["install", "--package-lock-only", "--ignore-scripts"],
    )?;
    check!(lock.status.success(), "no lockfile: {}", text(&lock));
    std::fs::copy(
        scratch.join("package-lock.json"),
        pin.join("package-lock.json"),
    )
    .unwrap();
    t.inject(1);
    let dir_with_lock = installs(dir.path())
        .ensure(v, None)
        .map_err(|e| format!("npm ci path: {}", chain(&e)))?;
    check!(
        dir_with_lock.to_string_lossy().contains("-lock-"),
        "the pin with a lock was not installed from it: {}",
        dir_with_lock.display()
    );
    check!(marked() == 0, "scripts ran on `npm ci`: {} marks", marked());

    let control = npm_in(&scratch, &["install"])?;
    check!(
        control.status.success(),
        "the control install failed: {}",
        text(&control)
    );
    check!(
        marked() > 0,
        "the control install ran no script: the test proves nothing"
    );
    Ok(())
}

/// A pin whose lockfile carries the wrong integrity for a real package:
/// pnpm (frozen to a pnpm lockfile) and `npm ci` (an npm lockfile alone)
/// each refuse it, and nothing is left that a later run could take
/// for an install. Every lockfile the repository commits has an integrity
/// hash for every package it fetches.
fn integrity(t: &mut Tally) -> Check {
    let dir = install_dir();
    let pin = dir.path().join("probe/pins/1.67.0");
    std::fs::create_dir_all(&pin).unwrap();
    std::fs::write(
        pin.join("package.json"),
        r#"{"name":"pin","version":"1.0.0","private":true,"dependencies":{"is-number":"7.0.0"}}"#,
    )
    .unwrap();
    // The sha512 of nothing: well-formed, and wrong for is-number 7.0.0.
    let wrong = "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==";
    std::fs::write(
        pin.join("package-lock.json"),
        format!(
            r#"{{"name":"pin","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{{"":{{"name":"pin","version":"1.0.0","dependencies":{{"is-number":"7.0.0"}}}},"node_modules/is-number":{{"version":"7.0.0","resolved":"https://registry.npmjs.org/is-number/-/is-number-7.0.0.tgz","integrity":"{wrong}","engines":{{"node":">=0.12.0"}}}}}}}}"#
        ),
    )
    .unwrap();
    // npm retries a tarball whose hash is wrong, with back-off, for over two
    // minutes before it gives up; one attempt shows the same refusal. (This
    // process's environment reaches npm: installs are not scrubbed.)
    std::env::set_var("npm_config_fetch_retries", "0");
    let installs = installs(dir.path());
    let v = MastraVersion::new(1, 67, 0);
    // First with a pnpm lockfile (pnpm --frozen-lockfile, the pins' path),
    // then with the npm lockfile alone (npm ci).
    let pnpm_lock = format!(
        "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\n\
         importers:\n\n  .:\n    dependencies:\n      is-number:\n        specifier: 7.0.0\n        version: 7.0.0\n\n\
         packages:\n\n  is-number@7.0.0:\n    resolution: {{integrity: {wrong}}}\n    engines: {{node: '>=0.12.0'}}\n\n\
         snapshots:\n\n  is-number@7.0.0: {{}}\n"
    );
    std::fs::write(pin.join("pnpm-lock.yaml"), pnpm_lock).unwrap();
    for variant in ["pnpm --frozen-lockfile", "npm ci"] {
        if variant == "npm ci" {
            std::fs::remove_file(pin.join("pnpm-lock.yaml")).unwrap();
        }
        t.inject(1);
        match installs.ensure(v, None) {
            Ok(d) => {
                return Err(format!(
                    "{variant}: a lockfile with a wrong hash was installed at {}",
                    d.display()
                ))
            }
            Err(VersionError::Install { cause, .. }) => {
                let why = cause.to_string();
                let offline = [
                    "ENOTFOUND",
                    "EAI_AGAIN",
                    "ECONNREFUSED",
                    "ETIMEDOUT",
                    "ECONNRESET",
                ]
                .iter()
                .any(|n| why.contains(n));
                check!(
                    offline || why.contains("EINTEGRITY") || why.contains("integrity"),
                    "{variant} failed, but not on integrity: {why}"
                );
            }
            Err(e) => return Err(format!("{variant}: unexpected failure: {e}")),
        }
        let left: Vec<String> = std::fs::read_dir(installs.cache.join(INSTALLS))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        check!(left.is_empty(), "{variant}: left in the cache: {left:?}");
        check!(
            !installs.is_installed(v),
            "{variant}: the failed install counts as installed"
        );
    }

    let mut locks = vec![root().join("node-probe/runtime/package-lock.json")];
    for pin in std::fs::read_dir(root().join("node-probe/pins"))
        .unwrap()
        .flatten()
    {
        locks.push(pin.path().join("package-lock.json"));
    }
    for lock in locks.iter().filter(|l| l.is_file()) {
        let json =
            Json::parse(&std::fs::read_to_string(lock).unwrap()).map_err(|e| e.to_string())?;
        for (name, entry) in json
            .get("packages")
            .and_then(Json::members)
            .unwrap_or_default()
        {
            let name = name.to_lossy();
            if name.is_empty() || entry.get("link").and_then(Json::as_bool) == Some(true) {
                continue;
            }
            let integrity = entry.get("integrity").map(s).unwrap_or_default();
            let resolved = entry.get("resolved").map(s).unwrap_or_default();
            check!(
                integrity.starts_with("sha512-")
                    && (resolved.is_empty() || resolved.starts_with("https://")),
                "{}: {name} has integrity {integrity:?}, resolved {resolved:?}",
                lock.display()
            );
        }
    }
    Ok(())
}

/// Code that never meets the JavaScript guard (the wall a bug in it, or a
/// native addon, would leave), started as a probe is: in the sandbox, the
/// install and its own folder read-only, the listener's socket bound in.
/// It reads every `/proc/*/environ` for a secret of the harness, opens TCP
/// to a listener of this scenario's own from the process, a Worker and a
/// child, sends UDP to another, leaves a detached and a `setsid` child
/// behind that keep trying and then print a forged answer on the stdout
/// they inherited. Nothing arrives, nothing is read, nothing outlives it.
fn sandbox_attack(t: &mut Tally) -> Check {
    use mastra_conform::observe::proc::CommandSpec;
    use mastra_conform::observe::sandbox::{self, Policy};
    let sandbox = sandbox::detect().map_err(|why| format!("no OS sandbox here: {why}"))?;
    let secret = format!("harness-secret-{}", std::process::id());
    std::env::set_var("MC_FAULTS_SANDBOX_SECRET", &secret);
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let (tp, up) = (
        tcp.local_addr().unwrap().port(),
        udp.local_addr().unwrap().port(),
    );
    let mark = format!("mc-attack-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("attack.mjs");
    std::fs::write(
        &script,
        format!(
            r#"
import {{ readdirSync, readFileSync }} from 'node:fs';
import net from 'node:net';
import dgram from 'node:dgram';
import {{ spawn }} from 'node:child_process';
import {{ Worker }} from 'node:worker_threads';
const said = {{ environ: 0, tcp: [], processes: 0 }};
for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {{
  said.processes++;
  try {{ if (readFileSync(`/proc/${{pid}}/environ`, 'latin1').includes('{secret}')) said.environ++; }} catch {{}}
}}
const tryTcp = (who) => new Promise((done) => {{
  const s = net.connect({tp}, '127.0.0.1');
  s.on('connect', () => {{ said.tcp.push(`${{who}} connected`); s.destroy(); done(); }});
  s.on('error', (e) => {{ said.tcp.push(`${{who}} ${{e.code}}`); done(); }});
}});
await tryTcp('process');
await new Promise((done) => {{
  const w = new Worker("require('net').connect({tp}, '127.0.0.1').on('error', () => {{}}).on('connect', () => process.exit(7))", {{ eval: true }});
  w.on('exit', done); w.on('error', done);
  setTimeout(() => {{ w.terminate(); }}, 1000);
}});
await new Promise((done) => {{
  const s = dgram.createSocket('udp4');
  s.send('x', {up}, '127.0.0.1', (e) => {{ said.udp = e ? e.code : 'sent'; s.close(); done(); }});
}});
const keepTrying = "const n=require('net');setInterval(()=>{{n.connect({tp},'127.0.0.1').on('error',()=>{{}})}},50);setTimeout(()=>{{console.log('{{\"forged\":true}}');}},1500);setTimeout(()=>{{}},60000)";
spawn(process.execPath, ['-e', keepTrying, '{mark}'], {{ detached: true, stdio: ['ignore', 'inherit', 'ignore'] }}).unref();
spawn('setsid', ['-f', process.execPath, '-e', keepTrying, '{mark}'], {{ stdio: ['ignore', 'inherit', 'ignore'] }}).unref();
await new Promise((r) => setTimeout(r, 300));
console.log(JSON.stringify(said));
"#
        ),
    )
    .unwrap();
    t.inject(7);
    let spec = sandbox.wrap(
        CommandSpec::new("node")
            .arg(&script)
            .scrubbed()
            .timeout(Duration::from_secs(60)),
        &Policy::new().read_only(dir.path()),
    );
    let out = spec.run_capture().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let said = stdout
        .lines()
        .find_map(|l| Json::parse(l).ok().filter(|j| j.get("environ").is_some()))
        .ok_or_else(|| format!("the attack printed no findings: {stdout}"))?;
    check!(
        said.get("environ").and_then(Json::as_f64) == Some(0.0),
        "the harness's environment was read from inside: {stdout}"
    );
    let processes = said
        .get("processes")
        .and_then(Json::as_f64)
        .map_or(99, |n| n as u32);
    check!(
        processes <= 4,
        "{processes} processes visible inside: {stdout}"
    );
    check!(
        !stdout.contains("connected"),
        "a TCP connection got out: {stdout}"
    );
    // Once no child of the attack is left, none can try again or forge;
    // a child that outlived the sandbox would keep trying until the
    // deadline, and be found by the checks below.
    let left = processes_gone(&mark);
    check!(tcp.accept().is_err(), "a connection reached the listener");
    check!(
        udp.recv(&mut [0u8; 16]).is_err(),
        "a datagram reached the UDP socket"
    );
    check!(
        !stdout.contains("forged"),
        "a left-behind child wrote to the probe's stdout: {stdout}"
    );
    check!(
        left == 0,
        "{left} child(ren) of the attack outlived the sandbox"
    );
    Ok(())
}

/// With the sandbox switched off (a machine without one), the isolation
/// the harness records says so and why, and the real probe still runs
/// behind its guard: the case's request reaches the listener over
/// loopback and a fetch elsewhere is refused.
fn guard_fallback(t: &mut Tally) -> Check {
    let (install, _node) = real_mastra("1.67.0")?;
    t.inject(1);
    check!(install.is_dir(), "no install of 1.67.0");
    let report = tempfile::tempdir().unwrap();
    let json = report.path().join("report.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mastra-conform"))
        .args(["run", "--versions", "1.67.0", "--cases"])
        .arg(root().join("cases/real/mastra-docs-key-shapes.json"))
        .arg("--json")
        .arg(&json)
        .env("MASTRA_CONFORM_SANDBOX", "off")
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let notices = stderr.matches("notice: no OS sandbox").count();
    check!(notices == 1, "{notices} fallback notices: {stderr}");
    let report = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| Json::parse(&t).ok())
        .ok_or_else(|| format!("no JSON report: {stderr}"))?;
    let results = report
        .get("results")
        .and_then(Json::as_array)
        .map_or(0, <[Json]>::len);
    check!(results > 0, "no result behind the guard alone: {stderr}");
    let isolation = report
        .get("run")
        .and_then(|r| r.get("isolation"))
        .and_then(Json::as_str)
        .and_then(|s| s.to_rust())
        .unwrap_or_default();
    check!(
        isolation == "javascript guard only: MASTRA_CONFORM_SANDBOX=off",
        "isolation recorded as {isolation:?}"
    );
    Ok(())
}

/// `lint --project` on a project whose import-time code goes below the
/// guard (the `spawn_sync` binding runs a shell the guard never sees) and
/// tries every way out: the harness's environment through `/proc`, TCP from
/// the process, a Worker and a child, UDP, a detached and a `setsid` child
/// that keep trying, a file written outside the project, and a forged
/// document on fd 1 and fd 3 at exit. Nothing gets out, nothing is left
/// running, and the project's real collision is reported with exit 1.
fn lint_attack(t: &mut Tally) -> Check {
    mastra_conform::observe::sandbox::detect()
        .map_err(|why| format!("no OS sandbox here: {why}"))?;
    let (install, _node) = real_mastra("1.67.0")?;
    let secret = format!("mc-lint-secret-{}", std::process::id());
    let mark = format!("mc-lint-attack-{}", std::process::id());
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let (tp, up) = (
        tcp.local_addr().unwrap().port(),
        udp.local_addr().unwrap().port(),
    );
    let outside = tempfile::tempdir().unwrap();
    let leak = outside.path().join("leak");
    let project = tempfile::tempdir().unwrap();
    copy_tree(
        &root().join("harness/tests/fixtures/lint-project"),
        project.path(),
    )?;
    std::os::unix::fs::symlink(
        install.join("node_modules"),
        project.path().join("node_modules"),
    )
    .map_err(|e| e.to_string())?;
    let child = format!(
        "const net = require('net'); \
         const tcp = () => net.connect({tp}, '127.0.0.1').on('error', () => {{}}); \
         tcp(); \
         new (require('worker_threads').Worker)(\"require('net').connect({tp}, '127.0.0.1').on('error', () => {{}})\", {{ eval: true }}); \
         require('dgram').createSocket('udp4').send('x', {up}, '127.0.0.1', () => {{}}); \
         if (process.argv[2] === 'stay') {{ setInterval(tcp, 50); setTimeout(() => {{}}, 60000); }} \
         else setTimeout(() => process.exit(0), 500);"
    );
    let attack = format!(
        r#"
import {{ readdirSync, readFileSync, writeFileSync, writeSync }} from 'node:fs';
const read = (p) => {{ try {{ return readFileSync(p, 'latin1'); }} catch (e) {{ return `unreadable ${{e.code}}`; }} }};
const environs = [read(`/proc/${{process.ppid}}/environ`)];
for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) environs.push(read(`/proc/${{pid}}/environ`));
console.log(`environ: ${{environs.join(' | ')}}`);
console.error(`environ: ${{environs.join(' | ')}}`);
try {{ writeFileSync({leak:?}, environs.join('\n')); }} catch {{}}
writeFileSync('/tmp/{mark}.cjs', {child:?});
const below = (cmd) => process.binding('spawn_sync').spawn({{
  file: '/bin/sh',
  args: ['/bin/sh', '-c', cmd],
  envPairs: [`PATH=${{process.env.PATH ?? '/usr/bin:/bin'}}`],
  stdio: [{{ type: 'pipe', readable: true, writable: false }}, {{ type: 'pipe', readable: false, writable: true }}, {{ type: 'pipe', readable: false, writable: true }}],
}});
const node = process.execPath;
below(`${{node}} /tmp/{mark}.cjs once`);
below(`setsid -f ${{node}} /tmp/{mark}.cjs stay </dev/null >/dev/null 2>&1`);
below(`nohup ${{node}} /tmp/{mark}.cjs stay </dev/null >/dev/null 2>&1 &`);
const {{ TCP, TCPConnectWrap, constants }} = process.binding('tcp_wrap');
const req = new TCPConnectWrap();
req.oncomplete = () => {{}};
new TCP(constants.SOCKET).connect(req, '127.0.0.1', {tp});
const forged = JSON.stringify({{ nonce: 'forged', mastra: '1.67.0', agents: [], problems: [] }}) + '\n';
process.on('exit', () => {{ for (const fd of [1, 3]) {{ try {{ writeSync(fd, forged); }} catch {{}} }} }});
"#,
        leak = leak.display().to_string(),
    );
    let index = project.path().join("src/mastra/index.ts");
    let mut text = std::fs::read_to_string(&index).map_err(|e| e.to_string())?;
    text.push_str(&attack);
    std::fs::write(&index, text).map_err(|e| e.to_string())?;
    t.inject(9);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mastra-conform"))
        .args(["lint", "--project"])
        .arg(project.path())
        .arg("--verbose")
        .env("MC_FAULTS_LINT_SECRET", &secret)
        .output()
        .map_err(|e| e.to_string())?;
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    check!(
        shown.contains("environ: "),
        "the attack did not run (its output is not shown): {shown}"
    );
    check!(
        out.status.code() == Some(1) && shown.contains("collision"),
        "the real collision is not reported with exit 1 ({:?}): {shown}",
        out.status.code()
    );
    check!(
        !shown.contains(&secret),
        "the harness's secret got out: {shown}"
    );
    check!(
        !leak.exists(),
        "the project wrote outside its sandbox: {}",
        leak.display()
    );
    // Once no process of the attack is left, none can try again.
    let left = processes_gone(&mark);
    check!(
        tcp.accept().is_err(),
        "a TCP connection reached the listener"
    );
    check!(
        udp.recv(&mut [0u8; 16]).is_err(),
        "a datagram reached the UDP socket"
    );
    check!(left == 0, "{left} process(es) of the attack outlived lint");
    Ok(())
}

/// Copy the folder `from` into `to`, recursively (the fixture's few files).
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// How many processes of the machine carry `mark` in their command line
/// once none does, or at a deadline of ten seconds: what a sandbox ends is
/// gone within its own exit, what outlived it is still there.
fn processes_gone(mark: &str) -> usize {
    wait_for(Duration::from_secs(10), || running_with(mark) == 0);
    running_with(mark)
}

/// How many processes of the machine carry `mark` in their command line.
fn running_with(mark: &str) -> usize {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(mark))
        })
        .count()
}
