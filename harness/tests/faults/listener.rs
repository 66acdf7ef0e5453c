//! Listener faults, over raw TCP on 127.0.0.1: malformed HTTP, bodies over
//! the limit, clients that send slowly and stop, requests without the token
//! or for an unknown case, a bounded flood of connections, and bodies that
//! are lone-surrogate escapes, invalid UTF-8 or not JSON. Beside every fault
//! a well-behaved case keeps sending; its captures must all be there,
//! byte-exact, and the listener must still answer at the end.

use crate::check;
use crate::support::*;
use mastra_conform::case::Reply;
use mastra_conform::js::string::JsString;
use mastra_conform::observation::Observed;
use mastra_conform::observation::{BodyProblem, Captured};
use mastra_conform::observe::capture::{Limits, Listener};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "listener/malformed-http",
            run: malformed_http,
        },
        Scenario {
            name: "listener/body-over-the-limit",
            run: over_limit,
        },
        Scenario {
            name: "listener/slow-headers-then-silence",
            run: slow_headers,
        },
        Scenario {
            name: "listener/slow-body-then-silence-or-hang-up",
            run: slow_body,
        },
        Scenario {
            name: "listener/idle-connections-past-the-cap",
            run: idle_flood,
        },
        Scenario {
            name: "listener/no-token-or-unknown-case",
            run: refused,
        },
        Scenario {
            name: "listener/flood-of-connections",
            run: flood,
        },
        Scenario {
            name: "listener/odd-bodies",
            run: odd_bodies,
        },
        Scenario {
            name: "listener/odd-bodies-from-a-probe",
            run: odd_bodies_from_a_probe,
        },
    ]
}

const LIMITS: Limits = Limits {
    body_limit: 64 << 10,
    header_timeout: Duration::from_secs(1),
    body_timeout: Duration::from_secs(1),
    max_connections: 64,
};

/// A listener with one well-behaved case registered.
struct Bench {
    listener: Listener,
    good: u64,
    sent: usize,
}

const GOOD_BODY: &str = r#"{"model":"m","messages":[{"role":"user","content":"hi \ud83d\ude00"}]}"#;

impl Bench {
    fn new(limits: Limits) -> Bench {
        let listener = Listener::start_with(limits).unwrap();
        let good = 1_000_000;
        listener.register(good, vec![Reply::Text(JsString::from("done"))]);
        Bench {
            listener,
            good,
            sent: 0,
        }
    }

    fn addr(&self) -> SocketAddr {
        self.listener.addr()
    }

    /// The path of case `id` (a URL without the scheme and host).
    fn path(&self, id: u64) -> String {
        let url = self.listener.url_for(id);
        let rest = url.splitn(4, '/').nth(3).unwrap_or_default();
        format!("/{rest}/chat/completions")
    }

    /// One good request; it must be answered.
    fn good_request(&mut self) -> Check {
        let status = post(self.addr(), &self.path(self.good), GOOD_BODY.as_bytes())?;
        self.sent += 1;
        // The first request gets the scripted text, later ones the default 400.
        check!(
            status == 200 || status == 400,
            "the good case got HTTP {status}"
        );
        Ok(())
    }

    /// Case `id` captured one request, with a problem `expected` accepts.
    fn captured_once(&self, id: u64, what: &str, expected: fn(&BodyProblem) -> bool) -> Check {
        let got = self.listener.take(id);
        check!(
            got.len() == 1 && got[0].problem.as_ref().is_some_and(expected),
            "{what} was captured as {got:?}"
        );
        Ok(())
    }

    /// The good case's captures are all there, byte-exact: how many are not.
    fn good_lost(&self) -> usize {
        let captured = self.listener.take(self.good);
        let exact = captured
            .iter()
            .filter(|c| c.problem.is_none() && c.bytes == GOOD_BODY.as_bytes())
            .count();
        self.sent.saturating_sub(exact) + captured.len().saturating_sub(self.sent)
    }
}

fn connect(addr: SocketAddr) -> std::io::Result<TcpStream> {
    let s = TcpStream::connect_timeout(&addr, Duration::from_secs(3))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    s.set_write_timeout(Some(Duration::from_secs(5)))?;
    Ok(s)
}

/// Send `bytes` on a fresh connection and read what comes back until the
/// listener closes it (or `within` passes).
fn exchange(addr: SocketAddr, bytes: &[u8], within: Duration) -> std::io::Result<(Vec<u8>, bool)> {
    let mut s = connect(addr)?;
    s.set_read_timeout(Some(within))?;
    // The listener may close before all of it is sent: that is its answer.
    let _ = s.write_all(bytes);
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let closed = loop {
        match s.read(&mut buf) {
            Ok(0) => break true,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break true,
            Err(_) => break false,
        }
    };
    Ok((got, closed))
}

fn status_of(response: &[u8]) -> Option<u16> {
    let text = String::from_utf8_lossy(response);
    text.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

fn post(addr: SocketAddr, path: &str, body: &[u8]) -> Result<u16, String> {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    let (response, _) = exchange(addr, &request, Duration::from_secs(5))
        .map_err(|e| format!("POST {path}: {e}"))?;
    status_of(&response).ok_or_else(|| {
        format!(
            "POST {path}: no HTTP status in {:?}",
            String::from_utf8_lossy(&response)
        )
    })
}

fn malformed_http(t: &mut Tally) -> Check {
    let mut bench = Bench::new(LIMITS);
    let case_path = bench.path(bench.good);
    let long_line = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(200 << 10));
    let many_headers: String = (0..500).map(|i| format!("X-H{i}: v\r\n")).collect();
    let payloads: Vec<Vec<u8>> = vec![
        b"GARBAGE\r\n\r\n".to_vec(),
        b"GET / HTTP/9.9\r\n\r\n".to_vec(),
        vec![0xff; 300],
        b"\0\0\0\0\r\n\r\n".to_vec(),
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec(),
        format!("POST {case_path} HTTP/1.1\r\nContent-Length: -5\r\n\r\n").into_bytes(),
        format!("POST {case_path} HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 9\r\n\r\nabc")
            .into_bytes(),
        long_line.into_bytes(),
        format!("GET / HTTP/1.1\r\n{many_headers}\r\n").into_bytes(),
        b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n".to_vec(),
    ];
    for p in &payloads {
        t.inject(1);
        exchange(bench.addr(), p, Duration::from_secs(3)).map_err(|e| e.to_string())?;
        bench.good_request()?;
    }
    // A request for a real case whose chunked body is malformed: that case
    // records a request that came, cut off, and no other case is touched.
    let broken = 7;
    bench.listener.register(broken, Vec::new());
    t.inject(1);
    let chunked = format!(
        "POST {} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nnot a chunk\r\n",
        bench.path(broken)
    );
    exchange(bench.addr(), chunked.as_bytes(), Duration::from_secs(3))
        .map_err(|e| e.to_string())?;
    bench.captured_once(broken, "the broken chunked body", |p| {
        matches!(p, BodyProblem::Cut(_))
    })?;
    bench.good_request()?;
    t.lose(bench.good_lost());
    Ok(())
}

fn over_limit(t: &mut Tally) -> Check {
    let mut bench = Bench::new(LIMITS);
    let big = 9;
    bench.listener.register(big, Vec::new());
    t.inject(2);
    let body = vec![b'x'; 200 << 10];
    let status = post(bench.addr(), &bench.path(big), &body)?;
    check!(status == 413, "a 200 KB body was answered {status}");
    // A declared length far over the limit, with almost nothing sent.
    let lying = format!(
        "POST {} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n{{}}",
        bench.path(big)
    );
    let (response, _) = exchange(bench.addr(), lying.as_bytes(), Duration::from_secs(3))
        .map_err(|e| e.to_string())?;
    check!(
        status_of(&response) == Some(413),
        "a declared 1 GB body was answered {:?}",
        String::from_utf8_lossy(&response)
    );
    let got = bench.listener.take(big);
    check!(
        got.len() == 2
            && got
                .iter()
                .all(|c| c.problem == Some(BodyProblem::OverLimit(64 << 10))),
        "over-limit bodies were captured as {:?}",
        got.iter().map(|c| &c.problem).collect::<Vec<_>>()
    );
    check!(
        got[0]
            .json()
            .unwrap_err()
            .contains("over the 65536-byte limit"),
        "{:?}",
        got[0].json()
    );
    bench.good_request()?;
    t.lose(bench.good_lost());
    Ok(())
}

/// Headers dribbled a byte at a time, then nothing, the connection held
/// open: the listener lets go of it after the header timeout, and serves
/// the good case meanwhile.
fn slow_headers(t: &mut Tally) -> Check {
    let mut bench = Bench::new(LIMITS);
    t.inject(1);
    let mut s = connect(bench.addr()).map_err(|e| e.to_string())?;
    let head = format!("POST {} HTTP/1.1\r\nHost: x\r\n", bench.path(bench.good));
    for b in head.as_bytes().iter().take(20) {
        s.write_all(&[*b]).map_err(|e| e.to_string())?;
        std::thread::sleep(Duration::from_millis(10));
    }
    bench.good_request()?;
    let began = Instant::now();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 1024];
    let closed = loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break true,
            Ok(_) => continue,
        }
    };
    check!(
        closed && began.elapsed() < Duration::from_secs(4),
        "the stalled connection was still open after {:?}",
        began.elapsed()
    );
    bench.good_request()?;
    t.lose(bench.good_lost());
    Ok(())
}

/// A body that stops half-way: held open it is too slow, hung up it is cut
/// off; either way its case records the request, and only its case.
fn slow_body(t: &mut Tally) -> Check {
    let mut bench = Bench::new(LIMITS);
    let (held, dropped) = (11, 12);
    bench.listener.register(held, Vec::new());
    bench.listener.register(dropped, Vec::new());
    t.inject(2);
    let head = |id| {
        format!(
            "POST {} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{{\"model\":",
            bench.path(id)
        )
    };
    let mut s = connect(bench.addr()).map_err(|e| e.to_string())?;
    s.write_all(head(held).as_bytes())
        .map_err(|e| e.to_string())?;
    {
        let mut d = connect(bench.addr()).map_err(|e| e.to_string())?;
        d.write_all(head(dropped).as_bytes())
            .map_err(|e| e.to_string())?;
    }
    bench.good_request()?;
    let mut response = Vec::new();
    let _ = s.read_to_end(&mut response);
    check!(
        status_of(&response) == Some(413),
        "the stalled body was answered {:?}",
        String::from_utf8_lossy(&response)
    );
    // By now (a body timeout later) the hung-up request is long recorded.
    bench.captured_once(dropped, "the hung-up body", |p| {
        matches!(p, BodyProblem::Cut(_))
    })?;
    bench.captured_once(held, "the stalled body", |p| {
        matches!(p, BodyProblem::TooSlow(_))
    })?;
    bench.good_request()?;
    t.lose(bench.good_lost());
    Ok(())
}

/// More idle connections than the cap: the excess is turned away and
/// counted; once the idle ones time out, the good case is served again.
fn idle_flood(t: &mut Tally) -> Check {
    let mut bench = Bench::new(Limits {
        max_connections: 16,
        ..LIMITS
    });
    t.inject(1);
    let idle: Vec<TcpStream> = (0..40).filter_map(|_| connect(bench.addr()).ok()).collect();
    check!(idle.len() == 40, "only {} connections opened", idle.len());
    let freed = wait_for(Duration::from_secs(6), || {
        bench.listener.refused().over_capacity >= 24
            && post(bench.addr(), &bench.path(99), b"{}").is_ok()
    });
    check!(
        freed,
        "idle connections were not let go (over capacity: {})",
        bench.listener.refused().over_capacity
    );
    bench.good_request()?;
    drop(idle);
    t.lose(bench.good_lost());
    Ok(())
}

fn refused(t: &mut Tally) -> Check {
    let mut bench = Bench::new(LIMITS);
    let good = bench.path(bench.good);
    let token = good.split('/').nth(1).unwrap_or_default().to_string();
    let requests = [
        "/0123456789abcdef0123456789abcdef/1000000/v1/chat/completions".to_string(),
        "/%ff%fe/1000000/v1/chat/completions".to_string(),
        "/".to_string(),
        format!("/{token}/424242/v1/chat/completions"),
        format!("/{token}/not-a-number/v1/chat/completions"),
    ];
    for path in &requests {
        t.inject(1);
        let status = post(bench.addr(), path, GOOD_BODY.as_bytes())?;
        check!(status == 404, "{path} was answered {status}");
    }
    let r = bench.listener.refused();
    check!(
        r.bad_token == 3 && r.unknown_case == 2,
        "refusals counted as {r:?}"
    );
    bench.good_request()?;
    t.lose(bench.good_lost());
    Ok(())
}

/// 320 connections from 16 clients at once, each a request for a case that
/// is not registered, with 16 good requests among them.
fn flood(t: &mut Tally) -> Check {
    let bench = Bench::new(LIMITS);
    t.inject(1);
    let addr = bench.addr();
    let (stray, good) = (bench.path(555_555), bench.path(bench.good));
    let failures: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..16)
            .map(|_| {
                let (stray, good) = (&stray, &good);
                scope.spawn(move || {
                    let mut failed = 0;
                    for i in 0..20 {
                        let path = if i == 10 { good } else { stray };
                        if post(addr, path, GOOD_BODY.as_bytes()).is_err() {
                            failed += 1;
                        }
                    }
                    failed
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(20)).sum()
    });
    check!(
        failures == 0,
        "{failures} requests of the flood got no answer"
    );
    let r = bench.listener.refused();
    check!(r.unknown_case == 16 * 19, "refusals counted as {r:?}");
    let captured = bench.listener.take(bench.good);
    let exact = captured
        .iter()
        .filter(|c| c.bytes == GOOD_BODY.as_bytes())
        .count();
    t.lose(16usize.saturating_sub(exact));
    Ok(())
}

fn odd_bodies(t: &mut Tally) -> Check {
    let mut bench = Bench::new(LIMITS);
    type Reads = fn(&Captured) -> bool;
    let bodies: [(&[u8], Reads); 3] = [
        (br#"{"model":"m","x":"\ud800"}"#, |c| {
            c.json().ok().and_then(|j| {
                j.get("x")
                    .and_then(|x| x.as_str().map(|s| s.units().to_vec()))
            }) == Some(vec![0xD800])
        }),
        (b"{\"a\":\"\xc3\x28\"}", |c| {
            c.json().is_err_and(|e| e.contains("not JSON"))
        }),
        (b"this is not JSON", |c| {
            c.json().is_err_and(|e| e.contains("not JSON"))
        }),
    ];
    for (i, (body, ok)) in bodies.iter().enumerate() {
        t.inject(1);
        let id = 20 + i as u64;
        bench.listener.register(id, Vec::new());
        post(bench.addr(), &bench.path(id), body)?;
        let got = bench.listener.take(id);
        check!(
            got.len() == 1 && got[0].bytes == *body && got[0].problem.is_none(),
            "body {i} was not captured byte-exact: {got:?}"
        );
        check!(ok(&got[0]), "body {i} reads as {:?}", got[0].json());
        bench.good_request()?;
    }
    t.lose(bench.good_lost());
    Ok(())
}

/// The same bodies sent by a probe: the case becomes a probe fault that
/// says the body is unreadable, and its neighbours are untouched.
fn odd_bodies_from_a_probe(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let install = fake_install(dir.path(), None);
    let cases = vec![
        case("body not-json"),
        case("ok"),
        case("body bad-utf8"),
        case("body lone-surrogate"),
    ];
    t.inject(3);
    let mut run = run_fake(&install, &cases, 4, Duration::from_secs(10));
    run.stats()?;
    t.lose(run.lost_of(&[1, 3], 1));
    for i in [0, 2] {
        let o = run
            .observations
            .iter()
            .position(|(x, _)| *x == i)
            .ok_or(format!("case {i} has no observation"))?;
        let (_, obs) = run.observations.swap_remove(o);
        let observed = Observed::from_observation(&cases[i], obs);
        check!(
            matches!(&observed, Observed::ProbeFault(m) if m.contains("request 1 of the case: body is not JSON")),
            "case {i} was observed as {observed:?}"
        );
    }
    Ok(())
}
