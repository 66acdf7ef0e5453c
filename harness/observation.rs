//! `Observed`: what one case really did on one version, built from the
//! probe's answer and the bodies the capture listener received; or the
//! infrastructure failure that kept us from knowing.
//!
//! Pure data: `observe` (processes, the probe, the listener) fills in
//! `Captured` bodies and `Observation`s; the judges read them here without
//! importing anything that starts a process or listens.

use crate::case::script::{Requester, Script};
use crate::case::{Case, Reply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::lookups::Lookups;
use crate::projection::{
    executed_from, mutated_from, ErrorView, Projection, RequestView, Seen, Turn,
};
use std::time::Duration;

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Captured {
    /// The body, byte-exact; empty when `problem` says it was not read whole.
    pub bytes: Vec<u8>,
    pub problem: Option<BodyProblem>,
}

/// Why a request's body was not captured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyProblem {
    /// Longer than the body limit (that many bytes).
    OverLimit(usize),
    /// The client stopped sending, or the connection broke, mid-body.
    Cut(String),
    /// Not all of it came within the body timeout.
    TooSlow(Duration),
}

impl std::fmt::Display for BodyProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyProblem::OverLimit(limit) => write!(f, "body over the {limit}-byte limit"),
            BodyProblem::Cut(why) => write!(f, "body cut off: {why}"),
            BodyProblem::TooSlow(after) => write!(f, "body not received within {after:?}"),
        }
    }
}

impl Captured {
    /// The body as JSON, or why it is not.
    pub fn json(&self) -> Result<Json, String> {
        if let Some(problem) = &self.problem {
            return Err(problem.to_string());
        }
        Json::parse_bytes(&self.bytes).map_err(|e| format!("body is not JSON: {e}"))
    }
}

/// Requests that reached the listener but belong to no registered case, and
/// connections it turned away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refused {
    pub bad_token: u64,
    pub unknown_case: u64,
    pub not_loopback: u64,
    /// Connections closed at once because `Limits::max_connections` were open.
    pub over_capacity: u64,
    /// Connections whose bytes were not HTTP/1.1.
    pub malformed: u64,
    /// Connections closed because their headers did not arrive in time.
    pub header_timeout: u64,
}

impl Refused {
    pub fn total(&self) -> u64 {
        self.bad_token
            + self.unknown_case
            + self.not_loopback
            + self.over_capacity
            + self.malformed
            + self.header_timeout
    }
}

/// One case's outcome on one probe.
#[derive(Debug)]
pub enum Observation {
    /// The probe answered; `captured` is what reached the listener.
    Done {
        result: Json,
        captured: Vec<Captured>,
    },
    /// The probe could not build the case.
    Fault(String),
    Timeout(Duration),
    /// The probe died while running it (twice), with the end of its stderr.
    Crash(String),
}

// `Ran` is what nearly every result is; boxing its projection would add an
// allocation to each of them to shrink the rare infrastructure outcomes.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Observed {
    /// The case ran: its projection and the raw bodies it sent.
    Ran {
        projection: Projection,
        bodies: Vec<Captured>,
    },
    /// The registry does not serve the version.
    Unavailable(String),
    /// The version could not be installed, or Node could not be had (the
    /// error and its causes, one per line).
    InstallFailed(String),
    Timeout(Duration),
    Crash(String),
    /// The probe could not build the case, its answer or a captured body
    /// was unreadable, or no probe could start (or stay up) to run it: then
    /// the probe's error, with the end of its stderr.
    ProbeFault(String),
}

impl Observed {
    pub fn from_observation(case: &Case, obs: Observation) -> Observed {
        Observed::from_observation_parsed(case, obs).0
    }

    /// As `from_observation`, with the bodies as the projection parsed
    /// them, one for each of `Ran`'s bodies in its order (none otherwise),
    /// for the judges that read them again.
    pub fn from_observation_parsed(case: &Case, obs: Observation) -> (Observed, Vec<ParsedBody>) {
        match obs {
            Observation::Done { result, captured } => {
                match projection_parsed(case, &result, captured) {
                    Ok((projection, bodies, parsed)) => {
                        (Observed::Ran { projection, bodies }, parsed)
                    }
                    Err(e) => (Observed::ProbeFault(e), Vec::new()),
                }
            }
            Observation::Fault(m) => (Observed::ProbeFault(m), Vec::new()),
            Observation::Timeout(d) => (Observed::Timeout(d), Vec::new()),
            Observation::Crash(tail) => (Observed::Crash(tail), Vec::new()),
        }
    }

    pub fn projection(&self) -> Option<&Projection> {
        match self {
            Observed::Ran { projection, .. } => Some(projection),
            _ => None,
        }
    }

    /// A short description of an infrastructure outcome.
    pub fn infra_detail(&self) -> Option<String> {
        match self {
            Observed::Ran { .. } => None,
            Observed::Unavailable(m) | Observed::InstallFailed(m) | Observed::ProbeFault(m) => {
                Some(m.clone())
            }
            Observed::Timeout(d) => Some(format!("no answer within {d:?}")),
            Observed::Crash(tail) => Some(format!(
                "the probe died twice while running it; stderr ends:\n{tail}"
            )),
        }
    }
}

/// Who made each captured request, and the HTTP status of the reply the
/// listener gave it when that was an error: the listener's routing
/// (`case::script`) replayed in arrival order.
fn routed(case: &Case, bodies: &[Result<Json, String>]) -> Vec<(Requester, Option<u16>)> {
    let mut script = Script::of(case);
    bodies
        .iter()
        .map(|body| {
            let who = script.requester(body.as_ref().ok());
            let status = match script.next(&who) {
                Reply::Error { status, .. } => Some(status),
                _ => None,
            };
            (who, status)
        })
        .collect()
}

/// The observed projection from the probe's `result` and the bodies, and
/// the bodies in the order the projection lists them
/// (`Script::canonical_order`: concurrent sub-agents' requests in the order
/// of the case's `agents`, whichever arrived first).
pub fn projection(
    case: &Case,
    result: &Json,
    captured: Vec<Captured>,
) -> Result<(Projection, Vec<Captured>), String> {
    projection_parsed(case, result, captured).map(|(p, bodies, _)| (p, bodies))
}

/// A captured body as JSON, or why it is not (`Captured::json`).
pub type ParsedBody = Result<Json, String>;

/// As `projection`, with each body parsed, in the order of the bodies
/// returned.
pub fn projection_parsed(
    case: &Case,
    result: &Json,
    captured: Vec<Captured>,
) -> Result<(Projection, Vec<Captured>, Vec<ParsedBody>), String> {
    let applicable = result
        .get("applicable")
        .and_then(Json::as_bool)
        .ok_or("the probe's result has no `applicable`")?;
    if !applicable {
        let reason = result
            .get("reason")
            .and_then(Json::as_str)
            .map_or_else(String::new, JsString::to_lossy);
        let parsed = captured.iter().map(Captured::json).collect();
        return Ok((Projection::not_applicable(reason), captured, parsed));
    }
    // Each body parsed once, for the routing and the requests both.
    let bodies: Vec<Result<Json, String>> = captured.iter().map(Captured::json).collect();
    let routed = routed(case, &bodies);
    // The status of each scripted error reply, in arrival order: a call's
    // API-call error comes from the last request of that call.
    let statuses: Vec<Option<u16>> = routed.iter().map(|(_, status)| *status).collect();
    let who: Vec<Requester> = routed.into_iter().map(|(who, _)| who).collect();
    let mut slots: Vec<Option<(Captured, Result<Json, String>)>> =
        captured.into_iter().zip(bodies).map(Some).collect();
    let (captured, bodies): (Vec<Captured>, Vec<Result<Json, String>>) = Script::of(case)
        .canonical_order(&who)
        .into_iter()
        .filter_map(|i| slots[i].take())
        .unzip();
    let mut requests = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        let body = body
            .as_ref()
            .map_err(|e| format!("request {} of the case: {e}", i + 1))?;
        requests.push(
            RequestView::on(case.route, body)
                .with_uuids_redacted()
                .with_step_times_zeroed()
                .with_validation_normalised(),
        );
    }
    let mutated = mutated_from(result);
    let lookups = match result.get("lookups") {
        _ if !case.lookups => None,
        None => return Err("the probe's result has no `lookups`".into()),
        Some(l) => Some(Box::new(Lookups::observed(&case.tool_names(), l)?)),
    };
    let mut projection = match result.get("turns") {
        None => {
            let last_status = statuses.last().copied().flatten();
            let turn = turn_of(case, result, requests, last_status)?;
            Projection {
                error: turn.error,
                requests: turn.requests,
                executed: turn.executed,
                seen: turn.seen,
                mutated,
                ..Projection::empty()
            }
        }
        Some(turns) => {
            let turns = turns
                .as_array()
                .ok_or("the probe's `turns` is not an array")?;
            let mut rest = requests.into_iter();
            let mut at = 0;
            let mut out = Vec::new();
            for (i, t) in turns.iter().enumerate() {
                let n = t
                    .get("requests")
                    .and_then(Json::as_f64)
                    .ok_or("a turn of the probe's result has no request count")?
                    as usize;
                let mine: Vec<RequestView> = rest.by_ref().take(n).collect();
                if mine.len() != n {
                    return Err(format!(
                        "the probe counted {n} requests in a turn, beyond the {} captured",
                        at + mine.len()
                    ));
                }
                at += n;
                let last_status = if n == 0 { None } else { statuses[at - 1] };
                let call = case
                    .calls()
                    .get(i)
                    .ok_or("the probe's result has more turns than the case")?;
                out.push(turn_of(&case.turn(call), t, mine, last_status)?);
            }
            Projection {
                mutated,
                turns: Some(out),
                ..Projection::empty()
            }
        }
    };
    projection.lookups = lookups;
    Ok((projection, captured, bodies))
}

/// One call's part of the probe's result (the whole result, or one of its
/// `turns`) with the requests it made; `last_status` is the scripted error
/// status of its last request, if that reply was an error.
fn turn_of(
    case: &Case,
    result: &Json,
    requests: Vec<RequestView>,
    last_status: Option<u16>,
) -> Result<Turn, String> {
    let error = match result.get("error") {
        None | Some(Json::Null) => None,
        Some(e) => {
            // The API-call error a scripted error reply causes is the reply
            // doing its job, not a finding: it is written as no error.
            let status = e.get("statusCode").and_then(Json::as_f64).map(|s| s as u16);
            let scripted = status.is_some() && status == last_status;
            if scripted {
                None
            } else {
                let mut error = ErrorView::from_json(e)?;
                error.message = crate::projection::without_stack(&error.message);
                Some(error)
            }
        }
    };
    let executed = executed_from(result)?;
    // The probe observes `seen` on every case of a 1.x release (`null` on
    // 0.x), and the projection carries it as the model does (docs/seen.md).
    let seen = match result.get("seen") {
        None => return Err("the probe's result has no `seen`".into()),
        Some(Json::Null) => None,
        Some(seen) => {
            let mut seen = Seen::from_json(seen)?;
            if !case.route.call_ids_scripted() {
                // Gemini's calls carry no id: the AI SDK draws one at random.
                for (id, _) in &mut seen.pending {
                    *id = Json::Null;
                }
            }
            Some(Box::new(seen))
        }
    };
    Ok(Turn {
        error,
        requests,
        executed,
        seen,
    })
}
