//! The site's page: `index.html`, `site.js` and `site.css`, the same for
//! every run; everything a run says is in `data/`.
//!
//! The script reads the address (`#`, `#folder=PATH`,
//! `#case=ID&route=R&version=V`, `#changes`, `#night`, each with `q=TEXT`
//! and `only=VERDICT,...` for the search and the verdict filter) and loads what that view needs as `data/KEY.js`
//! scripts calling `MC.got(KEY, DATA)`: a page opened from `file://` may not
//! fetch, but it may load scripts. Text from the data only ever becomes
//! `textContent`, and only a web address becomes a link. When a view has
//! drawn itself, `body[data-ready]` names it, which the headless-Chromium
//! tests wait for.

/// The page's files and their text.
pub const FILES: [(&str, &str); 3] = [
    ("index.html", INDEX),
    ("site.js", SCRIPT),
    ("site.css", CSS),
];

/// What the index loads before anything is asked for.
pub const FIRST_LOAD: [&str; 4] = ["index.html", "site.js", "site.css", "data/index.js"];

const INDEX: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mastra-conform</title>
<link rel="stylesheet" href="site.css">
</head>
<body>
<header>
<h1><a href="#">mastra-conform</a></h1>
<p id="run"></p>
<nav><a href="#" id="to-grid">grid</a> · <a href="#changes" id="to-changes">changes between releases</a><span id="to-night" hidden> · <a href="#night">since the previous night</a></span></nav>
<p class="controls"><input id="search" type="search" placeholder="search cases" autocomplete="off">
<label>route <select id="route"></select></label></p>
<ul id="legend"></ul>
</header>
<noscript>This site draws its views with JavaScript; the same results are in report.json.</noscript>
<main id="view"></main>
<script src="site.js"></script>
</body>
</html>
"##;

const SCRIPT: &str = r##"'use strict';
// Data files call MC.got(KEY, DATA); load(KEY) adds the script and waits.
const waiting = new Map();
const loaded = new Map();
window.MC = { got(key, data) { const w = waiting.get(key); if (w) { waiting.delete(key); w(data); } } };
function load(key) {
  if (!loaded.has(key)) {
    loaded.set(key, new Promise((resolve, reject) => {
      waiting.set(key, resolve);
      const s = document.createElement('script');
      s.src = 'data/' + key + '.js';
      s.onerror = () => reject(new Error('cannot load ' + s.src));
      document.head.appendChild(s);
    }));
  }
  return loaded.get(key);
}
const loadAll = (prefix, n) => Promise.all([...Array(n).keys()].map(k => load(prefix + '-' + k))).then(parts => parts.flat());
const $ = id => document.getElementById(id);
function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k.startsWith('data-')) e.setAttribute(k, v); else e[k] = v;
  }
  return e;
}
const link = (text, hash, attrs) => el('a', text, Object.assign({ href: hash }, attrs || {}));
let I = null;
const byLetter = new Map();
const minor = v => { const m = /^(\d+)\.(\d+)\./.exec(v); return m ? m[1] + '.' + m[2] : v; };
const columns = () => I.columns.map(i => I.versions[i]);
const versionIndex = v => I.versions.indexOf(v);
function ticked() { return new Set([...document.querySelectorAll('#legend input:checked')].map(i => i.value)); }
function routeChoice() { return $('route').value; }
function hashParams() { return new URLSearchParams(location.hash.slice(1)); }
function setHash(params) { location.hash = new URLSearchParams(params).toString(); }

// A header of version columns grouped by minor release: one row of groups,
// one of versions.
function versionHead(table, lead) {
  const head = table.createTHead();
  const groups = head.insertRow();
  groups.className = 'minors';
  const names = head.insertRow();
  names.className = 'versions';
  for (const l of lead) { groups.appendChild(el('th', '')); names.appendChild(el('th', l)); }
  let last = null, th = null;
  for (const v of columns()) {
    if (minor(v) !== last) { last = minor(v); th = groups.appendChild(el('th', last, { colSpan: 0, 'data-minor': last })); }
    th.colSpan += 1;
    names.appendChild(el('th', v, { 'data-version': v, class: 'version' }));
  }
}
function cell(tr, letter, attrs) {
  const td = tr.insertCell();
  td.className = 'cell';
  for (const [k, v] of Object.entries(attrs)) td.setAttribute(k, v);
  const s = byLetter.get(letter);
  if (!s) { td.dataset.verdict = 'none'; return td; }
  td.dataset.verdict = s.name;
  td.textContent = s.mark;
  td.style.background = s.colour;
  td.title = s.name;
  td.tabIndex = 0;
  return td;
}
function ranges(rs) { return rs.map(([a, b]) => a === b ? a : a + ' – ' + b).join(', '); }

function headline(view) {
  const h = view.appendChild(el('section', null, { id: 'headline' }));
  h.appendChild(el('h2', 'known upstream issues'));
  const ul = h.appendChild(el('ul', null, { id: 'issues' }));
  if (!I.issues.length) ul.appendChild(el('li', 'none shown'));
  for (const is of I.issues) {
    const li = ul.appendChild(el('li', null, is.security ? { 'data-issue': is.id, class: 'security' } : { 'data-issue': is.id }));
    if (is.security) li.appendChild(el('strong', 'SECURITY ', { class: 'security-mark' }));
    li.appendChild(el('b', is.id));
    if (is.title) li.appendChild(document.createTextNode(' (' + is.title + ')'));
    li.appendChild(document.createTextNode(': ' + Object.entries(is.states).map(([st, rs]) => st + ' on ' + ranges(rs)).join('; ')));
    if (is.link && /^https?:\/\//.test(is.link)) { li.appendChild(document.createTextNode(' ')); li.appendChild(el('a', 'upstream', { href: is.link })); }
  }
  const d = h.appendChild(el('p', null, { id: 'divergences' }));
  if (!I.divergences.count) d.textContent = 'divergences: none';
  else {
    d.textContent = 'divergences: ' + I.divergences.count + (I.divergences.count > I.divergences.listed.length ? ' (the first ' + I.divergences.listed.length + ' below)' : '');
    const list = h.appendChild(el('ul', null, { id: 'divergence-list' }));
    for (const r of I.divergences.listed) {
      const li = list.appendChild(el('li'));
      const id = I.ids.get(r.path);
      li.appendChild(id ? link(r.case + ' on ' + r.version, '#' + new URLSearchParams({ case: id, route: r.route, version: r.version })) : el('span', r.case + ' on ' + r.version));
      li.appendChild(document.createTextNode(': ' + r.verdict));
    }
  }
  // Flaky results are kept apart from divergences: observed again, the
  // tries disagree, so they say nothing yet about Mastra.
  if (I.flaky && I.flaky.count) {
    h.appendChild(el('p', 'flaky (observed again, the tries disagree; not divergences): ' + I.flaky.count, { id: 'flaky' }));
    const list = h.appendChild(el('ul', null, { id: 'flaky-list' }));
    for (const r of I.flaky.listed) {
      const li = list.appendChild(el('li'));
      const id = I.ids.get(r.path);
      li.appendChild(id ? link(r.case + ' on ' + r.version, '#' + new URLSearchParams({ case: id, route: r.route, version: r.version })) : el('span', r.case + ' on ' + r.version));
    }
  }
  const nr = h.appendChild(el('p', null, { id: 'not-run' }));
  nr.textContent = I.notRun.length ? 'not run (no column): ' + I.notRun.map(n => n.version + ' (' + n.verdict + ', ' + n.results + ' results' + (n.why ? ': ' + n.why : '') + ')').join('; ') : 'every version ran';
  const ch = h.appendChild(el('p', null, { id: 'changed' }));
  ch.appendChild(link(I.changes.count + ' changes between neighbouring releases', '#changes'));
  if (I.night) { ch.appendChild(document.createTextNode('; ')); ch.appendChild(link(I.night.count + ' since the previous night', '#night')); ch.appendChild(document.createTextNode(' (' + I.night.new + ' new results, ' + I.night.gone + ' gone)')); }
}

function counts(text) {
  const out = [];
  for (const m of text.matchAll(/([a-z])(\d+)/g)) out.push([byLetter.get(m[1]), Number(m[2])]);
  return out;
}
function indexView(view) {
  headline(view);
  view.appendChild(el('h2', 'folders'));
  const found = view.appendChild(el('ul', null, { id: 'found', hidden: true }));
  const table = view.appendChild(el('table', null, { id: 'folders', class: 'grid' }));
  versionHead(table, ['folder', 'cases']);
  const body = table.createTBody();
  const route = routeChoice();
  const text = $('search').value.toLowerCase();
  for (const f of I.folders) {
    const tr = body.insertRow();
    tr.dataset.folder = f.path;
    tr.appendChild(el('th', null, { class: 'case' })).appendChild(link(f.path + '/', '#' + new URLSearchParams({ folder: f.path })));
    tr.appendChild(el('td', String(f.cases), { class: 'n' }));
    for (const i of I.columns) {
      const per = route === '' ? Object.values(f.counts).map(c => c[i] || '') : [(f.counts[route] || [])[i] || ''];
      const sum = new Map();
      for (const t of per) for (const [s, n] of counts(t)) sum.set(s, (sum.get(s) || 0) + n);
      const td = tr.insertCell();
      td.className = 'counts';
      td.dataset.version = I.versions[i];
      const list = [...sum].sort((a, b) => I.verdicts.indexOf(a[0]) - I.verdicts.indexOf(b[0]));
      td.title = list.map(([s, n]) => n + ' ' + s.name).join(', ');
      td.dataset.counts = td.title;
      const worst = list.find(([s]) => s.divergence) || list.find(([s]) => s.name === 'known-issue') || list[0];
      if (worst) { td.style.borderBottom = '4px solid ' + worst[0].colour; }
      td.textContent = list.map(([s, n]) => s.mark + n).join(' ');
    }
  }
  // The search box on the index finds cases in every folder.
  if (text) {
    found.hidden = false;
    loadAll('names', I.names).then(names => {
      const hits = names.filter(n => n[0].toLowerCase().includes(text));
      found.replaceChildren(el('li', hits.length + ' cases match' + (hits.length > 200 ? ' (the first 200)' : '')));
      for (const [path, id] of hits.slice(0, 200)) found.appendChild(el('li')).appendChild(link(path, '#' + new URLSearchParams({ case: id })));
      document.body.dataset.ready = 'index';
    });
    return false;
  }
  return true;
}

function gridRows(tbody, rows, route, onCell) {
  const text = $('search').value.toLowerCase();
  const tick = ticked();
  const routes = route === '' ? I.routes : [route];
  for (const [path, id, byRoute] of rows) {
    for (const r of routes) {
      const codes = byRoute[r];
      if (!codes) continue;
      const tr = tbody.insertRow();
      tr.dataset.case = path; tr.dataset.route = r;
      tr.appendChild(el('th', null, { class: 'case' })).appendChild(link(path, '#' + new URLSearchParams({ case: id })));
      tr.appendChild(el('th', r, { class: 'route' }));
      const verdicts = [];
      for (const i of I.columns) {
        const td = cell(tr, codes[i], { 'data-case': path, 'data-route': r, 'data-version': I.versions[i] });
        verdicts.push(td.dataset.verdict);
        if (td.dataset.verdict !== 'none') onCell(td, id, r, I.versions[i]);
      }
      tr.hidden = !path.toLowerCase().includes(text) || !verdicts.some(v => tick.has(v));
    }
  }
}
const openCell = (td, id, route, version) => {
  const go = () => setHash({ case: id, route, version });
  td.addEventListener('click', go);
  td.addEventListener('keydown', e => { if (e.key === 'Enter') go(); });
};

function folderView(view, path) {
  const f = I.folders.find(f => f.path === path);
  if (!f) { view.appendChild(el('p', 'no folder ' + path, { class: 'error' })); return true; }
  view.appendChild(el('h2', f.path + '/ (' + f.cases + ' cases)'));
  if (I.notRun.length) view.appendChild(el('p', 'not shown, could not run: ' + I.notRun.map(n => n.version).join(', '), { class: 'note' }));
  const table = view.appendChild(el('table', null, { id: 'grid', class: 'grid', 'data-folder': f.path }));
  versionHead(table, ['case', 'route']);
  loadAll('f/' + f.id, f.chunks).then(rows => {
    gridRows(table.createTBody(), rows, routeChoice(), openCell);
    document.body.dataset.ready = 'folder';
  }, fail);
  return false;
}

function pre(parent, title, text, attrs) {
  if (text === undefined || text === null || text === '') return;
  const s = parent.appendChild(el('section', null, attrs));
  s.appendChild(el('h3', title));
  s.appendChild(el('pre', text));
}
function caseView(view, id, route, version) {
  load('c/' + id).then(c => {
    view.appendChild(el('h2', c.path));
    view.appendChild(el('p')).appendChild(link('folder ' + c.folder + '/', '#' + new URLSearchParams({ folder: c.folder })));
    const table = view.appendChild(el('table', null, { id: 'case-grid', class: 'grid' }));
    versionHead(table, ['route']);
    const body = table.createTBody();
    const rs = new Map();
    for (const r of c.results) { if (!rs.has(r.r)) rs.set(r.r, new Map()); rs.get(r.r).set(r.v, r); }
    for (const [r, byV] of rs) {
      const tr = body.insertRow();
      tr.appendChild(el('th', r, { class: 'route' }));
      for (const v of columns()) {
        const res = byV.get(v);
        const td = cell(tr, res ? res.k : '.', { 'data-case': c.path, 'data-route': r, 'data-version': v });
        if (res) openCell(td, id, r, v);
      }
    }
    // The result shown: the one asked for, else the first that needs a
    // person, else the first.
    const pick = c.results.find(r => r.r === route && r.v === version)
      || c.results.find(r => byLetter.get(r.k).divergence) || c.results[0];
    if (pick) detail(view, c, pick);
    document.body.dataset.ready = 'case';
  }, fail);
  return false;
}
function detail(view, c, r) {
  for (const td of view.querySelectorAll('td.cell')) td.classList.toggle('selected', td.dataset.route === r.r && td.dataset.version === r.v);
  const s = byLetter.get(r.k);
  const d = view.appendChild(el('section', null, { id: 'detail', 'data-case': c.path, 'data-route': r.r, 'data-version': r.v, 'data-verdict': s.name }));
  d.appendChild(el('h3', c.path + ' on ' + r.v + ' (' + r.r + '): ' + s.name));
  const b = i => i === undefined ? null : c.blobs[i];
  pre(d, "input (tools' keys, toolChoice, activeTools as the case file writes them)", b(r.in), { class: 'input' });
  if (r.i) {
    const [issue, state] = r.i;
    const [title, url] = c.issues[issue] || [null, null];
    const k = d.appendChild(el('section', null, { class: 'issue' }));
    k.appendChild(el('h3', 'known issue'));
    const p = k.appendChild(el('p'));
    p.appendChild(el('b', issue + ' (' + state + ')'));
    if (title) p.appendChild(document.createTextNode(': ' + title));
    const l = k.appendChild(el('p', null, { class: 'issue-link' }));
    if (url && /^https?:\/\//.test(url)) { l.appendChild(document.createTextNode('upstream: ')); l.appendChild(el('a', url, { href: url })); }
    else l.textContent = 'upstream: not reported yet (known-issues.json links no report)';
  }
  const nights = (c.history || []).filter(h => h[0] === r.r && h[1] === r.v);
  if (nights.length) {
    const hs = d.appendChild(el('section', null, { class: 'history' }));
    hs.appendChild(el('h3', 'history (the nights its result changed)'));
    const ul = hs.appendChild(el('ul'));
    for (const [, , night, at, verdict] of nights) ul.appendChild(el('li', 'night ' + night + ' (' + new Date(at * 1000).toISOString().slice(0, 10) + '): ' + verdict, { 'data-night': night }));
  }
  if (r.t) pre(d, 'observed again (--recheck): the verdict of each try', r.t.join(' → '), { class: 'tries' });
  if (r.pr) pre(d, 'a provider would reject', r.pr.join('\n'), { class: 'provider' });
  pre(d, 'infrastructure', b(r.x), { class: 'infra' });
  pre(d, 'diff (predicted → observed)', b(r.d), { class: 'diff' });
  const pair = d.appendChild(el('div', null, { class: 'pair' }));
  pre(pair, 'predicted', b(r.p), { class: 'predicted' });
  pre(pair, r.o === r.p ? 'observed (the same)' : 'observed', b(r.o), { class: 'observed' });
}

function changesView(view, kind) {
  const night = kind === 'night';
  const info = night ? I.night : I.changes;
  if (!info) { view.appendChild(el('p', 'no previous night was given', { class: 'note' })); return true; }
  view.appendChild(el('h2', night ? 'changed since the previous night (' + info.count + ')' : 'changes between neighbouring releases (' + info.count + ')'));
  let pick = null;
  if (!night) {
    const p = view.appendChild(el('p'));
    p.appendChild(el('label', 'between '));
    pick = p.appendChild(el('select', null, { id: 'boundary' }));
    pick.appendChild(new Option('every pair of neighbours (' + info.count + ')', ''));
    for (const [a, b, n] of info.boundaries) pick.appendChild(new Option(a + ' → ' + b + ' (' + n + ')', a + '>' + b));
    pick.value = hashParams().get('between') || '';
    pick.addEventListener('change', () => setHash(pick.value ? { changes: '', between: pick.value } : { changes: '' }));
  }
  const table = view.appendChild(el('table', null, { id: 'changes', class: 'list' }));
  const head = table.createTHead().insertRow();
  for (const h of night ? ['case', 'route', 'version', 'last night', 'tonight', 'observation'] : ['case', 'route', 'from', 'to', 'verdicts', 'observation']) head.appendChild(el('th', h));
  loadAll(kind, info.chunks).then(items => {
    const text = $('search').value.toLowerCase();
    const route = routeChoice();
    const tick = ticked();
    const between = pick && pick.value;
    const shown = items.filter(it => it[0].toLowerCase().includes(text) && (route === '' || it[2] === route)
      && (!between || it[3] + '>' + it[4] === between) && (tick.has(byLetter.get(it[night ? 5 : 6]).name)));
    const body = table.createTBody();
    for (const it of shown.slice(0, 2000)) {
      const tr = body.insertRow();
      tr.className = 'change';
      const [path, id, r] = it;
      const to = night ? it[3] : it[4];
      tr.dataset.case = path; tr.dataset.route = r;
      tr.appendChild(el('td')).appendChild(link(path, '#' + new URLSearchParams({ case: id, route: r, version: to })));
      tr.appendChild(el('td', r));
      if (night) { tr.appendChild(el('td', it[3])); cell(tr, it[4], {}); cell(tr, it[5], {}); }
      else { tr.appendChild(el('td', it[3])); tr.appendChild(el('td', it[4])); tr.appendChild(el('td', byLetter.get(it[5]).name === byLetter.get(it[6]).name ? 'same: ' + byLetter.get(it[5]).name : byLetter.get(it[5]).name + ' → ' + byLetter.get(it[6]).name)); }
      tr.appendChild(el('td', it[night ? 6 : 7] ? 'changed' : 'same'));
    }
    if (shown.length > 2000) view.appendChild(el('p', 'the first 2000 of ' + shown.length + ' shown; narrow them with the search or the filters', { class: 'note' }));
    document.body.dataset.ready = kind;
  }, fail);
  return false;
}

function fail(e) {
  $('view').appendChild(el('p', String(e && e.message || e), { class: 'error' }));
  document.body.dataset.ready = 'error';
}
function show() {
  delete document.body.dataset.ready;
  const view = $('view');
  view.replaceChildren();
  const p = hashParams();
  let done;
  if (p.has('folder')) { document.body.dataset.view = 'folder'; done = folderView(view, p.get('folder')); }
  else if (p.has('case')) { document.body.dataset.view = 'case'; done = caseView(view, p.get('case'), p.get('route'), p.get('version')); }
  else if (p.has('changes')) { document.body.dataset.view = 'changes'; done = changesView(view, 'changes'); }
  else if (p.has('night')) { document.body.dataset.view = 'night'; done = changesView(view, 'night'); }
  else { document.body.dataset.view = 'index'; done = indexView(view); }
  if (done) document.body.dataset.ready = document.body.dataset.view;
}

load('index').then(index => {
  I = index;
  I.verdicts = I.verdicts.map(v => { byLetter.set(v.letter, v); return v; });
  I.verdicts = [...byLetter.values()];
  I.ids = new Map();
  $('run').textContent = I.run;
  if (I.incomplete) $('run').classList.add('incomplete');
  $('to-night').hidden = !I.night;
  // Routes the results have, and "every route" (one row per case and route).
  const present = new Set(I.folders.flatMap(f => Object.keys(f.counts)));
  I.routes = I.routes.filter(r => present.has(r));
  const route = $('route');
  route.appendChild(new Option('every route', ''));
  for (const r of I.routes) route.appendChild(new Option(r, r));
  route.value = I.routes.length === 1 ? I.routes[0] : '';
  const legend = $('legend');
  for (const v of I.verdicts) {
    const li = legend.appendChild(el('li', null, { 'data-verdict': v.name }));
    const box = li.appendChild(el('input', null, { type: 'checkbox', checked: true, value: v.name, title: 'show rows with ' + v.name }));
    box.addEventListener('change', show);
    li.appendChild(el('span', v.mark, { class: 'swatch' })).style.background = v.colour;
    li.appendChild(document.createTextNode(' ' + v.name));
  }
  // The search and the verdicts shown can come in the address
  // (`q=TEXT`, `only=VERDICT,...`), so that a view can be linked as seen.
  const asked = hashParams();
  if (asked.has('q')) $('search').value = asked.get('q');
  if (asked.has('only')) {
    const only = new Set(asked.get('only').split(','));
    for (const box of document.querySelectorAll('#legend input')) box.checked = only.has(box.value);
  }
  route.addEventListener('change', show);
  let typing = null;
  $('search').addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(show, 150); });
  window.addEventListener('hashchange', show);
  // The divergences the headline lists link to their case's detail, whose
  // address needs the case's id: the names say it.
  if (I.divergences.listed.length || (I.flaky && I.flaky.listed.length)) {
    return loadAll('names', I.names).then(names => { for (const [path, id] of names) I.ids.set(path, id); show(); });
  }
  show();
}, fail);
"##;

const CSS: &str = r##"
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 a { color: inherit; text-decoration: none; }
#run.incomplete { color: #c62828; font-weight: bold; }
table.grid, table.list { border-collapse: collapse; margin-top: 0.5em; }
table.grid th, table.grid td, table.list th, table.list td { border: 1px solid #ddd; padding: 2px 6px; }
tr.versions th.version { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: normal; white-space: nowrap; }
tr.minors th { background: #f0f0f0; font-weight: normal; }
th.case { text-align: left; font-family: ui-monospace, monospace; font-weight: normal; white-space: nowrap; }
th.route { text-align: left; font-weight: normal; white-space: nowrap; }
td.cell { color: #fff; text-align: center; cursor: pointer; min-width: 1.6em; font-weight: bold; }
td.cell.selected { outline: 3px solid #000; }
td.counts { white-space: nowrap; font-size: 12px; }
td.n { text-align: right; }
#headline { border-left: 4px solid #ef8f00; padding-left: 1em; }
#issues li.security { color: #b71c1c; }
#issues .security-mark { background: #b71c1c; color: #fff; padding: 0 0.3em; }
#legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 1em; }
.swatch { display: inline-block; min-width: 1.6em; text-align: center; color: #fff; font-weight: bold; }
.note { color: #555; }
.error { color: #c62828; }
.pair { display: flex; gap: 1em; }
.pair section { flex: 1; min-width: 0; }
pre { background: #f6f6f6; padding: 0.6em; overflow: auto; }
"##;
