//! One self-contained HTML page: a grid of cases (one row per case and wire
//! route, with a route column and a route filter) by versions, each cell
//! coloured by its verdict; a cell opens its detail in a panel beside the
//! grid, which stays in view as the grid scrolls: the case's input (its
//! tools' keys, toolChoice and activeTools as written), the known issue
//! with its title and upstream link, provider rejections, the
//! infrastructure detail, and the diff (or predicted and observed
//! projections).
//!
//! The results travel inside the page as JSON (`<script type=
//! "application/json">`, every `<` escaped so no string can close the tag)
//! and a small script builds the grid from them: no network, no external
//! file. `#open=CASE@VERSION` in the address opens that cell on load, which
//! is also how the headless-Chromium test reads a cell's panel.

use super::doc::{escape, ReportDoc};
use crate::js::json::Json;
use crate::judge::compare::Verdict;

/// The short mark each verdict shows in its cell, and its colour.
pub fn style(v: Verdict) -> (&'static str, &'static str) {
    match v {
        Verdict::AsModelled => ("✓", "#2e7d32"),
        Verdict::Diverged => ("✗", "#c62828"),
        Verdict::KnownIssue => ("K", "#ef8f00"),
        Verdict::KnownIssueFixed => ("F!", "#6a1b9a"),
        Verdict::NotApplicable => ("n/a", "#9e9e9e"),
        Verdict::Unmodelled => ("?", "#78909c"),
        Verdict::Nondeterministic => ("~", "#5d4037"),
        Verdict::SnapshotChanged => ("S", "#d84315"),
        Verdict::ProviderRejects => ("P", "#ad1457"),
        Verdict::Timeout => ("T", "#37474f"),
        Verdict::Crash => ("C", "#37474f"),
        Verdict::ProbeFault => ("PF", "#37474f"),
        Verdict::VersionUnavailable => ("U", "#37474f"),
        Verdict::InstallFailed => ("I", "#37474f"),
    }
}

fn data(doc: &ReportDoc) -> Json {
    let rows = doc
        .rows
        .iter()
        .map(|r| {
            let opt = |s: &Option<String>| s.as_deref().map_or(Json::Null, Json::str);
            Json::object([
                ("case", Json::str(&r.case)),
                ("version", Json::str(&r.version)),
                ("verdict", Json::str(r.verdict.name())),
                ("diff", opt(&r.diff)),
                ("detail", opt(&r.detail)),
                ("predicted", Json::str(&r.predicted.to_pretty_sorted())),
                ("observed", Json::str(&r.observed.to_pretty_sorted())),
                (
                    "knownIssue",
                    r.known_issue
                        .as_ref()
                        .map_or(Json::Null, |(id, s)| Json::str(&format!("{id} ({s})"))),
                ),
                ("issueTitle", opt(&r.issue_title)),
                ("issueLink", opt(&r.issue_link)),
                (
                    "provider",
                    Json::Array(r.provider.iter().map(|p| Json::str(p)).collect()),
                ),
                ("input", opt(&r.input)),
            ])
        })
        .collect();
    let styles = Verdict::ALL
        .into_iter()
        .map(|v| {
            let (mark, colour) = style(v);
            (
                v.name(),
                Json::object([
                    ("mark", Json::str(mark)),
                    ("colour", Json::str(colour)),
                    ("divergence", Json::Bool(v.is_divergence())),
                    ("infrastructure", Json::Bool(v.is_infrastructure())),
                ]),
            )
        })
        .collect::<Vec<_>>();
    Json::object([
        (
            "cases",
            Json::Array(doc.cases().iter().map(|c| Json::str(c)).collect()),
        ),
        (
            "versions",
            Json::Array(doc.versions().iter().map(|v| Json::str(v)).collect()),
        ),
        (
            "routes",
            Json::Array(
                crate::route::Route::ALL
                    .iter()
                    .map(|r| Json::str(r.name()))
                    .collect(),
            ),
        ),
        ("rows", Json::Array(rows)),
        ("verdicts", Json::object(styles)),
    ])
}

const SCRIPT: &str = r#"
const D = JSON.parse(document.getElementById('data').textContent);
const byKey = new Map(D.rows.map(r => [r.case + '@' + r.version, r]));
const grid = document.getElementById('grid');
// A case on a route other than the default is named PATH@ROUTE.
const split = c => {
  const i = c.lastIndexOf('@');
  return i >= 0 && D.routes.includes(c.slice(i + 1)) ? [c.slice(0, i), c.slice(i + 1)] : [c, 'openai-compatible'];
};
const head = grid.createTHead().insertRow();
head.appendChild(document.createElement('th')).textContent = 'case';
head.appendChild(document.createElement('th')).textContent = 'route';
for (const v of D.versions) head.appendChild(document.createElement('th')).textContent = v;
const body = grid.createTBody();
const present = new Set(D.cases.map(c => split(c)[1]));
const filter = document.getElementById('route');
for (const r of D.routes.filter(r => present.has(r))) filter.appendChild(new Option(r, r));
filter.hidden = present.size < 2;
filter.addEventListener('change', () => refilter());
// What is shown: the route, the search box's text in the case's name, the
// verdicts ticked in the legend, folders not folded.
function refilter() {
  const text = document.getElementById('search').value.toLowerCase();
  const ticked = new Set([...document.querySelectorAll('#legend input:checked')].map(i => i.value));
  for (const tr of body.rows) {
    if (tr.className === 'folder') continue;
    const verdicts = [...tr.querySelectorAll('td.cell')].map(td => td.dataset.verdict);
    tr.hidden = (filter.value !== '' && tr.dataset.route !== filter.value)
      || !tr.dataset.case.toLowerCase().includes(text)
      || !verdicts.some(v => ticked.has(v))
      || folderRows.get(tr.dataset.folderOf).classList.contains('folded');
  }
}
document.getElementById('search').addEventListener('input', () => refilter());
// Cases by folder: a folder's row counts its results by verdict and folds
// its cases away on a click.
const folderOf = c => { const p = split(c)[0]; const i = p.lastIndexOf('/'); return i >= 0 ? p.slice(0, i) : '.'; };
const folders = [...new Set(D.cases.map(folderOf))];
const ordered = folders.flatMap(f => D.cases.filter(c => folderOf(c) === f));
const folderRows = new Map();
for (const f of folders) {
  const tr = body.insertRow();
  tr.className = 'folder'; tr.dataset.folder = f;
  const th = tr.appendChild(document.createElement('th'));
  th.colSpan = 2 + D.versions.length;
  const mine = D.rows.filter(r => folderOf(r.case) === f);
  const counts = Object.keys(D.verdicts).map(v => [v, mine.filter(r => r.verdict === v).length]).filter(([, n]) => n);
  th.textContent = '▾ ' + f + '/ (' + D.cases.filter(c => folderOf(c) === f).length + ' cases: ' + counts.map(([v, n]) => n + ' ' + v).join(', ') + ')';
  tr.addEventListener('click', () => { tr.classList.toggle('folded'); th.textContent = (tr.classList.contains('folded') ? '▸' : '▾') + th.textContent.slice(1); refilter(); });
  folderRows.set(f, tr);
}
for (const c of ordered) {
  const f = folderOf(c);
  const tr = body.insertRow();
  // Right after its folder's row and the folder's cases before it.
  let after = folderRows.get(f);
  while (after.nextElementSibling && after.nextElementSibling.dataset.folderOf === f) after = after.nextElementSibling;
  after.after(tr);
  tr.dataset.folderOf = f;
  const [path, route] = split(c);
  tr.dataset.route = route;
  tr.dataset.case = c;
  const th = tr.appendChild(document.createElement('th'));
  th.textContent = path; th.className = 'case';
  const rt = tr.appendChild(document.createElement('th'));
  rt.textContent = route; rt.className = 'route';
  for (const v of D.versions) {
    const td = tr.insertCell();
    const r = byKey.get(c + '@' + v);
    td.className = 'cell';
    td.dataset.case = c; td.dataset.version = v;
    if (!r) { td.dataset.verdict = 'none'; td.textContent = ''; continue; }
    const s = D.verdicts[r.verdict];
    td.dataset.verdict = r.verdict;
    td.textContent = s.mark;
    td.style.background = s.colour;
    td.title = c + ' on ' + v + ': ' + r.verdict;
    td.tabIndex = 0;
    td.addEventListener('click', () => open(r));
    td.addEventListener('keydown', e => { if (e.key === 'Enter') open(r); });
  }
}
const legend = document.getElementById('legend');
for (const [name, s] of Object.entries(D.verdicts)) {
  const n = D.rows.filter(r => r.verdict === name).length;
  if (!n) continue;
  const li = legend.appendChild(document.createElement('li'));
  const box = li.appendChild(document.createElement('input'));
  box.type = 'checkbox'; box.checked = true; box.value = name; box.title = 'show rows with ' + name;
  box.addEventListener('change', () => refilter());
  const sw = li.appendChild(document.createElement('span'));
  sw.className = 'swatch'; sw.style.background = s.colour; sw.textContent = s.mark;
  li.appendChild(document.createTextNode(' ' + name + ' (' + n + ')'));
  li.dataset.verdict = name; li.dataset.count = n;
}
// The known issues at the top: each, its title, and the versions where it
// is in each state.
const issues = new Map();
const titles = new Map();
for (const r of D.rows) {
  const m = r.knownIssue && r.knownIssue.match(/^(.*) \((.*)\)$/);
  if (!m) continue;
  if (r.issueTitle) titles.set(m[1], r.issueTitle);
  const states = issues.get(m[1]) ?? new Map();
  const vs = states.get(m[2]) ?? new Set();
  vs.add(r.version); states.set(m[2], vs); issues.set(m[1], states);
}
const headline = document.getElementById('issues');
for (const [id, states] of issues) {
  const li = headline.appendChild(document.createElement('li'));
  li.dataset.issue = id;
  li.textContent = id + (titles.has(id) ? ' (' + titles.get(id) + ')' : '') + ': ' + [...states].map(([st, vs]) => st + ' on ' + D.versions.filter(v => vs.has(v)).join(', ')).join('; ');
}
headline.hidden = issues.size === 0;
function section(panel, title, text) {
  if (!text) return;
  panel.appendChild(document.createElement('h3')).textContent = title;
  panel.appendChild(document.createElement('pre')).textContent = text;
}
// The known issue: its id and state, its title, and its upstream link. Only
// a web address becomes a link: the page opens nothing else.
function issue(panel, r) {
  if (!r.knownIssue) return;
  panel.appendChild(document.createElement('h3')).textContent = 'known issue';
  const p = panel.appendChild(document.createElement('p'));
  p.className = 'issue';
  p.appendChild(document.createElement('b')).textContent = r.knownIssue;
  if (r.issueTitle) p.appendChild(document.createTextNode(': ' + r.issueTitle));
  const link = panel.appendChild(document.createElement('p'));
  link.className = 'issue-link';
  if (r.issueLink && /^https?:\/\//.test(r.issueLink)) {
    link.appendChild(document.createTextNode('upstream: '));
    const a = link.appendChild(document.createElement('a'));
    a.setAttribute('href', r.issueLink);
    a.textContent = r.issueLink;
  } else {
    link.textContent = 'upstream: not reported yet (known-issues.json links no report)';
  }
}
function open(r) {
  const panel = document.getElementById('panel');
  panel.replaceChildren();
  panel.dataset.case = r.case; panel.dataset.version = r.version; panel.dataset.verdict = r.verdict;
  panel.appendChild(document.createElement('h2')).textContent = r.case + ' on ' + r.version + ': ' + r.verdict;
  section(panel, 'input (tools\' keys, toolChoice, activeTools as the case file writes them)', r.input);
  issue(panel, r);
  section(panel, 'a provider would reject', r.provider.join('\n'));
  section(panel, 'infrastructure', r.detail);
  if (r.diff) section(panel, 'diff (predicted → observed)', r.diff);
  else { section(panel, 'predicted', r.predicted); section(panel, 'observed', r.observed); }
  panel.hidden = false;
  for (const td of document.querySelectorAll('td.selected')) td.classList.remove('selected');
  const td = [...document.querySelectorAll('td.cell')].find(t => t.dataset.case === r.case && t.dataset.version === r.version);
  if (td) td.classList.add('selected');
}
const m = decodeURIComponent(location.hash).match(/^#open=(.*)$/);
if (m && byKey.has(m[1])) open(byKey.get(m[1]));
document.body.dataset.ready = 'yes';
"#;

const CSS: &str = r#"
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ddd; padding: 2px 6px; }
thead th { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: normal; white-space: nowrap; }
thead th:first-child, thead th:nth-child(2) { writing-mode: horizontal-tb; transform: none; vertical-align: bottom; }
th.route { text-align: left; font-weight: normal; white-space: nowrap; }
th.case { text-align: left; font-family: ui-monospace, monospace; font-weight: normal; white-space: nowrap; }
td.cell { color: #fff; text-align: center; cursor: pointer; min-width: 1.6em; font-weight: bold; }
td.cell.selected { outline: 3px solid #000; }
tr.folder th { text-align: left; background: #eee; cursor: pointer; font-weight: normal; }
#issues { border-left: 4px solid #ef8f00; padding-left: 1.5em; }
#legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 1em; }
.swatch { display: inline-block; min-width: 1.6em; text-align: center; color: #fff; font-weight: bold; }
main { display: flex; gap: 1.5em; align-items: flex-start; }
#panel { position: sticky; top: 0; max-height: 100vh; overflow: auto; flex: 1; min-width: 24em; border-left: 2px solid #222; padding-left: 1em; }
pre { background: #f6f6f6; padding: 0.6em; overflow: auto; }
"#;

pub fn render(doc: &ReportDoc) -> String {
    // `<` may only appear inside JSON strings, where `\u003c` means the same.
    let json = data(doc).to_compact().replace('<', "\\u003c");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>mastra-conform report</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <h1>mastra-conform</h1>\n<p id=\"run\">{}</p>\n{}<ul id=\"issues\" hidden></ul>\n<ul id=\"legend\"></ul>\n\
         <p><input id=\"search\" type=\"search\" placeholder=\"search cases\"> \
         <select id=\"route\" hidden><option value=\"\">every route</option></select></p>\n\
         <noscript>This page builds its grid with JavaScript; the same results are in report.json.</noscript>\n\
         <main><table id=\"grid\"></table>\n<section id=\"panel\" hidden></section></main>\n\
         <script type=\"application/json\" id=\"data\">{json}</script>\n<script>{SCRIPT}</script>\n\
         </body>\n</html>\n",
        escape(&doc.run_line()),
        doc.predicted_as()
            .iter()
            .map(|l| format!("<p class=\"predicted-as\">{}</p>\n", escape(l)))
            .collect::<String>()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::doc::tests::sample;

    #[test]
    fn the_page_is_self_contained_and_carries_every_result() {
        let html = render(&sample());
        assert!(
            !html.contains("src=") && !html.contains("href="),
            "no external resource"
        );
        let start = html.find("id=\"data\">").unwrap() + 10;
        let end = start + html[start..].find("</script>").unwrap();
        let data = Json::parse(&html[start..end]).unwrap();
        assert_eq!(
            data.get("rows").and_then(Json::as_array).map(<[Json]>::len),
            Some(4)
        );
        assert!(
            !html[start..end].contains('<'),
            "no `<` can close the data early"
        );
    }

    #[test]
    fn every_verdict_has_a_distinct_mark() {
        let marks: std::collections::BTreeSet<_> =
            Verdict::ALL.iter().map(|v| style(*v).0).collect();
        assert_eq!(marks.len(), Verdict::ALL.len());
    }
}
