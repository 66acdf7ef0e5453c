//! `Script`: which scripted reply answers each request of a case, by who
//! makes the request (`docs/case-format.md`, `replies` and
//! `subAgentReplies`).
//!
//! In: a `Case`, then each request's body as it arrives. Out: the
//! `Requester` of each request (the parent agent, or the sub-agent
//! registered under a key, told apart by its own instructions in the body)
//! and the `Reply` it gets. A sub-agent named in `subAgentReplies` takes
//! from its own list, in the order of its own requests; every other request
//! (the parent's, and those of sub-agents not named there) takes from
//! `replies`, in arrival order. A list that runs out answers the default
//! reply. Pure: the capture listener, the observed projection and the model
//! all route by this one table, so they cannot disagree on who got what.
//!
//! `canonical_order` puts the requests made while one step executes in an
//! order that does not depend on the race between concurrent sub-agents.

use super::{Case, Reply, ToolKey};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::route::body::system_texts;
use crate::route::Route;

/// The instructions each sub-agent is given, followed by its key: the
/// system text its own requests carry, and nothing else's.
pub const SUB_AGENT_INSTRUCTIONS: &str = "sub-agent ";

/// The instructions of the sub-agent registered under `key`.
pub fn sub_agent_instructions(key: &JsString) -> JsString {
    JsString::from(SUB_AGENT_INSTRUCTIONS).concat(key)
}

/// Who made a request.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Requester {
    /// The case's agent itself.
    Parent,
    /// The sub-agent registered under this key.
    SubAgent(ToolKey),
}

/// One list of replies and how far it has been taken.
#[derive(Debug, Clone)]
struct Cursor {
    replies: Vec<Reply>,
    next: usize,
}

impl Cursor {
    fn take(&mut self) -> Reply {
        let reply = self
            .replies
            .get(self.next)
            .cloned()
            .unwrap_or_else(Reply::default_reply);
        self.next += 1;
        reply
    }
}

/// The replies of one case, being handed out.
#[derive(Debug, Clone)]
pub struct Script {
    route: Route,
    /// The case's sub-agent keys, each once, in the case's order.
    agents: Vec<ToolKey>,
    shared: Cursor,
    own: Vec<(ToolKey, Cursor)>,
}

impl Script {
    pub fn of(case: &Case) -> Script {
        let mut agents: Vec<ToolKey> = Vec::new();
        for key in case.sources.agents.iter().flatten() {
            if !agents.contains(key) {
                agents.push(key.clone());
            }
        }
        Script {
            route: case.route,
            agents,
            shared: Cursor {
                replies: case.replies.clone(),
                next: 0,
            },
            own: case
                .sub_agent_replies
                .iter()
                .flatten()
                .map(|(key, replies)| {
                    let cursor = Cursor {
                        replies: replies.clone(),
                        next: 0,
                    };
                    (key.clone(), cursor)
                })
                .collect(),
        }
    }

    /// The replies each list has left: `replies`' own, then each
    /// sub-agent's in `subAgentReplies` (what a later turn of the case
    /// starts from: a list is not rewound between turns).
    pub fn left(&self) -> (Vec<Reply>, Vec<(ToolKey, Vec<Reply>)>) {
        let rest = |c: &Cursor| c.replies.get(c.next..).unwrap_or_default().to_vec();
        let own = self
            .own
            .iter()
            .map(|(key, cursor)| (key.clone(), rest(cursor)))
            .collect();
        (rest(&self.shared), own)
    }

    /// Who made the request whose body is `body` (`None`: a body that is not
    /// JSON, which only the parent's script can answer).
    pub fn requester(&self, body: Option<&Json>) -> Requester {
        let Some(body) = body else {
            return Requester::Parent;
        };
        let texts = system_texts(self.route.wire(), body);
        self.agents
            .iter()
            .find(|key| texts.contains(&sub_agent_instructions(key)))
            .map_or(Requester::Parent, |key| Requester::SubAgent(key.clone()))
    }

    /// Whether `who` takes from a list of its own.
    pub fn has_own(&self, who: &Requester) -> bool {
        match who {
            Requester::Parent => false,
            Requester::SubAgent(key) => self.own.iter().any(|(k, _)| k == key),
        }
    }

    /// The reply the next request of `who` gets.
    pub fn next(&mut self, who: &Requester) -> Reply {
        if let Requester::SubAgent(key) = who {
            if let Some((_, cursor)) = self.own.iter_mut().find(|(k, _)| k == key) {
                return cursor.take();
            }
        }
        self.shared.take()
    }

    /// The position of a sub-agent among the case's (`canonical_order`).
    fn rank(&self, who: &Requester) -> usize {
        match who {
            Requester::Parent => 0,
            Requester::SubAgent(key) => {
                1 + self
                    .agents
                    .iter()
                    .position(|k| k == key)
                    .unwrap_or(self.agents.len())
            }
        }
    }

    /// The order in which a projection lists requests that arrived as
    /// `arrived` (the requester of each, in arrival order): the parent's in
    /// arrival order, and after each of them the sub-agents' requests that
    /// arrived before the parent's next one, grouped by sub-agent in the
    /// case's `agents` order, each sub-agent's own in arrival order. The
    /// parent's requests come one at a time, and a step's sub-agents run
    /// between its request and the next; only the sub-agents race, and
    /// this order is the same whichever wins.
    pub fn canonical_order(&self, arrived: &[Requester]) -> Vec<usize> {
        let mut order = Vec::with_capacity(arrived.len());
        let mut group: Vec<usize> = Vec::new();
        let flush = |group: &mut Vec<usize>, order: &mut Vec<usize>| {
            group.sort_by_key(|&i| self.rank(&arrived[i]));
            order.append(group);
        };
        for (i, who) in arrived.iter().enumerate() {
            if *who == Requester::Parent {
                flush(&mut group, &mut order);
                order.push(i);
            } else {
                group.push(i);
            }
        }
        flush(&mut group, &mut order);
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::read::tests::parse;

    fn body(system: &str) -> Json {
        Json::object([(
            "messages",
            Json::Array(vec![Json::object([
                ("role", Json::str("system")),
                ("content", Json::str(system)),
            ])]),
        )])
    }

    fn text(r: Reply) -> String {
        match r {
            Reply::Text(t) => t.to_lossy(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn each_requester_takes_from_its_own_list_and_the_rest_share_replies() {
        let case = parse(
            r#"{"about":"a","agents":["a","b","c"],
                "replies":[{"text":"p1"},{"text":"p2"}],
                "subAgentReplies":{"b":[{"text":"b1"}],"a":[{"text":"a1"},{"text":"a2"}]}}"#,
        )
        .unwrap();
        let mut s = Script::of(&case);
        let who = |system: &str| s.requester(Some(&body(system)));
        assert_eq!(who("p"), Requester::Parent);
        assert_eq!(who("sub-agent a"), Requester::SubAgent("a".into()));
        assert_eq!(who("sub-agent c"), Requester::SubAgent("c".into()));
        assert_eq!(
            who("sub-agent d"),
            Requester::Parent,
            "not a sub-agent of the case"
        );
        let a = Requester::SubAgent("a".into());
        let b = Requester::SubAgent("b".into());
        let c = Requester::SubAgent("c".into());
        assert!(s.has_own(&a) && !s.has_own(&c) && !s.has_own(&Requester::Parent));
        // Whatever the arrival order, each own list is taken in order; `c`
        // shares `replies` with the parent.
        assert_eq!(text(s.next(&b)), "b1");
        assert_eq!(text(s.next(&a)), "a1");
        assert_eq!(text(s.next(&Requester::Parent)), "p1");
        assert_eq!(text(s.next(&c)), "p2");
        assert_eq!(text(s.next(&a)), "a2");
        assert_eq!(s.next(&b), Reply::default_reply(), "b's list ran out");
        assert_eq!(s.next(&Requester::Parent), Reply::default_reply());
    }

    #[test]
    fn the_canonical_order_groups_each_steps_sub_agents_in_agents_order() {
        let case = parse(r#"{"about":"a","agents":["b","a"]}"#).unwrap();
        let s = Script::of(&case);
        let p = Requester::Parent;
        let a = Requester::SubAgent("a".into());
        let b = Requester::SubAgent("b".into());
        let arrived = [
            p.clone(),
            a.clone(),
            b.clone(),
            a.clone(),
            p.clone(),
            b.clone(),
            p,
        ];
        assert_eq!(s.canonical_order(&arrived), [0, 2, 1, 3, 4, 5, 6]);
        // The same requests in the other race order: the same listing.
        let swapped = [
            Requester::Parent,
            Requester::SubAgent("b".into()),
            Requester::SubAgent("a".into()),
            Requester::SubAgent("a".into()),
        ];
        let order = s.canonical_order(&swapped);
        let listed: Vec<&Requester> = order.iter().map(|&i| &swapped[i]).collect();
        assert_eq!(
            listed,
            [&Requester::Parent, &b, &a, &a],
            "b first: the case lists it first"
        );
    }
}
