//! `Listener`: the loopback capture listener that stands in for the model
//! provider.
//!
//! In: the cases registered with their scripted replies. Out: every request
//! body each case's probe sent, byte-exact, in arrival order.
//!
//! Each case gets its own URL, `http://127.0.0.1:PORT/TOKEN/ID/v1`, where
//! TOKEN is random per listener, so every request is attributed to exactly one
//! case; anything else is refused and counted. The HTTP is axum's router on
//! hyper's HTTP/1 connections: nothing here parses HTTP by hand.
//!
//! The listener runs unattended beside probes that may misbehave, so every
//! resource a client can hold is bounded (`Limits`): connections at once,
//! time to send the headers, time to send the body, body size. A client that
//! breaks a limit loses its own request, recorded as such when it was for a
//! case; it never stalls the listener or touches another case's capture.

use crate::case::{Reply, ToolCallReply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::observation::{BodyProblem, Captured, Refused};
use crate::outcome::error_line;
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

#[derive(Default)]
struct Slot {
    replies: Vec<Reply>,
    next: usize,
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
        runtime.spawn(serve(listener, app, shared.clone()));
        Ok(Listener {
            addr,
            shared,
            runtime: Some(runtime),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The model URL for case `id`.
    pub fn url_for(&self, id: u64) -> String {
        format!("http://{}/{}/{id}/v1", self.addr, self.shared.token)
    }

    /// Start capturing for case `id`, answering `replies` in order.
    pub fn register(&self, id: u64, replies: Vec<Reply>) {
        self.shared.slots().insert(
            id,
            Slot {
                replies,
                ..Slot::default()
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
async fn serve(listener: tokio::net::TcpListener, app: Router, shared: Arc<Shared>) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let permits = Arc::new(tokio::sync::Semaphore::new(shared.limits.max_connections));
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
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            shared.count(|r| r.over_capacity += 1);
            continue;
        };
        let router = app.clone();
        let service = hyper::service::service_fn(
            move |mut request: hyper::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                let mut router = router.clone();
                async move { tower_service::Service::call(&mut router, request).await }
            },
        );
        let header_timeout = shared.limits.header_timeout;
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(header_timeout);
            // A broken or timed-out connection is the client's loss only.
            let _ = http.serve_connection(TokioIo::new(stream), service).await;
            drop(permit);
        });
    }
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
    let Ok(Path((token, case, _rest))) = path else {
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
    let wants_stream = !oversize
        && Json::parse_bytes(&bytes)
            .ok()
            .and_then(|b| b.get("stream").and_then(Json::as_bool))
            == Some(true);
    let reply = {
        let mut slots = shared.slots();
        let Some(slot) = slots.get_mut(&id) else {
            return shared.refuse(|r| r.unknown_case += 1);
        };
        slot.captured.push(Captured { bytes, problem });
        let reply = slot
            .replies
            .get(slot.next)
            .cloned()
            .unwrap_or_else(Reply::default_reply);
        slot.next += 1;
        reply
    };
    if oversize {
        return (StatusCode::PAYLOAD_TOO_LARGE, "body not captured").into_response();
    }
    answer(&reply, wants_stream)
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

const MODEL: &str = "gpt-4o-mini";

/// The HTTP answer for one scripted reply, as the OpenAI chat-completions API
/// writes it: one JSON completion, or server-sent chunks when the request
/// asked to stream. Error replies are HTTP errors either way.
pub fn answer(reply: &Reply, stream: bool) -> Response {
    match reply {
        Reply::Error { status, body } => {
            let body = body.clone().unwrap_or_else(|| {
                Json::object([("error", Json::object([("message", Json::str("captured"))]))])
            });
            let status = StatusCode::from_u16(*status).unwrap_or(StatusCode::BAD_REQUEST);
            json_response(status, &body)
        }
        Reply::Text(text) if !stream => {
            let message = Json::object([
                ("role", Json::str("assistant")),
                ("content", Json::String(text.clone())),
            ]);
            json_response(StatusCode::OK, &completion(message, "stop"))
        }
        Reply::ToolCalls(calls) if !stream => {
            let calls = calls.iter().map(|c| tool_call(c, None)).collect();
            let message = Json::object([
                ("role", Json::str("assistant")),
                ("content", Json::Null),
                ("tool_calls", Json::Array(calls)),
            ]);
            json_response(StatusCode::OK, &completion(message, "tool_calls"))
        }
        Reply::Text(text) => sse(
            &[Json::object([
                ("role", Json::str("assistant")),
                ("content", Json::String(text.clone())),
            ])],
            "stop",
        ),
        Reply::ToolCalls(calls) => {
            let deltas: Vec<Json> = calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    Json::object([
                        ("role", Json::str("assistant")),
                        ("tool_calls", Json::Array(vec![tool_call(c, Some(i))])),
                    ])
                })
                .collect();
            sse(&deltas, "tool_calls")
        }
    }
}

fn tool_call(c: &ToolCallReply, index: Option<usize>) -> Json {
    let mut members = Vec::new();
    if let Some(i) = index {
        members.push(("index", Json::int(i as i64)));
    }
    members.extend([
        ("id", Json::String(c.id.clone())),
        ("type", Json::str("function")),
        (
            "function",
            Json::object([
                ("name", Json::String(c.name.clone())),
                (
                    "arguments",
                    Json::String(JsString::from(c.arguments.to_compact())),
                ),
            ]),
        ),
    ]);
    Json::object(members)
}

fn usage() -> Json {
    Json::object([
        ("prompt_tokens", Json::int(1)),
        ("completion_tokens", Json::int(1)),
        ("total_tokens", Json::int(2)),
    ])
}

fn completion(message: Json, finish: &str) -> Json {
    Json::object([
        ("id", Json::str("chatcmpl-conform")),
        ("object", Json::str("chat.completion")),
        ("created", Json::int(0)),
        ("model", Json::str(MODEL)),
        (
            "choices",
            Json::Array(vec![Json::object([
                ("index", Json::int(0)),
                ("message", message),
                ("finish_reason", Json::str(finish)),
            ])]),
        ),
        ("usage", usage()),
    ])
}

fn chunk(choices: Vec<Json>, usage_part: Option<Json>) -> Json {
    let mut members = vec![
        ("id", Json::str("chatcmpl-conform")),
        ("object", Json::str("chat.completion.chunk")),
        ("created", Json::int(0)),
        ("model", Json::str(MODEL)),
        ("choices", Json::Array(choices)),
    ];
    if let Some(u) = usage_part {
        members.push(("usage", u));
    }
    Json::object(members)
}

fn sse(deltas: &[Json], finish: &str) -> Response {
    let mut text = String::new();
    let mut event = |v: Json| {
        text.push_str("data: ");
        text.push_str(&v.to_compact());
        text.push_str("\n\n");
    };
    for d in deltas {
        event(chunk(
            vec![Json::object([
                ("index", Json::int(0)),
                ("delta", d.clone()),
                ("finish_reason", Json::Null),
            ])],
            None,
        ));
    }
    event(chunk(
        vec![Json::object([
            ("index", Json::int(0)),
            ("delta", Json::object(Vec::<(&str, Json)>::new())),
            ("finish_reason", Json::str(finish)),
        ])],
        None,
    ));
    event(chunk(Vec::new(), Some(usage())));
    text.push_str("data: [DONE]\n\n");
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from(Bytes::from(text)))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn json_response(status: StatusCode, body: &Json) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_compact()))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
