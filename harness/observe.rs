//! `Observed`: what one case really did on one version, built from the
//! probe's answer and the bodies the capture listener received; or the
//! infrastructure failure that kept us from knowing.

use crate::capture::Captured;
use crate::case::{Case, Reply};
use crate::json::Json;
use crate::jsstr::JsString;
use crate::probe::pool::Observation;
use crate::projection::{executed_from, mutated_from, ErrorView, Projection, RequestView};
use std::time::Duration;

#[derive(Debug, Clone)]
pub enum Observed {
    /// The case ran: its projection and the raw bodies it sent.
    Ran {
        projection: Projection,
        bodies: Vec<Captured>,
    },
    /// The registry does not serve the version.
    Unavailable(String),
    /// The version could not be installed, or Node could not be had.
    InstallFailed(String),
    Timeout(Duration),
    Crash(String),
    /// The probe could not build the case, or its answer or a captured body
    /// was unreadable.
    ProbeFault(String),
}

impl Observed {
    pub fn from_observation(case: &Case, obs: Observation) -> Observed {
        match obs {
            Observation::Done { result, captured } => match projection(case, &result, &captured) {
                Ok(projection) => Observed::Ran {
                    projection,
                    bodies: captured,
                },
                Err(e) => Observed::ProbeFault(e),
            },
            Observation::Fault(m) => Observed::ProbeFault(m),
            Observation::Timeout(d) => Observed::Timeout(d),
            Observation::Crash(tail) => Observed::Crash(tail),
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

/// The HTTP status of the reply the listener gave to request `n` (0-based)
/// of a case, when that reply was an error.
fn reply_status(case: &Case, n: usize) -> Option<u16> {
    match case
        .replies
        .get(n)
        .cloned()
        .unwrap_or_else(Reply::default_reply)
    {
        Reply::Error { status, .. } => Some(status),
        _ => None,
    }
}

/// The observed projection from the probe's `result` and the bodies.
pub fn projection(case: &Case, result: &Json, captured: &[Captured]) -> Result<Projection, String> {
    let applicable = result
        .get("applicable")
        .and_then(Json::as_bool)
        .ok_or("the probe's result has no `applicable`")?;
    if !applicable {
        let reason = result
            .get("reason")
            .and_then(Json::as_str)
            .map_or_else(String::new, JsString::to_lossy);
        return Ok(Projection::not_applicable(reason));
    }
    let mut requests = Vec::new();
    for (i, c) in captured.iter().enumerate() {
        let body = c
            .json()
            .map_err(|e| format!("request {} of the case: {e}", i + 1))?;
        requests.push(RequestView::from_body(&body));
    }
    let error = match result.get("error") {
        None | Some(Json::Null) => None,
        Some(e) => {
            // The API-call error a scripted error reply causes is the reply
            // doing its job, not a finding: it is written as no error.
            let status = e.get("statusCode").and_then(Json::as_f64).map(|s| s as u16);
            let scripted = !captured.is_empty()
                && status.is_some()
                && status == reply_status(case, captured.len() - 1);
            if scripted {
                None
            } else {
                Some(ErrorView::from_json(e)?)
            }
        }
    };
    let executed = executed_from(result)?;
    let mutated = mutated_from(result);
    Ok(Projection {
        applicable,
        reason: None,
        error,
        requests,
        executed,
        mutated,
    })
}
