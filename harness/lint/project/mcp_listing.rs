//! `mcp-tool-named-by-the-other-listing`: an MCP client lists a server's
//! tools two ways, and each way keys and sends them differently.
//! `listTools()` keys a tool `SERVER_TOOL` (`fs_delete.file`, sent as
//! `fs_delete_file`); `listToolsets()`, given as the default options'
//! `toolsets`, keys it by the name the server lists (`delete.file`, sent
//! as `delete_file`), its id still `fs_delete.file`
//! (`cases/mcp-names/listtoolsets-*`, `mcpListing` in the model, on 1.x;
//! on 0.x the model drives no `listToolsets()`, and the rule is not
//! applied). A `toolChoice`, an `activeTools` entry or an agent's approval
//! policy written with the other listing's spelling meets a name this
//! agent never sends: the generic finding (`tool-choice-names-no-tool-sent`,
//! `active-tools-names-no-tool-sent`) is replaced by one that names the
//! listing, and a policy holding the other listing's sent name is asked
//! with this listing's, answers false, and the tool runs unapproved.
//! `listToolsets()` passed as the `toolsets` of one `generate()` or
//! `stream()` call on the agent counts as the default options' does, and
//! a `toolChoice` or `activeTools` name written in that call is judged
//! against the same spellings.
//!
//! In: a `ProjectAgent`, its `LintReport` (what each key is sent as, and
//! which names its options use match nothing), and the installed release.
//! Out: `Finding`s at the name as written, and the names whose generic
//! finding they replace.

use super::basis::{quote, Finding};
use super::rules::Rule;
use super::{McpListing, OwnApproval, ProjectAgent, ProjectTool};
use crate::js::string::JsString;
use crate::lint::{LintReport, NameFinding, Reference, Severity};
use crate::model::releases::{ACTIVE_TOOLS_APPLIED, APPROVAL_POLICY_ASKED};
use crate::version::spec::MastraVersion;

/// An MCP tool with both listings' spellings.
struct Listed<'a> {
    tool: &'a ProjectTool,
    listing: McpListing,
    server: &'a JsString,
    sent: &'a JsString,
    other_key: &'a JsString,
    other_sent: Option<&'a JsString>,
}

fn listed<'a>(agent: &'a ProjectAgent, report: &'a LintReport) -> Vec<Listed<'a>> {
    agent
        .tools
        .iter()
        .filter_map(|tool| {
            let other = tool.other.as_ref()?;
            let sent = report
                .keys
                .iter()
                .find(|k| k.key == tool.key)?
                .sent_as
                .as_ref()?;
            Some(Listed {
                tool,
                listing: tool.listing?,
                server: tool.server.as_ref()?,
                sent,
                other_key: &other.key,
                other_sent: other.sent_as.as_ref(),
            })
        })
        .collect()
}

/// The tool NAME spells as the other listing would have it, where this
/// agent sends it under another name.
fn spelled_by_other<'a>(tools: &'a [Listed<'a>], name: &JsString) -> Option<&'a Listed<'a>> {
    tools.iter().find(|t| {
        (t.other_key == name || t.other_sent == Some(name)) && name != t.sent && name != &t.tool.key
    })
}

/// What the rule found for one agent.
pub struct ListingFindings {
    pub findings: Vec<Finding>,
    /// The option names whose generic finding a finding here replaces.
    pub replaced: Vec<(Reference, JsString)>,
}

/// Each option name and approval policy of AGENT written with the other
/// listing's spelling of one of its MCP tools. 1.x only.
pub fn listing_findings(
    agent: &ProjectAgent,
    report: &LintReport,
    version: MastraVersion,
) -> ListingFindings {
    let mut out = ListingFindings {
        findings: Vec::new(),
        replaced: Vec::new(),
    };
    if version.major == 0 {
        return out;
    }
    let tools = listed(agent, report);
    if tools.is_empty() {
        return out;
    }
    for n in report.names.iter().filter(|n| n.severity != Severity::Ok) {
        let Some(tool) = spelled_by_other(&tools, &n.name) else {
            continue;
        };
        out.findings.push(name_finding(agent, n, tool));
        out.replaced.push((n.used_in, n.name.clone()));
    }
    out.findings
        .extend(call_findings(agent, report, version, &tools));
    if version.release() >= APPROVAL_POLICY_ASKED.first {
        out.findings.extend(policy_findings(agent, &tools));
    }
    out
}

/// Each `toolChoice` or `activeTools` name written in a call that passes
/// `toolsets: await mcp.listToolsets()` and spells one of the agent's MCP
/// tools as the other listing has it, where no tool is sent under it.
/// `activeTools` from `ACTIVE_TOOLS_APPLIED` (ignored before).
fn call_findings(
    agent: &ProjectAgent,
    report: &LintReport,
    version: MastraVersion,
    tools: &[Listed],
) -> Vec<Finding> {
    let active = version.release() >= ACTIVE_TOOLS_APPLIED.first;
    let sent = |name: &JsString| {
        report
            .keys
            .iter()
            .any(|k| &k.key == name || k.sent_as.as_ref() == Some(name))
    };
    let mut out = Vec::new();
    for call in &agent.calls {
        let choice = call.tool_choice.iter().map(|u| (Reference::ToolChoice, u));
        let listed = call.active_tools.iter().filter(|_| active);
        for (used_in, u) in choice.chain(listed.map(|u| (Reference::ActiveTools, u))) {
            if sent(&u.name) {
                continue;
            }
            let Some(tool) = spelled_by_other(tools, &u.name) else {
                continue;
            };
            let so = match used_in {
                Reference::ToolChoice => {
                    "names no tool that is sent, and the provider rejects the request"
                }
                _ => "matches no tool that is sent, and that tool is not offered",
            };
            out.push(Finding {
                severity: Rule::McpListingName.severity(),
                rule: Rule::McpListingName,
                subject: u.name.clone(),
                message: format!(
                    "{} {} passed to {} names MCP server {}'s tool {} {}, but the call takes the server's tools by {}, which sends it as {}: it {so}; use {}",
                    used_in.name(),
                    quote(&u.name),
                    call.callee,
                    quote(tool.server),
                    quote(&tool.tool.key),
                    other_spelling(tool, &u.name),
                    tool.listing.call(),
                    quote(tool.sent),
                    quote(tool.sent),
                ),
                at: u.at.clone(),
            });
        }
    }
    out
}

/// How the other listing names the tool, in words.
fn other_spelling(tool: &Listed, name: &JsString) -> String {
    let other = tool.listing.other().call();
    if Some(name) == tool.other_sent && name != tool.other_key {
        format!("as {other} sends it")
    } else {
        format!("by its key under {other}")
    }
}

fn name_finding(agent: &ProjectAgent, n: &NameFinding, tool: &Listed) -> Finding {
    let at = agent.reference_at(n.used_in, &n.name);
    let so = match n.used_in {
        Reference::ToolChoice => "names no tool that is sent, and the provider rejects the request",
        _ => "matches no tool that is sent, and that tool is not offered",
    };
    Finding {
        severity: n.severity,
        rule: Rule::McpListingName,
        subject: n.name.clone(),
        message: format!(
            "{} {} names MCP server {}'s tool {} {}, but this agent takes the server's tools by {}, which sends it as {}: it {so}; use {}",
            n.used_in.name(),
            quote(&n.name),
            quote(tool.server),
            quote(&tool.tool.key),
            other_spelling(tool, &n.name),
            tool.listing.call(),
            quote(tool.sent),
            quote(tool.sent),
        ),
        at,
    }
}

/// Each agent policy that holds an MCP tool under the name the other
/// listing sends it as and lets it run under the name it is sent as, the
/// name Mastra asks the policy with.
fn policy_findings(agent: &ProjectAgent, tools: &[Listed]) -> Vec<Finding> {
    let waits = |a| super::mcp_names::waits(a) == Some(true);
    let runs = |a| super::mcp_names::waits(a) == Some(false);
    let mut out = Vec::new();
    for policy in &agent.approval {
        for t in tools {
            let Some(other_sent) = t.other_sent.filter(|o| *o != t.sent) else {
                continue;
            };
            if t.tool.approval != OwnApproval::None {
                continue;
            }
            let (Some(held), Some(asked)) = (policy.answer(other_sent), policy.answer(t.sent))
            else {
                continue;
            };
            if !waits(held) || !runs(asked) {
                continue;
            }
            let mut names = vec![quote(t.sent)];
            names.extend(t.tool.id.as_ref().filter(|id| *id != t.sent).map(quote));
            out.push(Finding {
                severity: Rule::McpListingName.severity(),
                rule: Rule::McpListingName,
                subject: t.tool.key.clone(),
                message: format!(
                    "{} runs without approval: the agent's {} holds {}, the name MCP server {}'s tool is sent as through {}, but this agent takes the server's tools by {}, so Mastra asks the policy with {}, where it answers false; hold every name a call of it can carry ({})",
                    quote(&t.tool.key),
                    policy.option,
                    quote(other_sent),
                    quote(t.server),
                    t.listing.other().call(),
                    t.listing.call(),
                    quote(t.sent),
                    names.join(", "),
                ),
                at: super::mcp_names::written_at(policy, other_sent),
            });
        }
    }
    out
}
