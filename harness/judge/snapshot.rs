//! Snapshots of the full captured request bodies: the normal form, the
//! snapshot names, and a check against the insta files under `snapshots/`.
//!
//! In: the bodies one case sent on one version. Out: one text (each body
//! pretty-printed with sorted keys, arrays in order), named
//! `VERSION__CASE-PATH`. The end-to-end test asserts these texts with insta
//! (`cargo insta review` accepts changes); `run` uses `check` to flag a
//! body that changed against its snapshot.
//!
//! Only volatile values are normalised: object keys are sorted, `id`
//! values outside the scripted tool calls, UUIDs and the times an agent
//! network writes into its history (`redact_times`) in strings are redacted,
//! and an API error a tool result quotes keeps its name and status alone. Tool-call ids come
//! from the case's own replies and are part of the round trip, so they stay.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::observation::{Captured, ParsedBody};
use crate::version::spec::MastraVersion;
use std::sync::Arc;

/// The start of the instructions an agent network's routing agent sends.
const NETWORK_ROUTING: &[u8] = b"You will be calling just *one* primitive at a time";

/// Whether an agent network's bodies are left without a snapshot: before
/// 1.6.0 the messages a network writes into its thread in one millisecond
/// are stamped alike, so its routing history carries them in either order
/// (the prompt and the routing instructions, the instructions and the
/// completion check's results: 1 to 3 of eight runs of `cases/network` on
/// 1.0.4, every route, changed one body; none on 1.67.0), as a memory's
/// turns did (docs/seen.md). Which order is Mastra's race, not what the
/// body says; the projection, which does not depend on it, is still
/// compared.
pub fn races(version: MastraVersion, bodies: &[Captured]) -> bool {
    version < MastraVersion::new(1, 6, 0)
        && bodies.iter().any(|b| {
            b.bytes
                .windows(NETWORK_ROUTING.len())
                .any(|w| w == NETWORK_ROUTING)
        })
}

/// A body in normal form.
pub fn normalize(body: &Json) -> Json {
    redact(body, false)
}

fn redact(v: &Json, in_tool_calls: bool) -> Json {
    let mut out = redact_ids(v, in_tool_calls);
    // A sub-agent's error before 1.5.0 quotes the AI SDK's API error, with
    // its stack, the listener's port and the date: kept as its name and
    // status, as projections keep it (`projection::normalise_api_errors`).
    crate::projection::normalise_api_errors(&mut out);
    out
}

fn redact_ids(v: &Json, in_tool_calls: bool) -> Json {
    match v {
        Json::Object(_) => Json::Object(
            v.members()
                .unwrap_or_default()
                .into_iter()
                .map(|(k, item)| {
                    let key = k.to_lossy();
                    let value = if key == "id" && !in_tool_calls && matches!(item, Json::String(_))
                    {
                        Json::str("[id]")
                    } else {
                        redact(item, in_tool_calls || key == "tool_calls")
                    };
                    (k.clone(), value)
                })
                .collect(),
        ),
        Json::Array(items) => Json::Array(items.iter().map(|i| redact(i, in_tool_calls)).collect()),
        // Run and thread ids (workflows, sub-agents) are fresh UUIDs; an
        // agent network's history carries times.
        Json::String(text) => Json::String(redact_times(&crate::projection::redact_uuids(text))),
        other => other.clone(),
    }
}

/// The label before a duration an agent network's completion check writes
/// into the routing history (`Duration: 237ms`).
const DURATION: &str = "Duration: ";

/// `text` with the times no two runs share made placeholders: each
/// `Duration: DIGITSms` (how long a network's completion check took) made
/// `Duration: <ms>`, each ISO time (`2026-12-08T00:09:55.123Z`, a message's
/// `createdAt`) `<date>`, and each run of exactly 13 digits (a workflow
/// step's `startedAt` in milliseconds) `<epoch-ms>`. An agent network
/// writes all three into its routing history as JSON text.
pub fn redact_times(text: &JsString) -> JsString {
    let units = text.units();
    let label: Vec<u16> = DURATION.encode_utf16().collect();
    let digit = |u: u16| (0x30..=0x39).contains(&u);
    let digits_at = |at: usize| {
        units[at.min(units.len())..]
            .iter()
            .take_while(|&&u| digit(u))
            .count()
    };
    let mut out: Vec<u16> = Vec::with_capacity(units.len());
    let mut i = 0;
    let mut changed = false;
    while i < units.len() {
        let after_digit = i > 0 && digit(units[i - 1]);
        if units[i..].starts_with(&label) {
            let start = i + label.len();
            let end = start + digits_at(start);
            if end > start && units[end..].starts_with(&[u16::from(b'm'), u16::from(b's')]) {
                out.extend_from_slice(&label);
                out.extend("<ms>".encode_utf16());
                (i, changed) = (end + 2, true);
                continue;
            }
        }
        if digit(units[i]) && !after_digit {
            if let Some(len) = iso_time_len(&units[i..]) {
                out.extend("<date>".encode_utf16());
                (i, changed) = (i + len, true);
                continue;
            }
            if digits_at(i) == 13 {
                out.extend("<epoch-ms>".encode_utf16());
                (i, changed) = (i + 13, true);
                continue;
            }
        }
        out.push(units[i]);
        i += 1;
    }
    if changed {
        JsString::from_units(out)
    } else {
        text.clone()
    }
}

/// The length of the ISO time `Date.prototype.toISOString` writes
/// (`YYYY-MM-DDTHH:MM:SS.sssZ`) at the start of `units`, if one is there.
fn iso_time_len(units: &[u16]) -> Option<usize> {
    const FORM: &[u8] = b"dddd-dd-ddTdd:dd:dd.dddZ";
    let fits = units.len() >= FORM.len()
        && FORM.iter().zip(units).all(|(&f, &u)| match f {
            b'd' => (0x30..=0x39).contains(&u),
            other => u == u16::from(other),
        });
    fits.then_some(FORM.len())
}

/// The snapshot text of a case's bodies on one version.
pub fn text(bodies: &[Captured]) -> String {
    let parsed: Vec<ParsedBody> = bodies.iter().map(Captured::json).collect();
    text_parsed(&parsed)
}

/// `text`, of bodies already parsed (`Captured::json` of each, in order):
/// the judge has them from the projection, and parsing each body again was
/// a tenth of the harness's CPU a result.
pub fn text_parsed(parsed: &[ParsedBody]) -> String {
    if parsed.is_empty() {
        return "(no request was sent)\n".to_string();
    }
    let mut out = String::new();
    for (i, b) in parsed.iter().enumerate() {
        out.push_str(&format!("--- request {} ---\n", i + 1));
        match b {
            Ok(body) => out.push_str(&normalize(body).to_pretty_sorted()),
            Err(e) => out.push_str(&format!("(unreadable: {e})")),
        }
        out.push('\n');
    }
    out
}

/// The snapshot's name: the version, the route when it is not the default
/// (a case name `PATH@ROUTE`), then the case path without `cases/` and
/// `.json`, folders joined by `__`.
pub fn name(case_name: &str, version: MastraVersion) -> String {
    let (path, route) = match case_name.rsplit_once('@') {
        Some((path, route)) if crate::route::Route::parse(route).is_some() => (path, Some(route)),
        _ => (case_name, None),
    };
    let version = match route {
        Some(route) => format!("{version}__{route}"),
        None => version.to_string(),
    };
    let path = path.trim_start_matches("./");
    let path = path.strip_prefix("cases/").unwrap_or(path);
    let path = path.strip_suffix(".json").unwrap_or(path);
    format!("{version}__{}", path.replace(['/', '\\'], "__"))
}

/// The content of an insta `.snap` file's text: what follows its header.
pub fn snap_body(text: &str) -> Option<String> {
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some(rest[end + 5..].to_string())
}

/// Where the stored snapshots come from: a function from a `.snap` file's
/// name to its text, given by the layer that reads files, so that judging
/// reads none itself. The default shelf is empty.
#[derive(Clone, Default)]
pub struct Shelf(Option<Arc<ShelfReader>>);

type ShelfReader = dyn Fn(&str) -> Option<String> + Send + Sync;

impl Shelf {
    pub fn new(read: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Shelf {
        Shelf(Some(Arc::new(read)))
    }

    fn text(&self, file: &str) -> Option<String> {
        self.0.as_ref().and_then(|read| read(file))
    }
}

impl std::fmt::Debug for Shelf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Shelf(..)"
        } else {
            "Shelf(empty)"
        })
    }
}

/// Whether `bodies` match the stored snapshot: `None` when there is none.
pub fn check(
    shelf: &Shelf,
    case_name: &str,
    version: MastraVersion,
    bodies: &[Captured],
) -> Option<bool> {
    Some(stored(shelf, case_name, version)?.trim_end() == text(bodies).trim_end())
}

/// `check`, of bodies already parsed (see `text_parsed`).
pub fn check_parsed(
    shelf: &Shelf,
    case_name: &str,
    version: MastraVersion,
    parsed: &[ParsedBody],
) -> Option<bool> {
    Some(stored(shelf, case_name, version)?.trim_end() == text_parsed(parsed).trim_end())
}

/// The stored snapshot's body of a case on a version, if there is one.
fn stored(shelf: &Shelf, case_name: &str, version: MastraVersion) -> Option<String> {
    snap_body(&shelf.text(&format!("{}.snap", name(case_name, version)))?)
}

/// A lone surrogate survives normalisation as the same code unit.
#[doc(hidden)]
pub fn _keeps_units(s: &JsString) -> bool {
    normalize(&Json::String(s.clone())) == Json::String(s.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_networks_bodies_before_1_6_0_race() {
        let body = |text: &str| Captured {
            bytes: text.as_bytes().to_vec(),
            problem: None,
        };
        let routing = [
            body(r#"{"messages":[]}"#),
            body(
                r#"{"messages":[{"role":"assistant","content":"You will be calling just *one* primitive at a time"}]}"#,
            ),
        ];
        assert!(races(MastraVersion::new(1, 5, 0), &routing));
        assert!(!races(MastraVersion::new(1, 6, 0), &routing));
        assert!(!races(MastraVersion::new(1, 0, 4), &routing[..1]));
    }

    #[test]
    fn names_are_flat_and_carry_the_version() {
        let v = MastraVersion::new(1, 67, 0);
        assert_eq!(
            name("cases/report/rewrite-table.json", v),
            "1.67.0__report__rewrite-table"
        );
    }

    #[test]
    fn the_times_a_network_writes_are_redacted() {
        let r = |s: &str| redact_times(&JsString::from(s)).to_lossy();
        assert_eq!(
            r("Overall: no\nDuration: 237ms\n\nDuration: 5ms"),
            "Overall: no\nDuration: <ms>\n\nDuration: <ms>"
        );
        assert_eq!(r("Duration: ms"), "Duration: ms");
        assert_eq!(r("Duration: 12s"), "Duration: 12s");
        assert_eq!(r("took 12ms"), "took 12ms");
        assert_eq!(
            r(r#"{"createdAt":"2026-12-08T00:09:55.123Z","startedAt":1796688599112}"#),
            r#"{"createdAt":"<date>","startedAt":<epoch-ms>}"#
        );
        assert_eq!(r("12345678901234"), "12345678901234");
        assert_eq!(r("a1234567890123b"), "a<epoch-ms>b");
        assert_eq!(r("2026-12-08"), "2026-12-08");
    }

    #[test]
    fn ids_are_redacted_except_in_tool_calls() {
        let body = Json::parse(
            r#"{"id":"x1","messages":[{"role":"assistant","tool_calls":[{"id":"call_1"}]}]}"#,
        )
        .unwrap();
        let n = normalize(&body);
        assert_eq!(n.get("id"), Some(&Json::str("[id]")));
        assert!(n.to_compact().contains("call_1"));
        assert!(_keeps_units(&JsString::from_units(vec![0xD800])));
    }

    #[test]
    fn snap_files_are_read_after_their_header() {
        let text = "---\nsource: a\nexpression: b\n---\nbody\ntext\n";
        assert_eq!(snap_body(text).as_deref(), Some("body\ntext\n"));
        assert_eq!(snap_body("body\n"), None);
    }

    #[test]
    fn bodies_parsed_once_give_the_text_of_the_bodies() {
        let bodies = [
            Captured {
                bytes: br#"{"id":"x","model":"m"}"#.to_vec(),
                problem: None,
            },
            Captured {
                bytes: b"not json".to_vec(),
                problem: None,
            },
        ];
        let parsed: Vec<ParsedBody> = bodies.iter().map(Captured::json).collect();
        assert_eq!(text_parsed(&parsed), text(&bodies));
        assert!(text(&bodies).contains("(unreadable: body is not JSON"));
        assert_eq!(text_parsed(&[]), text(&[]));
    }

    #[test]
    fn a_body_is_checked_against_the_shelf_by_its_snapshot_name() {
        let v = MastraVersion::new(1, 67, 0);
        let bodies = [Captured {
            bytes: br#"{"model":"m"}"#.to_vec(),
            problem: None,
        }];
        let stored = format!("---\nsource: a\n---\n{}\n", text(&bodies));
        let shelf =
            Shelf::new(move |file| (file == "1.67.0__report__x.snap").then(|| stored.clone()));
        assert_eq!(check(&shelf, "cases/report/x.json", v, &bodies), Some(true));
        assert_eq!(check(&shelf, "cases/report/y.json", v, &bodies), None);
        let parsed: Vec<ParsedBody> = bodies.iter().map(Captured::json).collect();
        assert_eq!(
            check_parsed(&shelf, "cases/report/x.json", v, &parsed),
            Some(true)
        );
        let other = [Ok(Json::parse(r#"{"model":"n"}"#).unwrap())];
        assert_eq!(
            check_parsed(&shelf, "cases/report/x.json", v, &other),
            Some(false)
        );
        assert_eq!(
            check(&Shelf::default(), "cases/report/x.json", v, &bodies),
            None
        );
    }
}
