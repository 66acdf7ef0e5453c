//! `Listener`: the loopback capture listener that stands in for the model
//! provider.
//!
//! In: the cases registered with their scripted replies. Out: every request
//! body each case's probe sent, byte-exact, in arrival order.
//!
//! Each case gets its own URL, `http://127.0.0.1:PORT/TOKEN/ID/v1`, where
//! TOKEN is random per listener, so every request is attributed to exactly one
//! case; anything else is refused and counted. The HTTP is axum's router on
//! hyper's HTTP/1 connections: nothing here parses HTTP by hand. Replies
//! are written in the case's route's provider format (`wire`); a route
//! whose provider path sits below the base (`/v1/messages`,
//! `/v1/models/M:generateContent`) reaches the same case URL.
//!
//! The listener runs unattended beside probes that may misbehave, so every
//! resource a client can hold is bounded (`Limits`): connections at once,
//! time to send the headers, time to send the body, body size. A client that
//! breaks a limit loses its own request, recorded as such when it was for a
//! case; it never stalls the listener or touches another case's capture.

use crate::case::script::Script;
use crate::case::{Case, Reply};
use crate::js::json::Json;
use crate::observation::{BodyProblem, Captured, Refused};
use crate::observe::wire::{self, WireReply};
use crate::outcome::error_line;
use crate::route::Route;
use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// What one client may hold of the listener.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub body_limit: usize,
    /// From the first byte of a request (or of a connection) to the end of
    /// its headers.
    pub header_timeout: Duration,
    /// From the end of the headers to the end of the body.
    pub body_timeout: Duration,
    /// Connections open at once; more are closed as soon as accepted.
    pub max_connections: usize,
}

impl Limits {
    /// Generous for any probe (a case sends one request at a time, and
    /// Node's keep-alive closes idle connections after 4 s), tight enough
    /// that a stuck client is let go within a case timeout.
    pub fn new(body_limit: usize) -> Limits {
        Limits {
            body_limit,
            header_timeout: Duration::from_secs(20),
            body_timeout: Duration::from_secs(20),
            max_connections: 1024,
        }
    }
}

struct Slot {
    route: Route,
    /// Who gets which reply (`case::script`).
    script: Script,
    captured: Vec<Captured>,
}

struct Shared {
    token: String,
    limits: Limits,
    slots: Mutex<HashMap<u64, Slot>>,
    refused: Mutex<Refused>,
}

impl Shared {
    fn slots(&self) -> MutexGuard<'_, HashMap<u64, Slot>> {
        // A panic while holding the lock cannot leave a slot half-written
        // (every update is one push or one increment), so a poisoned lock is
        // still sound to use.
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn count(&self, f: impl FnOnce(&mut Refused)) {
        f(&mut self.refused.lock().unwrap_or_else(|p| p.into_inner()));
    }

    fn refuse(&self, f: impl FnOnce(&mut Refused)) -> Response {
        self.count(f);
        (StatusCode::NOT_FOUND, "not a registered case").into_response()
    }
}

pub struct Listener {
    addr: SocketAddr,
    /// The same listener on a Unix socket, in a folder of its own (mode
    /// 0700), for sandboxed probes, whose network namespace has no route
    /// to 127.0.0.1 of the harness (`observe::sandbox`).
    socket: Option<(tempfile::TempDir, std::path::PathBuf)>,
    shared: Arc<Shared>,
    runtime: Option<tokio::runtime::Runtime>,
}

/// The default body limit: a request of the largest corpus case is a few
/// kilobytes; 4 MiB leaves room for any realistic tool set.
pub const DEFAULT_BODY_LIMIT: usize = 4 << 20;

impl Listener {
    /// Bind 127.0.0.1 on an ephemeral port and serve on two worker threads.
    pub fn start(body_limit: usize) -> std::io::Result<Listener> {
        Listener::start_with(Limits::new(body_limit))
    }

    pub fn start_with(limits: Limits) -> std::io::Result<Listener> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("capture")
            .enable_io()
            .enable_time()
            .build()?;
        let mut token = [0u8; 16];
        getrandom::getrandom(&mut token).map_err(std::io::Error::other)?;
        let shared = Arc::new(Shared {
            token: token.iter().map(|b| format!("{b:02x}")).collect(),
            limits,
            slots: Mutex::new(HashMap::new()),
            refused: Mutex::new(Refused::default()),
        });
        let listener = runtime.block_on(tokio::net::TcpListener::bind(("127.0.0.1", 0)))?;
        let addr = listener.local_addr()?;
        let app = Router::new()
            .route("/{token}/{case}/v1/{*rest}", any(handle))
            .fallback(any(|State(s): State<Arc<Shared>>| async move {
                s.refuse(|r| r.bad_token += 1)
            }))
            .with_state(shared.clone());
        let permits = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
        runtime.spawn(serve(
            listener,
            app.clone(),
            shared.clone(),
            permits.clone(),
        ));
        // A machine without a writable temporary folder still has the TCP
        // listener; only sandboxed probes need the socket.
        let socket = tempfile::Builder::new()
            .prefix("mastra-conform-listener-")
            .tempdir()
            .ok()
            .and_then(|dir| {
                let path = dir.path().join("listener.sock");
                let unix = runtime.block_on(async { tokio::net::UnixListener::bind(&path) });
                let unix = unix.ok()?;
                runtime.spawn(serve_unix(unix, app, shared.clone(), permits));
                Some((dir, path))
            });
        Ok(Listener {
            addr,
            socket,
            shared,
            runtime: Some(runtime),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The Unix socket the same listener serves on, if it could be made.
    pub fn socket(&self) -> Option<&std::path::Path> {
        self.socket.as_ref().map(|(_, p)| p.as_path())
    }

    /// What a probe needs to reach this listener, sandboxed or not.
    pub fn reach(&self) -> crate::observe::probe::ListenerReach {
        crate::observe::probe::ListenerReach {
            port: self.addr.port(),
            socket: self.socket().map(std::path::Path::to_path_buf),
        }
    }

    /// The model URL for case `id`.
    pub fn url_for(&self, id: u64) -> String {
        format!("http://{}/{}/{id}/v1", self.addr, self.shared.token)
    }

    /// Start capturing for case `id`, answering `replies` in order, in
    /// the OpenAI-compatible format.
    pub fn register(&self, id: u64, replies: Vec<Reply>) {
        self.register_on(id, Route::OpenAiCompatible, replies);
    }

    /// Start capturing for case `id`, answering `replies` in order, in the
    /// provider format of `route`.
    pub fn register_on(&self, id: u64, route: Route, replies: Vec<Reply>) {
        self.register_case(
            id,
            &Case {
                route,
                replies,
                ..Case::new("", "")
            },
        );
    }

    /// Start capturing for case `id`, answering each request with the
    /// reply the case scripts for whoever made it (`case::script`), in the
    /// provider format of its route.
    pub fn register_case(&self, id: u64, case: &Case) {
        self.shared.slots().insert(
            id,
            Slot {
                route: case.route,
                script: Script::of(case),
                captured: Vec::new(),
            },
        );
    }

    /// Stop capturing for case `id` and hand over what it sent.
    pub fn take(&self, id: u64) -> Vec<Captured> {
        self.shared
            .slots()
            .remove(&id)
            .map(|s| s.captured)
            .unwrap_or_default()
    }

    pub fn refused(&self) -> Refused {
        *self
            .shared
            .refused
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// The accept loop: one HTTP/1 connection task per client, each with the
/// header timeout, at most `max_connections` at once. (`axum::serve` sets no
/// timer, so a client that sends half its headers would hold its connection
/// for ever.)
async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    shared: Arc<Shared>,
    permits: Arc<tokio::sync::Semaphore>,
) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors, or a connection reset before it was
            // accepted: wait a moment rather than spin, and go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Bound to 127.0.0.1 already; this guards against a future bind change.
        if !peer.ip().is_loopback() {
            shared.count(|r| r.not_loopback += 1);
            continue;
        }
        connection(stream, peer, &app, &shared, &permits);
    }
}

/// The accept loop of the Unix socket: the same connections, limits and
/// cap as TCP's (one semaphore for both). Its peers are on this machine by
/// construction; they are recorded as loopback.
async fn serve_unix(
    listener: tokio::net::UnixListener,
    app: Router,
    shared: Arc<Shared>,
    permits: Arc<tokio::sync::Semaphore>,
) {
    let peer = SocketAddr::from(([127, 0, 0, 1], 0));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        connection(stream, peer, &app, &shared, &permits);
    }
}

/// Serve one accepted connection on a task of its own, or close it when
/// `max_connections` are open.
fn connection<S>(
    stream: S,
    peer: SocketAddr,
    app: &Router,
    shared: &Arc<Shared>,
    permits: &Arc<tokio::sync::Semaphore>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    use hyper_util::rt::{TokioIo, TokioTimer};
    let Ok(permit) = permits.clone().try_acquire_owned() else {
        shared.count(|r| r.over_capacity += 1);
        return;
    };
    let router = app.clone();
    let service =
        hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let mut router = router.clone();
            async move { tower_service::Service::call(&mut router, request).await }
        });
    let header_timeout = shared.limits.header_timeout;
    let shared = shared.clone();
    tokio::spawn(async move {
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(header_timeout);
        // A broken or timed-out connection is the client's loss only, and
        // counted by kind: what sent it is not a probe speaking HTTP.
        if let Err(e) = http.serve_connection(TokioIo::new(stream), service).await {
            if e.is_timeout() {
                shared.count(|r| r.header_timeout += 1);
            } else if e.is_parse() {
                shared.count(|r| r.malformed += 1);
            }
        }
        drop(permit);
    });
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    path: Result<Path<(String, String, String)>, PathRejection>,
    request: Request,
) -> Response {
    if !peer.ip().is_loopback() {
        return shared.refuse(|r| r.not_loopback += 1);
    }
    // A path that does not even decode (bad percent-encoding, not UTF-8)
    // cannot carry the token.
    let Ok(Path((token, case, rest))) = path else {
        return shared.refuse(|r| r.bad_token += 1);
    };
    if token != shared.token {
        return shared.refuse(|r| r.bad_token += 1);
    }
    let Some(id) = case
        .parse::<u64>()
        .ok()
        .filter(|id| shared.slots().contains_key(id))
    else {
        return shared.refuse(|r| r.unknown_case += 1);
    };
    let limits = shared.limits;
    // A body declared over the limit is refused before a byte of it is
    // read: waiting for a gigabyte that may never come helps no one.
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let over = declared.is_some_and(|n| n > limits.body_limit as u64);
    let read = axum::body::to_bytes(request.into_body(), limits.body_limit);
    // Whatever went wrong, the case records that a request came and why its
    // body is missing.
    let (bytes, problem) = if over {
        (Vec::new(), Some(BodyProblem::OverLimit(limits.body_limit)))
    } else {
        match tokio::time::timeout(limits.body_timeout, read).await {
            Ok(Ok(b)) => (b.to_vec(), None),
            Ok(Err(e)) if is_length_limit(&e) => {
                (Vec::new(), Some(BodyProblem::OverLimit(limits.body_limit)))
            }
            Ok(Err(e)) => (Vec::new(), Some(BodyProblem::Cut(error_line(&e)))),
            Err(_) => (Vec::new(), Some(BodyProblem::TooSlow(limits.body_timeout))),
        }
    };
    let oversize = problem.is_some();
    let body = if oversize {
        None
    } else {
        Json::parse_bytes(&bytes).ok()
    };
    let (route, reply) = {
        let mut slots = shared.slots();
        let Some(slot) = slots.get_mut(&id) else {
            return shared.refuse(|r| r.unknown_case += 1);
        };
        slot.captured.push(Captured { bytes, problem });
        let who = slot.script.requester(body.as_ref());
        (slot.route, slot.script.next(&who))
    };
    if oversize {
        return (StatusCode::PAYLOAD_TOO_LARGE, "body not captured").into_response();
    }
    let stream = wire::wants_stream(route, &rest, body.as_ref());
    respond(wire::answer(route, &reply, stream))
}

/// Whether reading a body failed on the body limit (axum wraps hyper's and
/// http-body's errors; the limit's own error is `LengthLimitError`).
fn is_length_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// A `WireReply` as HTTP. Streams are sent whole: each reply is small and
/// scripted, and a provider's parser reads the events the same either way.
fn respond(w: WireReply) -> Response {
    let status = StatusCode::from_u16(w.status).unwrap_or(StatusCode::BAD_REQUEST);
    let mut builder = Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, w.content_type);
    if w.content_type == wire::EVENT_STREAM {
        builder = builder.header(header::CACHE_CONTROL, "no-cache");
    }
    builder
        .body(Body::from(Bytes::from(w.body)))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
