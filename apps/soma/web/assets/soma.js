// soma serve's page: every view renders what the JSON API answers
// (docs/web.md), and live views follow the store through /events. Plain
// script, nothing fetched from elsewhere.
"use strict";

const main = document.getElementById("main");
const tip = document.getElementById("tip");
const liveMark = document.getElementById("live");

// What this page has received live, for whoever checks it (its tests): the
// forward numbers a run's stream sent, in the order they came.
// loaded: the forwards a run page had when it loaded.
window.soma = { seen: [], loaded: null };

// ---- formatting for a person ------------------------------------------------

const pad2 = (n) => String(n).padStart(2, "0");

// Unix seconds as local date and time: "2026-12-02 01:23:45".
function when(s) {
  if (s === null || s === undefined) return "–";
  const d = new Date(s * 1000);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ` +
         `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

// How long ago unix seconds `s` was: "12 s ago", "3 min ago", "2 h ago", "4 d ago".
function ago(s) {
  const d = Date.now() / 1000 - s;
  if (d < 0) return "just now";
  if (d < 90) return `${Math.round(d)} s ago`;
  if (d < 5400) return `${Math.round(d / 60)} min ago`;
  if (d < 172800) return `${Math.round(d / 3600)} h ago`;
  return `${Math.round(d / 86400)} d ago`;
}

// Microseconds as a duration: "850 µs", "12.3 ms", "4.56 s", "3 min 20 s", "2 h 5 min".
function dur(us) {
  if (us === null || us === undefined) return "–";
  const a = Math.abs(us);
  if (a < 1000) return `${Math.round(us)} µs`;
  if (a < 1e6) return `${(us / 1e3).toPrecision(3)} ms`;
  if (a < 60e6) return `${(us / 1e6).toPrecision(3)} s`;
  const s = Math.round(us / 1e6);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

const num = (x, digits = 2) => (x === null || x === undefined) ? "–"
  : (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(digits)) : String(x));

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// The edit distance between two names (insertions, deletions, changes):
// "did you mean" for a mistyped run.
function distance(a, b) {
  let row = [...Array(b.length + 1).keys()];
  for (let i = 1; i <= a.length; ++i) {
    const next = [i];
    for (let j = 1; j <= b.length; ++j)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

const runLink = (run) => `<a href="/run/${encodeURIComponent(run)}">${esc(run)}</a>`;

// ---- reading the API ----------------------------------------------------------

async function get(path, as = "json") {
  const res = await fetch(path, { cache: "no-store" });
  if (!res.ok) throw new Error(`${res.status}: ${(await res.text()).trim()}`);
  return as === "json" ? res.json() : res.text();
}

function failed(where, e) {
  where.innerHTML = `<p class="error">${esc(e.message)}</p>`;
}

// A table from rows: columns are [heading, (row) => html, "num"?].
function table(columns, rows, rowAttrs = () => "") {
  // A fourth element names the column's cells (data-column), for a column
  // whose name is the store's (a summarised value's).
  const named = (n) => (n ? ` data-column="${esc(n)}"` : "");
  const head = columns.map(([h, , k, n]) => `<th class="${k || ""}"${named(n)}>${esc(h)}</th>`).join("");
  const body = rows.map((r) => `<tr ${rowAttrs(r)}>` +
    columns.map(([, f, k, n]) => `<td class="${k || ""}"${named(n)}>${f(r)}</td>`).join("") + "</tr>").join("");
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

// Calls f at most once every `ms`, the last call always made.
function throttle(f, ms) {
  let due = null, last = 0;
  return () => {
    if (due) return;
    const wait = Math.max(0, last + ms - Date.now());
    due = setTimeout(() => { due = null; last = Date.now(); f(); }, wait);
  };
}

// ---- the live mark: whether this page follows the store, and when it moved ------

// What the mark says: the stream's state ("on", "off", "trouble" or null for
// a page that does not follow) and the store's newest write (/api/store),
// by its writers' clocks, held against this browser's clock.
const mark = { stream: null, trouble: "", fixed: "", store: null };

// A whole number of seconds for a person: "42s", "9m 12s", "3h 5m", "2d 4h".
function span(s) {
  s = Math.max(0, Math.floor(s));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

function showMark() {
  const st = mark.store, newest = st && st.newest_write_us;
  const age = newest === null || newest === undefined ? null : Date.now() / 1000 - newest / 1e6;
  const silent = age !== null && st && age > st.silent_after_s;
  // Stale: every machine quiet, as the server judges it (soma standing's
  // state, by its clock), sooner than silent_store's 300 s.
  const stale = silent || (st && st.stale === true);
  const head = mark.stream === "on" ? "live" : mark.stream === "off" ? "reconnecting"
    : mark.stream === "trouble" ? `store unreadable: ${mark.trouble}` : mark.fixed;
  const moved = !st ? "" : age === null ? "nothing written yet"
    : silent ? `store silent: last write ${span(age)} ago`
    : stale ? `stale: last write ${span(age)} ago` : `last write ${age < 0 ? "0s" : span(age)} ago`;
  liveMark.textContent = [head, moved].filter(Boolean).join(" · ") || "connecting";
  const quietClass = silent ? " silent" : stale ? " stale" : "";
  liveMark.className = "live" + (mark.stream === "on" ? (quietClass || " on")
    : mark.stream === null ? quietClass : " off");
  liveMark.dataset.age = age === null ? "" : String(Math.floor(age));
  liveMark.dataset.newest = newest === null || newest === undefined ? "" : String(newest);
  const after = st ? st.silent_after_s : 300;
  liveMark.title = (mark.stream === "on" ? "this page receives the store's changes as they are written. " : "")
    + "Last write: the newest of any machine's latest reading and any run's last forward, stamped by "
    + "the writers' clocks and held against this browser's clock (a clock skewed by X moves it by X). "
    + (st && st.stale_after_s !== null
      ? `Once every machine is quiet (about ${st.stale_after_s} s without a reading: 3 of their longest reporting interval, and 1 s for clocks, by the server's clock, as soma standing says) the mark says stale and is no longer green; `
      : "")
    + `past ${after} s the store is silent: `
    + `the shipped health rule silent_store's threshold (over = ${after} s, /health).`;
}

// Asks /api/store again (at most once a second, however many events come).
const lookAtStore = throttle(() => get("/api/store").then((st) => { mark.store = st; showMark(); })
  .catch(() => {}), 1000);
// Asked again every 5 s (a store nobody writes any more: its age grows), or
// sooner when its machines report faster, so that stale shows within about
// the time it judges by.
function pollStore() {
  lookAtStore();
  const st = mark.store, after = st && st.stale_after_s;
  setTimeout(pollStore, 1000 * (after ? Math.min(5, Math.max(1, after / 2)) : 5));
}
pollStore();
setInterval(showMark, 1000);

// Says what a page that follows nothing shows ("as recorded").
function fixedMark(text) { mark.fixed = text; showMark(); }

// ---- live: one EventSource per page, resumed where it stopped ------------------

let stream = null;

// A page left closes its stream at once: a browser holds few connections
// to one server (Chromium: 6), and a page kept for "back" with its stream
// open would hold one of them, so that after a few such pages the next
// one's requests wait. A page brought back from that cache starts again.
window.addEventListener("pagehide", () => { if (stream) stream.close(); });
window.addEventListener("pageshow", (ev) => { if (ev.persisted) location.reload(); });

// Follows /events with `query`; `on[type](data, id)` handles each event. When
// the browser gives up (a 503, a server gone for longer), it starts again a
// second later from the last event's id, so nothing is missed.
function follow(query, on) {
  let lastId = null;
  let timer = null;
  const open = () => {
    const q = new URLSearchParams(query);
    if (lastId !== null) q.set("after", lastId);
    const es = new EventSource(`/events?${q}`);
    stream = es;
    es.onopen = () => { mark.stream = "on"; showMark(); lookAtStore(); };
    es.onerror = () => {
      mark.stream = "off"; showMark();
      if (es.readyState === EventSource.CLOSED && stream === es) {
        clearTimeout(timer);
        timer = setTimeout(open, 1000);
      }
    };
    for (const [type, f] of Object.entries(on))
      es.addEventListener(type, (ev) => {
        if (ev.lastEventId) lastId = ev.lastEventId;
        if (mark.stream === "trouble") mark.stream = "on";
        f(JSON.parse(ev.data), ev.lastEventId);
        lookAtStore();
      });
    es.addEventListener("trouble", (ev) => {
      mark.stream = "trouble"; mark.trouble = JSON.parse(ev.data).error; showMark();
    });
  };
  open();
}

// ---- runs ---------------------------------------------------------------------

// A run's params as `soma runs` lists them: "lr=0.05, seed=7".
const paramsText = (params) => Object.entries(params || {}).map(([k, v]) => `${k}=${v}`).join(", ");

const runColumns = [
  ["run", (r) => runLink(r.run)],
  ["status", (r) => `<span class="status ${esc(r.status)}" title="${esc(r.how)}">${esc(r.status)}</span>`, "status"],
  ["forwards", (r) => num(r.forwards), "num forwards"],
  ["broke", (r) => num(r.broke), "num"],
  ["execs", (r) => num(r.executions), "num executions"],
  ["duration", (r) => (r.duration_us === null ? "–" : dur(r.duration_us)), "num duration"],
  ["took", (r) => dur(r.took_us), "num"],
  ["first", (r) => when(r.first)],
  ["last", (r) => `${when(r.last)} <span class="quiet">(${ago(r.last)})</span>`],
  ["params", (r) => esc(paramsText(r.params)), "params"],
  ["tags", (r) => esc((r.tags || []).join(", ")), "tags"],
];

// What `soma runs --sort` takes, beside the parameters' names.
const runSortKeys = ["first", "last", "run", "status", "forwards", "broke", "duration", "took"];
const runStatuses = ["running", "finished", "died", "unknown"];
// The address' parameters the runs page keeps (and /api/runs takes).
const runQueryNames = ["filter", "prefix", "status", "tag", "param", "where", "sort", "reverse"];

// "a, b,c" as ["a", "b", "c"].
const listOf = (text) => text.split(",").map((x) => x.trim()).filter(Boolean);

async function runsView() {
  const q = new URLSearchParams(location.search);
  const limit = Number(q.get("limit") || 50), offset = Number(q.get("offset") || 0);
  const query = new URLSearchParams();
  for (const name of runQueryNames)
    for (const v of q.getAll(name)) if (v !== "") query.append(name, v);
  const statuses = query.getAll("status"), sort = query.get("sort") || "";
  const reverse = query.get("reverse") === "1";
  const asked = runQueryNames.some((n) => query.has(n));
  main.innerHTML = `<h1>Runs</h1>
    <div class="controls" id="run-filters">
      <label title="soma runs PREFIX: runs whose name starts so">name starts <input id="prefix" value="${esc(query.get("prefix") || "")}" placeholder="lr."></label>
      <label>filter <input id="filter" value="${esc(query.get("filter") || "")}" placeholder="part of a run's name"></label>
      <span title="soma runs --status: runs that stand as any of these">status ${runStatuses.map((x) =>
        `<label><input type="checkbox" data-status="${x}" ${statuses.includes(x) ? "checked" : ""}> ${x}</label>`).join(" ")}</span>
      <label title="soma runs --tag: runs with every one of these tags (comma-separated)">tags <input id="tags" value="${esc(query.getAll("tag").join(", "))}" placeholder="baseline, short"></label>
      <label title="soma runs --param: NAME=VALUE (the same text or number) or NAME (any value), comma-separated; every one must hold">params <input id="params" value="${esc(query.getAll("param").join(", "))}" placeholder="lr=0.05, seed"></label>
      <label title="soma runs --where: KEY<NUMBER (<=, >, >=, =, !=) of a summarised value (loss: its last; min:loss, max:loss), comma-separated; every one must hold">values <input id="where" value="${esc(query.getAll("where").join(", "))}" placeholder="loss<0.2"></label>
      <label title="soma runs --sort">sort <select id="sort"><option value="" ${sort ? "" : "selected"}>most recent first</option>
        ${[...runSortKeys, ...(sort && !runSortKeys.includes(sort) ? [sort] : [])].map((k) => `<option value="${esc(k)}" ${k === sort ? "selected" : ""}>${esc(k)}</option>`).join("")}</select></label>
      <label title="soma runs --reverse: the order turned round"><input type="checkbox" id="reverse" ${reverse ? "checked" : ""}> reverse</label>
      <span id="total" class="quiet"></span></div>
    <div id="runs"></div><div class="pager" id="pager"></div>`;
  const sortBox = document.getElementById("sort");
  const order = sort ? `by ${sort}${reverse ? ", reversed" : ""}` : reverse ? "oldest first" : "most recent first";
  const show = (page) => {
    // The summarised values (their last, least and greatest) and the
    // parameters' names, to sort by one (soma runs --sort KEY).
    const values = page.value_names || [];
    for (const name of [...values.flatMap((v) => [v, `min:${v}`, `max:${v}`]), ...(page.param_names || [])])
      if (![...sortBox.options].some((o) => o.value === name))
        sortBox.insertAdjacentHTML("beforeend", `<option value="${esc(name)}">${esc(name)}</option>`);
    // A column for each summarised value: its last, as soma runs shows it.
    const columns = [...runColumns];
    columns.splice(columns.findIndex(([h]) => h === "params"), 0, ...values.map((v) =>
      [v, (r) => { const x = (r.values || {})[v]; return x && x.last !== null ? esc(String(x.last)) : "–"; },
        "num value", v]));
    document.getElementById("total").textContent =
      `${page.total} run${page.total === 1 ? "" : "s"}, ${order}`;
    document.getElementById("runs").innerHTML = page.runs.length
      ? table(columns, page.runs, (r) => `data-run="${esc(r.run)}" data-status="${esc(r.status)}" class="${r.broke ? "broke" : ""} ${r.status === "died" ? "died" : ""}"`)
      : `<p class="quiet">No run${asked ? " matches" : " yet: a recorder writes one per run"}.</p>`;
    const link = (o) => { const l = new URLSearchParams(query); l.set("limit", limit); l.set("offset", o); return `?${l}`; };
    document.getElementById("pager").innerHTML =
      (offset > 0 ? `<a href="${link(Math.max(0, offset - limit))}">${sort || reverse ? "back" : "newer"}</a>` : "") +
      (offset + limit < page.total ? `<a href="${link(offset + limit)}">${sort || reverse ? "on" : "older"}</a>` : "") +
      `<span class="quiet">${page.total ? `${offset + 1}–${Math.min(page.total, offset + limit)}` : ""}</span>`;
  };
  // Any filter changed: the address says the new view (a link to it shows
  // it, a reload keeps it), from its first page.
  document.getElementById("run-filters").addEventListener("change", () => {
    const n = new URLSearchParams();
    const text = (id) => document.getElementById(id).value.trim();
    if (text("prefix")) n.set("prefix", text("prefix"));
    if (text("filter")) n.set("filter", text("filter"));
    for (const box of document.querySelectorAll("input[data-status]:checked")) n.append("status", box.dataset.status);
    for (const t of listOf(text("tags"))) n.append("tag", t);
    for (const p of listOf(text("params"))) n.append("param", p);
    for (const w of listOf(text("where"))) n.append("where", w);
    if (sortBox.value) n.set("sort", sortBox.value);
    if (document.getElementById("reverse").checked) n.set("reverse", "1");
    n.set("limit", limit);
    location.search = n.toString();
  });
  const paged = new URLSearchParams(query);
  paged.set("limit", limit);
  paged.set("offset", offset);
  try { show(await get(`/api/runs?${paged}`)); } catch (e) {
    document.getElementById("runs").innerHTML = `<p class="error">${esc(e.message)}</p>`;
    return;
  }
  follow(paged, { runs: show });
}

// ---- a run ----------------------------------------------------------------------

const forwardColumns = (run) => [
  ["forward", (r) => `<a href="/run/${encodeURIComponent(run)}/forward/${r.forward}">${r.forward}</a>`, "num"],
  ["state", (r) => esc(r.state)],
  ["nodes", (r) => num(r.nodes), "num"],
  ["took", (r) => dur(r.took_us), "num"],
  ["told", (r) => Object.entries(r).filter(([k]) => k.includes("."))
    .map(([k, v]) => `${esc(k)}=${esc(v)}`).join(" ")],
  ["when", (r) => when(r.when)],
];

// soma critical's answer: the workers' clocks, each segment's share per
// host as a bar, the nodes most often on the path, and the what-if.
function criticalHtml(c) {
  if (!c.forwards) return `<p class="quiet">No forwards yet.</p>`;
  const sign = (us) => (us < 0 ? "−" : "+") + dur(Math.abs(us));
  const clocks = c.clocks.length ? table([
    ["host", (r) => esc(r.host)], ["offset", (r) => `${sign(r.offset_us)} ± ${dur(r.bound_us)}`, "num"],
    ["trips", (r) => num(r.trips), "num"], ["wire out", (r) => dur(r.wire_out_us), "num"]], c.clocks)
    : `<p class="quiet">No trip carried both clocks' stamps: every node ran here, or an older soma sent them.</p>`;
  const bar = (share) => `<span class="share-bar" style="display:inline-block;height:0.8em;background:#4878a8;width:${(100 * share).toFixed(1)}px"></span>`;
  const shares = table([
    ["host", (r) => esc(r.host)], ["segment", (r) => esc(r.segment)], ["took", (r) => dur(r.took_us), "num"],
    ["share", (r) => `${(100 * r.share).toFixed(1)}% ${bar(r.share)}`, "num"]], c.shares,
    (r) => `data-host="${esc(r.host)}" data-segment="${esc(r.segment)}"`);
  const nodes = table([
    ["node", (r) => esc(r.node)], ["host", (r) => esc(r.host)],
    ["on the path", (r) => `${num(r.forwards)} of ${num(c.forwards)}`, "num"], ["took there", (r) => dur(r.took_us), "num"]],
    c.nodes, (r) => `data-node="${esc(r.node)}"`);
  const w = c.slowest;
  const whatIf = !w ? "" : w.here === 0
    ? `<p id="what-if">The slowest remote node, ${esc(w.node)} at ${esc(w.host)} (mean ${dur(w.remote_mean_us)}), never ran here in these forwards: no local timings to say what it would cost here.</p>`
    : `<p id="what-if">Had ${esc(w.node)} run here instead of at ${esc(w.host)} (mean ${dur(w.remote_mean_us)} there, its trips ${dur(w.trip_mean_us)}; here ${dur(w.here_mean_us)} in ${num(w.here)} forwards), a forward's mean ${dur(w.took_mean_us)} would have been about ${dur(w.estimate_mean_us)} <span class="quiet">(an estimate: the rest of the path as it was)</span>.</p>`;
  return `<p class="quiet">Forwards ${c.first}..${c.last} (${num(c.forwards)}), ${dur(c.took_us)} in all.</p>
    <div class="row2"><div><h3>Workers' clocks</h3>${clocks}<h3>Nodes on the path</h3>${nodes}</div>
    <div><h3>Share per host</h3>${shares}</div></div>${whatIf}`;
}

// What a run was, as `soma runs` says it: its status and how that is
// known, its params, its tags, and the trial it was recorded for (linked to
// its study's page), with why that trial broke or was handed back.
function whatItWas(r) {
  const params = Object.entries(r.params || {});
  const parts = [`<span class="status ${esc(r.status)}" title="${esc(r.how)}">${esc(r.status)}</span>
    <span class="quiet" id="how">${esc(r.how)}</span>`];
  parts.push(`params <span id="run-params">${params.length
    ? params.map(([k, v]) => `<code data-param="${esc(k)}">${esc(k)}=${esc(String(v))}</code>`).join(" ")
    : "none"}</span>`);
  parts.push(`tags <span id="run-tags">${(r.tags || []).length
    ? r.tags.map((t) => `<code data-tag="${esc(t)}">${esc(t)}</code>`).join(" ") : "none"}</span>`);
  // Who wrote it: a program that recorded it again is a second execution,
  // and where each began says which forwards are whose.
  const began = (r.began || []).map((e, i) => `<span data-execution="${i + 1}" data-forward="${e.forward}">`
    + `#${i + 1} from forward ${e.forward}${e.host ? ` by ${esc(e.host)}${e.pid ? ` pid ${e.pid}` : ""}` : ""}`
    + `${e.began_us ? ` at ${when(e.began_us / 1e6)}` : ""}</span>`);
  parts.push(`executions <span id="executions" data-executions="${r.executions}">${r.executions}`
    + `${r.executions > 1 ? ` (${began.join("; ")})` : ""}</span>`);
  if (r.trial) {
    const t = r.trial, why = t.error ? `: ${t.error}` : "";
    parts.push(`trial <span id="trial" data-study="${esc(t.study)}" data-trial="${t.trial}" data-state="${esc(t.state)}">`
      + `<a href="/trials/${encodeURIComponent(t.study)}">${esc(t.study)} #${t.trial}</a> ${esc(t.state)}${esc(why)}</span>`);
  }
  return `<p id="what">${parts.join(" · ")}</p>`;
}

async function runView(run) {
  const base = `/api/run/${encodeURIComponent(run)}`;
  let info;
  try { info = await get(base); } catch (e) { failed(main, e); return; }
  const q = new URLSearchParams(location.search);
  const state = {
    fact: q.get("fact") || info.series[0] || info.told[0] || "loss",
    from: q.get("from"), to: q.get("to"), with: q.get("with") || "",
    window: q.get("window") || "", logY: q.get("log_y") === "1", xTime: q.get("x") === "time",
    total: info.run.forwards, page: null, points: [],
  };
  let known = []; // the store's runs, for "did you mean"
  const names = [...info.series, ...info.told];
  window.soma.loaded = info.run.forwards;
  main.innerHTML = `<h1>Run ${esc(run)}</h1>
    <p><span id="forwards-count" data-forwards="${info.run.forwards}">${info.run.forwards}</span> forwards,
      <span id="broke-count">${info.run.broke}</span> broke, took <span id="took">${dur(info.run.took_us)}</span>;
      first ${when(info.run.first)}, last <span id="last">${when(info.run.last)}</span>
      ${info.ended_us ? `<span class="quiet">(its recorder closed ${when(info.ended_us / 1e6)})</span>` : `<span class="quiet">(a recorder may still write)</span>`}
      · <a href="/trace?run=${encodeURIComponent(run)}&last=100">trace of the last 100 forwards</a></p>
    ${whatItWas(info.run)}
    <div class="controls">
      <label>series <select id="fact">${names.map((n) => `<option ${n === state.fact ? "selected" : ""}>${esc(n)}</option>`).join("")}${names.includes(state.fact) ? "" : `<option selected>${esc(state.fact)}</option>`}</select></label>
      <label>compare with <input id="with" list="runs-list" value="${esc(state.with)}" placeholder="other runs, comma-separated"></label>
      <span id="with-note" class="note" hidden></span>
      <datalist id="runs-list"></datalist>
      <button id="unzoom" ${state.from || state.to ? "" : "hidden"}>whole run</button>
    </div>
    <div class="controls">
      <label title="as soma plot --log-y: ticks at powers of ten; values of 0 or less cannot be drawn on it and are left out, the figure says how many"><input type="checkbox" id="log-y" ${state.logY ? "checked" : ""}> log y</label>
      <label title="as soma plot --x time: x is each forward's wall time, in seconds since the first value, rather than its number; this run alone (runs compared are drawn against the forward)"><input type="checkbox" id="x-time" ${state.xTime ? "checked" : ""}> x: wall time</label>
      <label title="as soma plot --window N: the bold line is the centred rolling mean over N values (odd, so each mean sits on the value at its centre), drawn where its window is full; empty: about 1/20 of the values">window <input id="window" type="number" min="1" step="2" value="${esc(state.window)}" placeholder="n/20"></label>
      <span id="window-note" class="note" hidden></span>
      <span class="quiet">drag across the curve to zoom; hover shows values</span>
    </div>
    <p class="quiet" id="log-note" ${state.logY ? "" : "hidden"}>log y axis: values of 0 or less are not drawn on it (the figure's subtitle says how many), as <code>soma plot --log-y</code>.</p>
    <div class="figure" id="curve"></div>
    <p class="downloads" id="downloads"></p>
    <h2>Spent per node and machines <span class="quiet">(last 1000 forwards)</span></h2>
    <div class="row2"><div class="figure" id="spent"></div><div class="figure" id="machines"></div></div>
    <div class="row2"><div><h2>Nodes</h2>
      <p class="controls"><label>node by node against <input id="nodes-with" list="runs-list" placeholder="another run"></label>
        <span id="nodes-with-links"></span></p>
      <div id="nodes"></div></div><div><h2>Hosts</h2><div id="hosts"></div></div></div>
    <h2>Where the time went <span class="quiet">(critical paths of the last 100 forwards, as soma critical)</span></h2>
    <div id="critical"></div>
    <h2>Forwards</h2><div class="pager" id="fpager"></div><div id="forwards"></div>`;

  const figure = document.getElementById("curve");
  // What the curve is asked with: the series, its range, and (figure) how
  // it is drawn and compared. The downloads ask the same.
  const asked = (drawn) => {
    const p = new URLSearchParams({ fact: state.fact });
    if (state.from !== null) p.set("from", state.from);
    if (state.to !== null) p.set("to", state.to);
    if (drawn && state.with) p.set("with", state.with);
    if (drawn && state.window) p.set("window", state.window);
    if (drawn && state.logY) p.set("log_y", "1");
    // Runs compared are drawn against the forward.
    if (drawn && state.xTime && !state.with) p.set("x", "time");
    return p;
  };
  const others = () => state.with.split(",").map((x) => x.trim()).filter((x) => x && x !== run);
  // A name in "compare with" the store has no run of, named beside the
  // input (the chart draws the others): the figure says which on its root.
  const sayUnknown = (unknown) => {
    const note = document.getElementById("with-note");
    note.hidden = !unknown.length;
    note.textContent = unknown.map((u) => {
      const near = known.filter((k) => k !== run && distance(u, k) <= 2).sort((a, b) => distance(u, a) - distance(u, b))[0];
      return `no run '${u}' in this store${near ? ` (did you mean '${near}'?)` : ""}`;
    }).join("; ") + (unknown.length ? (others().length > unknown.length ? "; the other runs are drawn" : "; this run is drawn alone") : "");
    note.dataset.unknown = unknown.join(",");
  };
  const showDownloads = (unknown) => {
    const name = (r) => `${r}-${state.fact}${state.from !== null || state.to !== null ? `-${state.from ?? 0}-${state.to ?? "end"}` : ""}`;
    const series = (r) => {
      const at = `/api/run/${encodeURIComponent(r)}/curve`;
      return `<span data-run="${esc(r)}">${esc(r)}: <a data-download="csv" download="${esc(name(r))}.csv" href="${at}.csv?${asked(false)}">CSV</a>
        <a data-download="json" download="${esc(name(r))}.json" href="${at}?${asked(false)}">JSON</a></span>`;
    };
    const runs = [run, ...others().filter((r) => !unknown.includes(r))];
    document.getElementById("downloads").innerHTML = `download the series shown: ${runs.map(series).join(" · ")}
      · the figure: <a data-download="svg" download="${esc(name(run))}.svg" href="${base}/curve.svg?${asked(true)}">SVG</a>
      <a data-download="png" download="${esc(name(run))}.png" href="${base}/curve.png?${asked(true)}">PNG</a>`;
  };
  let lastUnknown = [];
  let drawing = 0; // only the latest drawing asked for is shown
  const drawCurve = async () => {
    const mine = ++drawing;
    const p = asked(true);
    try {
      const svg = await get(`${base}/curve.svg?${p}`, "text");
      if (mine !== drawing) return;
      figure.innerHTML = svg;
      const unknown = (figure.querySelector("svg")?.dataset.unknown || "").split(",").filter(Boolean);
      lastUnknown = unknown;
      sayUnknown(unknown);
      showDownloads(unknown);
      nodesWith(unknown);
      document.getElementById("log-note").hidden = !state.logY;
      // The points to hover over come on the figure (data-points); a
      // comparison has none of its own: hover reads this run's curve.
      const drawn = figure.querySelector("svg");
      state.points = drawn && drawn.dataset.points
        ? drawn.dataset.points.split(";").filter(Boolean).map((x) => {
            // "forward value", and on a time axis its x (seconds) third.
            const [f, v, at] = x.split(" ");
            return { forward: Number(f), value: Number(v), x: at === undefined ? Number(f) : Number(at) };
          })
        : (await get(`${base}/curve?${new URLSearchParams({ fact: state.fact, points: 2000, ...(state.from !== null ? { from: state.from } : {}), ...(state.to !== null ? { to: state.to } : {}) })}`)).points
            .map((p) => ({ ...p, x: p.forward }));
    } catch (e) { if (mine === drawing) failed(figure, e); }
    document.getElementById("unzoom").hidden = state.from === null && state.to === null;
  };
  const redrawCurve = throttle(drawCurve, 1000);
  const remember = () => history.replaceState(null, "", `?${asked(true)}`);
  const nodesWith = (unknown = []) => {
    document.getElementById("nodes-with-links").innerHTML = others().filter((r) => !unknown.includes(r)).map((r) =>
      `<a href="/run/${encodeURIComponent(run)}/compare/${encodeURIComponent(r)}">against ${esc(r)}</a>`).join(" ");
  };
  document.getElementById("fact").addEventListener("change", (e) => { state.fact = e.target.value; remember(); drawCurve(); });
  document.getElementById("with").addEventListener("change", (e) => { state.with = e.target.value.trim(); remember(); drawCurve(); });
  document.getElementById("log-y").addEventListener("change", (e) => { state.logY = e.target.checked; remember(); drawCurve(); });
  document.getElementById("x-time").addEventListener("change", (e) => { state.xTime = e.target.checked; remember(); drawCurve(); });
  document.getElementById("window").addEventListener("change", (e) => {
    const text = e.target.value.trim(), n = Number(text);
    const note = document.getElementById("window-note");
    // As soma plot --window: an odd whole number, so each mean is centred.
    const bad = text !== "" && !(Number.isInteger(n) && n >= 1 && n % 2 === 1);
    note.hidden = !bad;
    note.textContent = bad ? `the window is an odd number of values, so that each mean is centred on one (as soma plot --window); ${text} is not` : "";
    if (bad) return;
    state.window = text;
    remember();
    drawCurve();
  });
  document.getElementById("nodes-with").addEventListener("change", (e) => {
    const other = e.target.value.trim();
    if (other) location.href = `/run/${encodeURIComponent(run)}/compare/${encodeURIComponent(other)}`;
  });
  document.getElementById("unzoom").addEventListener("click", () => { state.from = state.to = null; remember(); drawCurve(); });
  hoverAndZoom(figure, state, () => { remember(); drawCurve(); });

  get("/api/runs?limit=1000").then((r) => {
    known = r.runs.map((x) => x.run);
    if (lastUnknown.length) sayUnknown(lastUnknown);
    document.getElementById("runs-list").innerHTML = r.runs.filter((x) => x.run !== run)
      .map((x) => `<option value="${esc(x.run)}">`).join("");
  }).catch(() => {});
  const side = () => {
    get(`${base}/spent.svg`, "text").then((s) => { document.getElementById("spent").innerHTML = s; })
      .catch((e) => failed(document.getElementById("spent"), e));
    get(`${base}/machines.svg`, "text").then((s) => { document.getElementById("machines").innerHTML = s; })
      .catch((e) => failed(document.getElementById("machines"), e));
    get(`${base}/nodes`).then((n) => {
      document.getElementById("nodes").innerHTML = table([
        ["node", (r) => esc(r.node)], ["ran", (r) => num(r.ran), "num"], ["recalled", (r) => num(r.recalled), "num"],
        ["failed", (r) => num(r.failed), "num"], ["took", (r) => dur(r.took_us), "num"],
        ["mean", (r) => dur(r.mean_us), "num"], ["hosts", (r) => esc(r.hosts.join(", "))]], n.nodes);
    }).catch((e) => failed(document.getElementById("nodes"), e));
    get(`${base}/critical`).then((c) => {
      document.getElementById("critical").innerHTML = criticalHtml(c);
    }).catch((e) => failed(document.getElementById("critical"), e));
    get(`${base}/fleet`).then((f) => {
      document.getElementById("hosts").innerHTML = f.hosts.length ? table(fleetColumns, f.hosts)
        : `<p class="quiet">Every node ran here: no host served this run.</p>`;
    }).catch((e) => failed(document.getElementById("hosts"), e));
  };
  const redrawSide = throttle(side, 5000);

  // Forwards, paged; the last page follows the run as it grows.
  const showForwards = async (offset) => {
    try {
      const page = await get(`${base}/forwards?offset=${offset}&limit=100`);
      state.page = page;
      // The header's count and this table's total are one number: a page
      // read after the header was drawn may know of more forwards.
      state.total = Math.max(state.total || 0, page.total);
      const shown = document.getElementById("forwards-count");
      if (Number(shown.dataset.forwards) < state.total) {
        shown.textContent = state.total;
        shown.dataset.forwards = state.total;
      }
      document.getElementById("forwards").innerHTML = table(forwardColumns(run), page.forwards,
        (r) => `data-forward="${r.forward}" class="${r.state === "broke" ? "broke" : ""}"`);
      const last = page.offset + page.forwards.length;
      document.getElementById("fpager").innerHTML =
        (page.offset > 0 ? `<a href="#" data-to="${Math.max(0, page.offset - 100)}">earlier</a>` : "") +
        (last < page.total ? `<a href="#" data-to="${last}">later</a> <a href="#" data-to="-100">latest</a>` : "") +
        `<span class="quiet">${page.forwards.length ? `${page.offset}–${last - 1} of ${page.total}` : "none yet"}</span>`;
      for (const a of document.querySelectorAll("#fpager a"))
        a.addEventListener("click", (e) => { e.preventDefault(); showForwards(Number(a.dataset.to)); });
    } catch (e) { failed(document.getElementById("forwards"), e); }
  };

  const count = document.getElementById("forwards-count");
  const setTotal = (n) => { state.total = n; count.textContent = n; count.dataset.forwards = n; };
  drawCurve();
  side();
  await showForwards(-100);
  // From what the page loaded with: the forwards table may have read more
  // since, and the stream sends those too (the table takes each once).
  follow({ run, after: info.run.forwards - 1 }, {
    forward: (r) => {
      window.soma.seen.push(r.forward);
      setTotal(Math.max(state.total, r.total));
      if (r.state === "broke") {
        const b = document.getElementById("broke-count");
        b.textContent = Number(b.textContent) + 1;
      }
      document.getElementById("last").textContent = when(r.when);
      const page = state.page;
      if (page && page.offset + page.forwards.length === r.forward && page.forwards.length < 100) {
        page.forwards.push(r);
        const body = document.querySelector("#forwards tbody");
        if (body) body.insertAdjacentHTML("beforeend", table(forwardColumns(run), [r],
          (x) => `data-forward="${x.forward}" class="${x.state === "broke" ? "broke" : ""}"`)
          .replace(/^.*<tbody>|<\/tbody>.*$/g, ""));
      }
      if (state.to === null) redrawCurve();
      redrawSide();
    },
  });
}

// Hover: the point nearest the pointer along x (its forward, or on a time
// axis its seconds). Drag: zoom to the forwards in that range.
function hoverAndZoom(figure, state, zoomed) {
  let band = null, start = null;
  const frame = () => {
    const svg = figure.querySelector("svg");
    if (!svg || !svg.dataset.area) return null;
    const [l, t, r, b] = svg.dataset.area.split(" ").map(Number);
    const [x0, x1] = svg.dataset.x.split(" ").map(Number);
    const box = svg.getBoundingClientRect();
    const scale = box.width / svg.viewBox.baseVal.width;
    return { svg, box, l, r, x0, x1, scale,
      xAt: (clientX) => x0 + ((clientX - box.left) / scale - l) / (r - l) * (x1 - x0) };
  };
  figure.addEventListener("mousemove", (e) => {
    const f = frame();
    if (!f || !state.points.length) return;
    const x = f.xAt(e.clientX);
    let best = state.points[0];
    for (const p of state.points) if (Math.abs(p.x - x) < Math.abs(best.x - x)) best = p;
    tip.hidden = false;
    tip.style.left = `${e.clientX + 12}px`;
    tip.style.top = `${e.clientY + 12}px`;
    tip.textContent = `forward ${best.forward}${best.x !== best.forward ? ` (${best.x} s)` : ""}: ${state.fact} = ${best.value}`;
    if (band && start !== null) {
      const a = Math.min(start, e.clientX), b = Math.max(start, e.clientX);
      band.style.left = `${a - f.box.left}px`;
      band.style.width = `${b - a}px`;
    }
  });
  figure.addEventListener("mouseleave", () => { tip.hidden = true; });
  figure.addEventListener("mousedown", (e) => {
    if (!frame()) return;
    start = e.clientX;
    band = document.createElement("div");
    band.className = "band";
    figure.appendChild(band);
  });
  window.addEventListener("mouseup", (e) => {
    if (start === null) return;
    const f = frame();
    const a = Math.min(start, e.clientX), b = Math.max(start, e.clientX);
    start = null;
    if (band) band.remove();
    band = null;
    if (!f || b - a < 4) return;
    // The forwards across the band; on a time axis, those of the points in it.
    const xa = f.xAt(a), xb = f.xAt(b);
    let lo = Math.max(0, Math.floor(xa)), hi = Math.ceil(xb);
    if (state.xTime && !state.with) {
      const inside = state.points.filter((p) => p.x >= xa && p.x <= xb).map((p) => p.forward);
      if (!inside.length) return;
      lo = Math.min(...inside);
      hi = Math.max(...inside);
    }
    if (hi <= lo) return;
    state.from = lo;
    state.to = hi;
    zoomed();
  });
}

// ---- two runs, node by node ----------------------------------------------------------

// Per node: mean and total time, ran, recalled, failed in run A and run B,
// and B - A (soma compare A B). Each cell carries its number (data-value)
// as the API answered it.
async function compareView(a, b) {
  let c;
  try { c = await get(`/api/run/${encodeURIComponent(a)}/compare/${encodeURIComponent(b)}`); } catch (e) { failed(main, e); return; }
  fixedMark("as recorded");
  const measures = [["mean", "mean_us", true], ["took", "took_us", true], ["ran", "ran"], ["recalled", "recalled"], ["failed", "failed"]];
  const cell = (v, time, signed) => {
    if (v === null || v === undefined) return `<span data-value="">–</span>`;
    const text = time ? dur(v) : String(v);
    return `<span data-value="${v}">${signed && v > 0 ? "+" : ""}${esc(text)}</span>`;
  };
  const columns = [["node", (r) => esc(r.node)]];
  for (const [name, key, time] of measures)
    columns.push([`${name} A`, (r) => cell(r.a && r.a[key], time), "num"],
                 [`${name} B`, (r) => cell(r.b && r.b[key], time), "num"],
                 [`${name} B − A`, (r) => cell(r.difference[key], time, true), "num diff"]);
  // #params: the runs' parameters side by side (the API's "params": a row
  // per parameter, its value in A and in B).
  main.innerHTML = `<h1>${runLink(a)} against ${runLink(b)}, node by node</h1>
    <p class="quiet">A is ${esc(a)}, B is ${esc(b)}; each over every forward it recorded (<code>soma compare ${esc(a)} ${esc(b)}</code>, <code>soma nodes</code> of each).
      · <a href="/run/${encodeURIComponent(a)}?with=${encodeURIComponent(b)}">their curves on one chart</a>
      · <a href="/run/${encodeURIComponent(b)}/compare/${encodeURIComponent(a)}">the other way round</a></p>
    <h2>Parameters</h2>
    <div id="params">${c.params.length
      ? table(Object.keys(c.params[0]).map((k) => [k, (r) => esc(r[k] ?? "–")]), c.params)
      : `<p class="quiet">Neither run carries parameters in this store: nothing to set side by side.</p>`}</div>
    <h2>Nodes</h2>
    ${c.nodes.length ? table(columns, c.nodes, (r) => `data-node="${esc(r.node)}"`)
      : `<p class="quiet">No node ran in either run.</p>`}`;
}

// ---- a forward --------------------------------------------------------------------

async function forwardView(run, n) {
  let f;
  try { f = await get(`/api/run/${encodeURIComponent(run)}/forward/${n}`); } catch (e) { failed(main, e); return; }
  const r = f.record;
  fixedMark("a forward, as recorded");
  main.innerHTML = `<h1>Forward ${r.forward} of ${runLink(run)}</h1>
    <p>${esc(r.state)}, ${r.nodes} nodes, took ${dur(r.took_us)}, at ${when(r.when)} ·
      <a href="/run/${encodeURIComponent(run)}/forward/${n > 0 ? n - 1 : 0}">previous</a> ·
      <a href="/run/${encodeURIComponent(run)}/forward/${Number(n) + 1}">next</a> ·
      <a href="/trace?run=${encodeURIComponent(run)}&forward=${n}">its trace (Perfetto)</a></p>
    <h2>Timeline</h2><div id="timeline"></div>
    <h2>Facts, in the order told</h2>
    ${table([["#", (x) => x.i, "num"], ["fact", (x) => esc(x.fact)],
             ["fields", (x) => Object.entries(x).filter(([k]) => k !== "fact" && k !== "i")
               .map(([k, v]) => `${esc(k)}=${esc(v)}`).join(" ")]],
            f.facts.map((x, i) => ({ i, ...x })), (x) => `data-fact="${esc(x.fact)}"`)}`;
  document.getElementById("timeline").innerHTML = timeline(f.facts, r.took_us, f.placed || {});
}

// The forward's spans per host, as the trace lays them out: a worker's
// spans where the server placed them on this machine's clock (`placed`, by
// the worker's offset from the forward's trips: soma critical), else at its
// trip's start plus their own began_us; inside the trip either way.
function timeline(facts, took, placed) {
  const spans = [];
  const pending = [];
  for (const [i, x] of facts.entries()) {
    const b = Number(x.began_us), t = Number(x.took_us);
    if (["ran", "failed", "kept", "recalled"].includes(x.fact) && !Number.isNaN(b)) {
      const s = { host: x.host || "here", name: String(x.node ?? "?"), fact: x.fact, b, t: x.fact === "recalled" ? 0 : t, at: placed[i] };
      (x.host ? pending : spans).push(s);
    } else if (x.fact === "left") {
      spans.push({ host: "here", name: `trip to ${x.host}`, fact: "left", b, t });
      for (let i = pending.length - 1; i >= 0; --i)
        if (pending[i].host === x.host) {
          const s = pending.splice(i, 1)[0];
          if (s.at) { s.b = Number(s.at.began_us); s.t = s.fact === "recalled" ? 0 : Number(s.at.took_us); }
          s.b = Math.max(b, Math.min(s.at ? s.b : b + s.b, b + t));
          s.t = Math.min(s.t, b + t - s.b);
          spans.push(s);
        }
    }
  }
  spans.push(...pending);
  if (!spans.length) return `<p class="quiet">No node ran in this forward.</p>`;
  // Lanes per host, so spans at once do not overlap.
  const lanes = [];
  const laneOf = new Map();
  for (const s of spans.sort((a, b) => a.b - b.b || b.t - a.t)) {
    let k = lanes.findIndex((l) => l.host === s.host && l.end <= s.b);
    if (k < 0) { lanes.push({ host: s.host, end: 0, n: lanes.filter((l) => l.host === s.host).length + 1 }); k = lanes.length - 1; }
    lanes[k].end = s.b + s.t;
    laneOf.set(s, k);
  }
  const order = [...lanes.keys()].sort((a, b) => (lanes[a].host === "here" ? 0 : 1) - (lanes[b].host === "here" ? 0 : 1) || lanes[a].host.localeCompare(lanes[b].host) || a - b);
  const rowOf = new Map(order.map((k, i) => [k, i]));
  const end = Math.max(took || 0, ...spans.map((s) => s.b + s.t)) || 1;
  const W = 900, L = 150, H = 22;
  const x = (us) => L + (us / end) * (W - L - 10);
  const colour = { ran: "#1a9988", failed: "#b3541e", kept: "#7a55a8", left: "#f28c26", recalled: "#0d408f" };
  let svg = `<svg class="timeline" width="${W}" height="${order.length * H + 30}" viewBox="0 0 ${W} ${order.length * H + 30}">`;
  order.forEach((k, i) => {
    const l = lanes[k];
    svg += `<text x="8" y="${i * H + 16}" font-size="12">${esc(l.host)}${l.n > 1 ? ` · ${l.n}` : ""}</text>`;
  });
  for (const s of spans) {
    const row = rowOf.get(laneOf.get(s));
    const title = `${s.name} (${s.fact}): began ${dur(s.b)}, took ${dur(s.t)}`;
    if (s.fact === "recalled")
      svg += `<path d="M${x(s.b)} ${row * H + 4} l5 7 l-5 7 l-5 -7 z" fill="${colour.recalled}"><title>${esc(title)}</title></path>`;
    else {
      const w = Math.max(1, x(s.b + s.t) - x(s.b));
      svg += `<rect x="${x(s.b)}" y="${row * H + 3}" width="${w}" height="${H - 6}" fill="${colour[s.fact]}" opacity="0.85"><title>${esc(title)}</title></rect>`;
      if (w >= 7 * s.name.length + 10) // named where the span has room for it
        svg += `<text x="${x(s.b) + 5}" y="${row * H + 15}" font-size="11" fill="#fff" pointer-events="none">${esc(s.name)}</text>`;
    }
  }
  svg += `<text x="${L}" y="${order.length * H + 22}" font-size="11" fill="#73737f">0</text>` +
         `<text x="${W - 10}" y="${order.length * H + 22}" font-size="11" fill="#73737f" text-anchor="end">${esc(dur(end))}</text></svg>`;
  return svg;
}

// ---- the fleet --------------------------------------------------------------------

const fleetColumns = [
  ["host", (r) => esc(r.host)], ["machine", (r) => esc(r.machine || "–")], ["slices", (r) => num(r.slices), "num"],
  ["took", (r) => dur(r.took_us), "num"], ["waiting", (r) => dur(r.waiting_us), "num"],
  ["busy", (r) => num(r.busy), "num"], ["served", (r) => num(r.served), "num"], ["quiet_s", (r) => num(r.quiet_s, 1), "num"],
  ["state", (r) => machineState(r.state)],
];

// A machine's state (soma standing's): a badge when it is quiet.
function machineState(state) {
  if (!state) return "–";
  return `<span class="machine ${esc(state)}" title="${state === "quiet"
    ? "its latest reading is more than 3 of its reporting intervals behind the newest (or, when every machine is silent, behind this server's clock): stopped, killed or cut off"
    : "its latest reading is within 3 of its reporting intervals"}">${esc(state)}</span>`;
}

const machineColumns = [
  ["machine", (r) => esc(r.id)], ["busy", (r) => num(r.busy), "num"], ["memory", (r) => num(r.memory), "num"],
  ["cores", (r) => num(r.cores), "num"], ["up", (r) => dur(r.up_us), "num"], ["served", (r) => num(r.served), "num"],
  ["claims", (r) => esc(r.claims || "–")], ["trials", (r) => r.claims ? num(r.trials) : "–", "num"],
  ["reading", (r) => when(r.when_us / 1e6)], ["quiet_s", (r) => num(r.quiet_s, 1), "num quiet"],
  ["state", (r) => machineState(r.state)],
  ["listens", (r) => esc(r.listens || "–")],
  ["serves", (r) => esc([...(r.serves || []), ...(r.serves_store ? ["store:" + r.serves_store] : [])].join(", ") || "–")],
];

async function fleetView() {
  main.innerHTML = `<h1>Fleet</h1>
    <p class="quiet">Each machine's latest reading. quiet_s: how far its latest reading is behind the newest of any machine (writer against writer, no clock of this page's). state, an opinion: quiet past 3 of the machine's reporting intervals behind the newest reading, or behind the server's clock when every machine is silent.</p>
    <div id="machines"></div>`;
  const show = (page) => {
    document.getElementById("machines").innerHTML = page.machines.length
      ? table(machineColumns, page.machines, (r) => `data-machine="${esc(r.id)}" data-state="${esc(r.state)}" class="${r.state === "quiet" ? "quiet-machine" : ""}"`)
      : `<p class="quiet">No machine has written readings into this store; a worker started with <code>soma-node --store DIR --reporting SECONDS</code> writes one on that clock.</p>`;
  };
  try { show(await get("/api/fleet")); } catch (e) { failed(main, e); return; }
  follow({}, { fleet: show });
}

// ---- trials -----------------------------------------------------------------------

async function trialsView(study) {
  if (!study) {
    main.innerHTML = `<h1>Studies</h1><div id="studies"></div>`;
    const show = (page) => {
      document.getElementById("studies").innerHTML = page.studies.length ? table([
        ["study", (r) => `<a href="/trials/${encodeURIComponent(r.study)}">${esc(r.study)}</a>`],
        ["trials", (r) => num(r.trials), "num"], ["waiting", (r) => num(r.waiting), "num"],
        ["claimed", (r) => num(r.claimed), "num"], ["done", (r) => num(r.done), "num"],
        ["broke", (r) => num(r.broke), "num"], ["abandoned", (r) => num(r.abandoned), "num"],
        ["function", (r) => esc(r.function || "–")], ["created", (r) => when(r.created_us / 1e6)]], page.studies,
        (r) => `data-study="${esc(r.study)}"`)
        : `<p class="quiet">No study yet; soma::add_trials makes one (docs/trials.md).</p>`;
    };
    const load = async () => show(await get("/api/trials"));
    try { await load(); } catch (e) { failed(main, e); return; }
    follow({}, { fleet: throttle(() => load().catch(() => {}), 2000) });
    return;
  }
  main.innerHTML = `<h1>Study ${esc(study)}</h1>
    <div class="figure" id="study-figure"></div>
    <p class="quiet">click a column's name to sort by it, again to turn the order round</p><div id="trials"></div>`;
  // As soma plot study draws it: the result against the study's parameter.
  get(`/api/trials/${encodeURIComponent(study)}/figure.svg`, "text")
    .then((svg) => { document.getElementById("study-figure").innerHTML = svg; })
    .catch((e) => { document.getElementById("study-figure").innerHTML = `<p class="quiet">${esc(e.message)}</p>`; });
  // A trial's numbers at 6 significant digits (--json keeps them whole).
  const six = (v) => (typeof v === "number" && !Number.isInteger(v) ? String(Number(v.toPrecision(6))) : String(v));
  const named = (o) => Object.entries(o).map(([k, v]) => `${k}=${six(v)}`).join(" ");
  // What each column sorts by: a number where it holds one, else its text.
  const first = (o) => { const v = Object.values(o)[0]; return v === undefined ? null : v; };
  const columns = [
    ["trial", (r) => num(r.trial), "num", (r) => r.trial], ["state", (r) => esc(r.state), "", (r) => r.state],
    ["attempt", (r) => num(r.attempt), "num", (r) => r.attempt],
    ["claimant", (r) => esc(r.claimant || "–"), "", (r) => r.claimant || ""],
    ["quiet_s", (r) => num(r.quiet_s, 1), "num", (r) => r.quiet_s],
    ["run", (r) => r.run ? runLink(r.run) : "–", "", (r) => r.run || ""],
    ["params", (r) => esc(named(r.params)), "params", (r) => first(r.params)],
    ["result", (r) => esc(named(r.result) || "–"), "result", (r) => first(r.result)],
    ["error", (r) => esc(r.error || ""), "prose", (r) => r.error || ""],
    ["abandoned", (r) => num(r.abandoned.length), "num", (r) => r.abandoned.length]];
  const order = { by: null, down: false };
  let last = null;
  const compare = (key) => (a, b) => {
    const x = key(a), y = key(b);
    if (x === y) return a.trial - b.trial;
    if (x === null || x === undefined) return 1; // none: last, whichever way
    if (y === null || y === undefined) return -1;
    const less = typeof x === "number" && typeof y === "number" ? x < y : String(x) < String(y);
    return (less ? -1 : 1) * (order.down ? -1 : 1);
  };
  const show = (page) => {
    last = page;
    const rows = [...page.trials];
    const sorting = columns.find(([h]) => h === order.by);
    if (sorting) rows.sort(compare(sorting[3]));
    document.getElementById("trials").innerHTML = table(columns.map(([h, f, k]) => [h, f, k]), rows,
      (r) => `data-trial="${r.trial}"`);
    for (const th of document.querySelectorAll("#trials th")) {
      th.style.cursor = "pointer";
      if (th.textContent === order.by) th.dataset.sorted = order.down ? "down" : "up";
      th.addEventListener("click", () => {
        order.down = order.by === th.textContent ? !order.down : false;
        order.by = th.textContent;
        show(last);
      });
    }
  };
  const load = async () => show(await get(`/api/trials/${encodeURIComponent(study)}`));
  try { await load(); } catch (e) { failed(main, e); return; }
  follow({}, { fleet: throttle(() => load().catch(() => {}), 2000) });
}

// ---- health: opinions, said to be ----------------------------------------------------

const replayWindows = [[600, "the last 10 minutes"], [3600, "the last hour"], [21600, "the last 6 hours"], [86400, "the last day"]];

async function healthView() {
  main.innerHTML = `<h1>Health <small class="quiet">opinions, not facts</small></h1>
    <p class="opinion" id="note"></p><div id="opinions"></div>
    <h2>Replayed <select id="replay-window">${replayWindows.map(([s, name]) =>
      `<option value="${s}"${s === 3600 ? " selected" : ""}>${name}</option>`).join("")}</select></h2>
    <p class="quiet" id="replay-note"></p><div id="replay"></div>`;
  const show = (page) => {
    document.getElementById("note").textContent = `${page.note}. Judged as of ${when(page.now_us / 1e6)}, over ${page.machines} machines, ${page.runs} runs and ${page.trials} trials.`;
    document.getElementById("opinions").innerHTML = page.opinions.length ? table([
      ["opinion", (r) => esc(r.opinion)], ["rule", (r) => esc(r.rule)], ["subject", (r) => esc(r.subject)],
      ["measured", (r) => esc(r.measure)], ["value", (r) => num(r.value), "num"], ["threshold", (r) => num(r.threshold), "num"],
      ["threshold set as", (r) => esc(r.threshold_is)], ["for", (r) => `${num(r.for_s, 1)} s`, "num"],
      ["says", (r) => esc(r.says), "prose"]], page.opinions, (r) => `data-rule="${esc(r.rule)}" class="${r.opinion === "firing" ? "broke" : ""}"`)
      : `<p class="quiet">No rule holds an opinion about this store now.</p>`;
  };
  const pick = document.getElementById("replay-window");
  const load = async () => show(await get("/api/health"));
  // The window ends at the newest write (the API's default): a step a
  // second, or one of 3,600 over a longer window.
  const loadReplay = async () => {
    const span = Number(pick.value);
    const every = Math.max(1000, Math.round(span * 1000 / 3600));
    const page = await get(`/api/health/replay?span_s=${span}&every_ms=${every}`);
    document.getElementById("replay-note").textContent = `${page.note}. ${page.steps} steps from ${when(page.from_us / 1e6)} to ${when(page.last_us / 1e6)}, one every ${num(page.every_us / 1e6, 1)} s: ${page.episodes.length} episodes.`;
    document.getElementById("replay").innerHTML = episodeTimeline(page);
  };
  pick.addEventListener("change", () => loadReplay().catch((e) => failed(document.getElementById("replay"), e)));
  try { await load(); await loadReplay(); } catch (e) { failed(main, e); return; }
  const again = throttle(() => loadReplay().catch(() => {}), 5000);
  follow({}, { fleet: throttle(() => { load().catch(() => {}); again(); }, 2000) });
}

// A replay's episodes as bars, a row per rule and subject: pending, then
// firing, from the step each began to the step it cleared (or the window's end).
function episodeTimeline(page) {
  if (!page.episodes.length) return `<p class="quiet">No rule held an opinion at any step of the window.</p>`;
  const rows = [];
  const rowOf = new Map();
  for (const ep of page.episodes) {
    const key = `${ep.rule} ${ep.subject}`;
    if (!rowOf.has(key)) { rowOf.set(key, rows.length); rows.push(ep); }
  }
  // Drawn from a little before the first episode began, when that is later
  // than the window's start: a few seconds of trouble in an hour stay visible.
  const end = page.last_us + page.every_us;
  const first = Math.min(...page.episodes.map((ep) => ep.pending_us));
  const from = Math.max(page.from_us, first - Math.max(10 * page.every_us, (end - first) / 4));
  const W = 900, L = 320, H = 22;
  const x = (us) => L + ((us - from) / (end - from)) * (W - L - 10);
  let svg = `<svg class="episodes" width="${W}" height="${rows.length * H + 30}" viewBox="0 0 ${W} ${rows.length * H + 30}">`;
  rows.forEach((ep, i) => {
    svg += `<text x="8" y="${i * H + 16}" font-size="12">${esc(ep.rule)} · ${esc(ep.subject)}</text>`;
  });
  const bar = (ep, kind, a, b, title) => {
    const row = rowOf.get(`${ep.rule} ${ep.subject}`);
    return `<rect class="${kind}" data-rule="${esc(ep.rule)}" data-subject="${esc(ep.subject)}" x="${x(a)}" y="${row * H + 3}" width="${Math.max(1, x(b) - x(a))}" height="${H - 6}"><title>${esc(title)}</title></rect>`;
  };
  for (const ep of page.episodes) {
    const stop = ep.cleared_us ?? end;
    const cleared = ep.cleared_us === null ? "still at the window's end" : `cleared ${when(ep.cleared_us / 1e6)} (last ${num(ep.last_value)})`;
    const says = `${ep.rule} about ${ep.subject}: pending ${when(ep.pending_us / 1e6)} (${ep.measure} ${num(ep.pending_value)} over ${num(ep.threshold)})` +
                 (ep.firing_us === null ? ", never fired" : `, firing ${when(ep.firing_us / 1e6)} (${num(ep.firing_value)})`) + `, ${cleared}`;
    svg += bar(ep, "pending", ep.pending_us, ep.firing_us ?? stop, says);
    if (ep.firing_us !== null) svg += bar(ep, "firing", ep.firing_us, stop, says);
  }
  svg += `<text x="${L}" y="${rows.length * H + 22}" font-size="11" fill="#73737f">${esc(when(from / 1e6))}</text>` +
         `<text x="${W - 10}" y="${rows.length * H + 22}" font-size="11" fill="#73737f" text-anchor="end">${esc(when(end / 1e6))}</text></svg>`;
  return svg;
}

// ---- routing ------------------------------------------------------------------------

function route() {
  const path = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const here = path[0] === "run" || !path.length ? "runs" : path[0];
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("here", a.dataset.nav === here);
  document.title = path.length ? `soma · ${path.join(" · ")}` : "soma · runs";
  if (!path.length) return runsView();
  if (path[0] === "run" && path.length === 2) return runView(path[1]);
  if (path[0] === "run" && path[2] === "forward") return forwardView(path[1], path[3]);
  if (path[0] === "run" && path[2] === "compare") return compareView(path[1], path[3]);
  if (path[0] === "fleet") return fleetView();
  if (path[0] === "trials") return trialsView(path[1]);
  if (path[0] === "health") return healthView();
  main.innerHTML = `<p class="error">No page at ${esc(location.pathname)}.</p>`;
}

route();
