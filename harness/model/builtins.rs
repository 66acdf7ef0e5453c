//! What a builtin of `@mastra/core/tools` does when a model calls it: its
//! own input schema, then its own `execute`.
//!
//! In: the release, the builtin's export name, the arguments as sent, and
//! whether the call has memory options. Out: the output object Mastra sends
//! back, a validation failure, a suspension (the loop stops for a person),
//! or why the model does not say.
//!
//! The task tools keep their list in the thread state store of the agent's
//! Mastra storage. The probe's agent belongs to no `Mastra` instance, so
//! there is no store: every task tool answers with its "no memory" result,
//! and `taskCheckTool` with an empty check when the call is memory-backed
//! (a thread and a resource). Measured on 1.42.0 and 1.67.0 with and
//! without memory (`cases/calls/builtin-calls.json`); the texts are the
//! same in every release from 1.42.0 to 1.71.0 (1.42.0
//! `dist/chunk-QJNGPAKF.js:7`, 1.71.0
//! `dist/task-state-processor-BVzGSjZy.js:228`). `askUserTool` and
//! `submitPlanTool` suspend the run (the agent loop hands them `suspend`).
//! `webFetchTool` answers a URL that is not HTTP or HTTPS, and one of a
//! private or reserved host, before any request
//! (`cases/calls/web-fetch-without-an-http-url.json`,
//! `cases/calls/web-fetch-of-a-private-host.json`); any other goes to the
//! network and is not modelled. `webSearchTool` is swapped for
//! the provider's own search: not modelled.

use super::releases::Release;
use crate::js::json::Json;
use crate::js::string::JsString;

/// What a builtin's call comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Builtin {
    /// `execute` returned this object (its keys in the output schema's
    /// order, which Mastra's output validation gives them).
    Output(Json),
    /// The input schema rejected the arguments.
    Rejected,
    /// `execute` suspended the run.
    Suspends,
}

const NO_MEMORY: &str = "Task tools require agent memory (a memory-backed thread). No task was recorded. Configure the agent with Memory to use the task list.";
const NO_TASKS: &str =
    "No tasks found. Consider using task_write to create a task list for complex work.";

const STATUSES: &[&str] = &["pending", "in_progress", "completed"];

/// An input field's requirement, as the builtin's zod schema states it.
#[derive(Clone, Copy)]
enum Field {
    /// `z.string().min(1)`.
    Text,
    /// `z.string()`.
    AnyText,
    /// `z.enum([...])` of the task statuses.
    Status,
    /// `z.array(taskItemInputSchema)`.
    Tasks,
    /// `z.array(optionSchema)` (`{ label: string, description?: string }`).
    Options,
    /// `z.enum(["single_select", "multi_select"])`.
    SelectionMode,
}

/// The arguments as an object (an array arrives keyed by its indices), or
/// `None` for a value that is not one.
fn as_object(input: &Json) -> Option<Vec<(JsString, Json)>> {
    match input {
        Json::Object(members) => Some(members.clone()),
        Json::Array(items) => Some(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| (JsString::from(i.to_string().as_str()), v.clone()))
                .collect(),
        ),
        _ => None,
    }
}

fn text(v: &Json, min: usize) -> bool {
    matches!(v, Json::String(s) if s.len() >= min)
}

fn one_of(v: &Json, options: &[&str]) -> bool {
    matches!(v, Json::String(s) if options.iter().any(|o| *s == JsString::from(*o)))
}

fn passes(field: Field, v: &Json) -> bool {
    let object_with = |v: &Json, fields: &[(&str, Field, bool)]| match v {
        Json::Object(_) => fields.iter().all(|(name, f, required)| match v.get(name) {
            Some(x) => passes(*f, x),
            None => !required,
        }),
        _ => false,
    };
    match field {
        Field::Text => text(v, 1),
        Field::AnyText => text(v, 0),
        Field::Status => one_of(v, STATUSES),
        Field::SelectionMode => one_of(v, &["single_select", "multi_select"]),
        Field::Tasks => match v {
            Json::Array(items) => items.iter().all(|t| {
                object_with(
                    t,
                    &[
                        ("id", Field::Text, false),
                        ("content", Field::Text, true),
                        ("status", Field::Status, true),
                        ("activeForm", Field::Text, true),
                    ],
                )
            }),
            _ => false,
        },
        Field::Options => match v {
            Json::Array(items) => items.iter().all(|o| {
                object_with(
                    o,
                    &[
                        ("label", Field::AnyText, true),
                        ("description", Field::AnyText, false),
                    ],
                )
            }),
            _ => false,
        },
    }
}

/// Each builtin's input fields (name, requirement, required) on `rel`.
fn schema(rel: &Release, name: &str) -> Option<&'static [(&'static str, Field, bool)]> {
    Some(match name {
        "taskWriteTool" => &[("tasks", Field::Tasks, true)],
        "taskUpdateTool" => &[
            ("id", Field::Text, true),
            ("content", Field::Text, false),
            ("status", Field::Status, false),
            ("activeForm", Field::Text, false),
        ],
        "taskCompleteTool" => &[("id", Field::Text, true)],
        "webFetchTool" => &[("url", Field::Text, true)],
        "taskCheckTool" => &[],
        "askUserTool" => &[
            ("question", Field::Text, true),
            ("options", Field::Options, false),
            ("selectionMode", Field::SelectionMode, false),
        ],
        "submitPlanTool" if rel.submit_plan_takes_a_path => &[("path", Field::AnyText, true)],
        "submitPlanTool" => &[
            ("title", Field::AnyText, false),
            ("plan", Field::Text, true),
        ],
        _ => return None,
    })
}

/// The task tools' empty check summary.
fn empty_summary() -> Json {
    let zero = || Json::int(0);
    Json::object([
        ("total", zero()),
        ("completed", zero()),
        ("inProgress", zero()),
        ("pending", zero()),
        ("incomplete", zero()),
        ("hasTasks", Json::Bool(false)),
        ("allCompleted", Json::Bool(false)),
    ])
}

/// What a call of the builtin `name` with `input` comes to; `Err` with why
/// the model does not say (the reason starts "a call to the builtin NAME").
pub fn call(rel: &Release, name: &str, input: &Json, memory: bool) -> Result<Builtin, String> {
    let unmodelled = |why: &str| Err(format!("a call to the builtin {name}: {why}"));
    let Some(fields) = schema(rel, name) else {
        return unmodelled("its execute reaches the network or the provider's own search");
    };
    let Some(members) = as_object(input) else {
        return Ok(Builtin::Rejected);
    };
    let args = Json::Object(members);
    for (field, kind, required) in fields {
        match args.get(field) {
            // Each release strips nullish values its own way before it
            // validates again.
            Some(Json::Null) => return unmodelled("an argument of its own holding null"),
            // From 1.3.0 a JSON text is parsed where a zod schema wants an
            // array or an object (`coerceStringifiedJsonValues`).
            Some(Json::String(s))
                if matches!(kind, Field::Tasks | Field::Options)
                    && matches!(
                        Json::parse(&s.to_lossy()),
                        Ok(Json::Array(_) | Json::Object(_))
                    ) =>
            {
                return unmodelled("an argument of its own sent as JSON text")
            }
            Some(v) if !passes(*kind, v) => return Ok(Builtin::Rejected),
            None if *required => return Ok(Builtin::Rejected),
            _ => {}
        }
    }
    let given = |f: &str| args.get(f).is_some();
    let no_memory = || {
        Json::object([
            ("content", Json::str(NO_MEMORY)),
            ("tasks", Json::Array(Vec::new())),
            ("isError", Json::Bool(true)),
        ])
    };
    Ok(match name {
        // `.refine(...)`: at least one field to change.
        "taskUpdateTool" if !["content", "status", "activeForm"].iter().any(|f| given(f)) => {
            Builtin::Rejected
        }
        "taskWriteTool" | "taskUpdateTool" | "taskCompleteTool" => Builtin::Output(no_memory()),
        "taskCheckTool" => Builtin::Output(Json::object([
            (
                "content",
                Json::str(if memory { NO_TASKS } else { NO_MEMORY }),
            ),
            ("tasks", Json::Array(Vec::new())),
            ("isError", Json::Bool(!memory)),
            ("summary", empty_summary()),
            ("incompleteTasks", Json::Array(Vec::new())),
        ])),
        // `parseHttpUrl` (1.71.0 `dist/tools-DDs4518b.js:619`): a URL that
        // is not HTTP or HTTPS, or no URL at all, is answered before any
        // request; so is a private or reserved host (`assertAllowedUrl`,
        // `:674`, before the request and its DNS lookup). Any other HTTP
        // URL is fetched.
        "webFetchTool" => match args.get("url").and_then(Json::as_str).map(web_fetch) {
            Some(Fetch::Refused) => fetch_failed("URL resolves to a private or reserved address."),
            Some(Fetch::Requested) => {
                return unmodelled(
                    "an HTTP or HTTPS URL of a public host: its execute reaches the network",
                )
            }
            _ => fetch_failed("only HTTP and HTTPS URLs are supported."),
        },
        // Options chosen without options are refused before it suspends.
        "askUserTool" if given("selectionMode") && !has_options(&args) => {
            Builtin::Output(Json::object([
                (
                    "content",
                    Json::str("Failed to ask user: selectionMode requires options."),
                ),
                ("isError", Json::Bool(true)),
            ]))
        }
        _ => Builtin::Suspends,
    })
}

/// The builtins made with a `suspendSchema` (they ask a person and wait):
/// a tool set holding one runs its steps' calls one at a time, and they
/// never start eagerly.
pub fn has_suspend_schema(name: &str) -> bool {
    matches!(name, "askUserTool" | "submitPlanTool")
}

fn fetch_failed(why: &str) -> Builtin {
    Builtin::Output(Json::object([
        ("content", Json::str(&format!("Failed to fetch URL: {why}"))),
        ("isError", Json::Bool(true)),
    ]))
}

/// What `webFetchTool`'s `execute` does with its `url`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fetch {
    /// `parseHttpUrl` gives nothing: no URL, or not `http:` / `https:`.
    NotHttp,
    /// `assertAllowedUrl` throws: a private or reserved host.
    Refused,
    /// The request is made (and its DNS lookup).
    Requested,
}

/// `webFetchTool` on `text` (1.67.0 `dist/tools-C0ejLvNi.js:630` to
/// `:700`, the same functions in every release from 1.54.0 to 1.71.0):
/// `new URL(text)` (the WHATWG parser, which the `url` crate implements;
/// a JS string becomes a USV string first, lone surrogates U+FFFD), then
/// its `hostname` refused when it is `localhost` or ends in `.localhost`
/// (`isBlockedHostname`), or is an IP address in a private or reserved
/// range (`isBlockedIp`).
fn web_fetch(text: &JsString) -> Fetch {
    let Ok(url) = url::Url::parse(&text.to_lossy()) else {
        return Fetch::NotHttp;
    };
    if !matches!(url.scheme(), "http" | "https") {
        return Fetch::NotHttp;
    }
    let refused = match url.host() {
        Some(url::Host::Domain(name)) => name == "localhost" || name.ends_with(".localhost"),
        Some(url::Host::Ipv4(ip)) => reserved_ipv4(ip),
        Some(url::Host::Ipv6(ip)) => reserved_ipv6(ip),
        None => false,
    };
    if refused {
        Fetch::Refused
    } else {
        Fetch::Requested
    }
}

/// `isBlockedIpv4`'s ranges.
fn reserved_ipv4(ip: std::net::Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    matches!(a, 0 | 10 | 127)
        || a >= 224
        || (a == 100 && (64..=127).contains(&b))
        || (a == 169 && b == 254)
        || (a == 172 && (16..=31).contains(&b))
        || (a == 192 && b == 0 && (c == 0 || c == 2))
        || (a == 192 && b == 168)
        || (a == 198 && (b == 18 || b == 19))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
}

/// `isBlockedIpv6` on the hostname the URL parser writes (hex groups,
/// never a dotted tail, so its groups are the address's segments): the
/// unspecified and loopback addresses, an IPv4-mapped one of a blocked
/// IPv4 address, and `fc00::/7`, `fe80::/10`, `ff00::/8`.
fn reserved_ipv6(ip: std::net::Ipv6Addr) -> bool {
    let g = ip.segments();
    let mapped = g[..5].iter().all(|&x| x == 0) && g[5] == 0xffff;
    let [_, _, _, _, _, _, hi, lo] = g;
    let tail = std::net::Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    g.iter().all(|&x| x == 0)
        || (g[..7].iter().all(|&x| x == 0) && g[7] == 1)
        || (mapped && reserved_ipv4(tail))
        || (g[0] & 0xfe00) == 0xfc00
        || (g[0] & 0xffc0) == 0xfe80
        || (g[0] & 0xff00) == 0xff00
}

fn has_options(args: &Json) -> bool {
    matches!(args.get("options"), Some(Json::Array(items)) if !items.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_fetch_reads_urls_as_the_url_parser_does() {
        let of = |url: &str| web_fetch(&JsString::from(url));
        for url in [
            "http://localhost/",
            "HTTP://LocalHost:8080/a?b",
            "https://api.localhost",
            "http://127.0.0.1:/x",
            "http://10.1.2.3#f",
            "http://192.168.0.1/",
            "http://0.0.0.0",
            "http://224.0.0.1/",
            "http://100.64.0.1/",
            // The parser's own readings: octal and short IPv4, escapes,
            // user info, IPv6 (loopback, IPv4-mapped, link-local).
            "http://0177.0.0.1/",
            "http://127.1/",
            "http://local%68ost/",
            "http://a@localhost/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[fe80::1]/",
            " \thttp://localhost/",
        ] {
            assert_eq!(of(url), Fetch::Refused, "{url:?}");
        }
        for url in [
            "http://example.com/",
            "http://8.8.8.8/",
            "http://100.63.0.1/",
            "http://[2001:db8::1]/",
            "http://[::ffff:8.8.8.8]/",
            // A trailing dot is kept in the hostname, which then is no
            // `.localhost` name: looked up.
            "http://localhost./",
        ] {
            assert_eq!(of(url), Fetch::Requested, "{url:?}");
        }
        for url in [
            "ftp://a",
            "not a url",
            "mailto:x",
            "https",
            "",
            "http://",
            "http://a:99999/",
        ] {
            assert_eq!(of(url), Fetch::NotHttp, "{url:?}");
        }
    }
}
