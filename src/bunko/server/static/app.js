// bunko web page: ask with a streamed, cited answer, keeping the conversation so a follow-up is read with the turns
// before it; open a citation in its document; a document's sections as an outline (pages, summaries); upload and
// watch jobs; figures a citation holds shown inline, and the cited PDF page with the cited region highlighted;
// browse the entity graph (top entities, an entity's neighbours and passages with the mention highlighted).
// Plain DOM, no build step. Untrusted text (answers, documents, file names) only ever goes into textContent.
"use strict";

const $ = (selector) => document.querySelector(selector);
const state = {
  collection: null, key: sessionStorage.getItem("bunko-key") || "", me: null, answer: null, polling: null, graphLoaded: null,
  docId: null, sectionsLoaded: null, conversation: [],
};
const HISTORY_TURNS = 10; // the last turns sent with a question: enough for a follow-up, bounded for the request
const TERMINAL = new Set(["READY", "SKIPPED", "FAILED"]);
const LANG = { ja: "ja", zh: "zh-Hans", en: "en" };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function headers(extra = {}) {
  return state.key ? { ...extra, Authorization: `Bearer ${state.key}` } : extra;
}

function base() {
  return `/api/collections/${encodeURIComponent(state.collection)}`;
}

async function api(path, options = {}) {
  const response = await fetch(base() + path, { ...options, headers: headers(options.headers || {}) });
  const body = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
  if (!response.ok) {
    const error = new Error(body?.error?.message || `${response.status} ${response.statusText}`);
    error.status = response.status;
    error.body = body;
    throw error;
  }
  return body;
}

// Pictures need the key too, which an <img src> cannot send: fetched, then shown from a blob URL.
async function loadImage(path, img) {
  const response = await fetch(base() + path, { headers: headers() });
  if (!response.ok) {
    const body = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
    const error = new Error(body?.error?.message || `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  if (img.dataset.blob) URL.revokeObjectURL(img.dataset.blob);
  const url = URL.createObjectURL(await response.blob());
  img.dataset.blob = url;
  img.src = url;
  return img;
}

function figureView(citation, figureId) {
  const img = el("img", { alt: `Figure ${figureId} of ${citation.source}` });
  const figure = el("figure", { class: "cite-figure", "data-figure": figureId },
    img, el("figcaption", { text: `${citation.source}${citation.page != null ? ` · p.${citation.page}` : ""} · ${figureId}` }));
  const path = `/documents/${encodeURIComponent(citation.doc_id)}/figures/${encodeURIComponent(figureId)}`;
  loadImage(path, img).catch((error) => figure.replaceChildren(el("figcaption", { text: `Figure unavailable: ${error.message}` })));
  return figure;
}

async function showPage(citation) {
  const view = $("#page-view");
  view.hidden = true;
  if (!citation || citation.page == null) return;
  const path = `/documents/${encodeURIComponent(citation.doc_id)}/pages/${citation.page}.png?highlight=${encodeURIComponent(citation.chunk_id)}`;
  const img = $("#page-image");
  try {
    await loadImage(path, img);
  } catch (error) {
    if (error.status !== 415) {  // a document that is not a PDF has no page images: nothing to show
      view.hidden = false;
      img.removeAttribute("src");
      $("#page-caption").textContent = `Page image unavailable: ${error.message}`;
    }
    return;
  }
  img.alt = `Page ${citation.page} of ${citation.source}, the cited region highlighted`;
  $("#page-caption").textContent = `${citation.source} · p.${citation.page} · cited region highlighted`;
  view.hidden = false;
}

function placeOf(item) {
  const parts = [item.source, ...(item.section_path || [])];
  const pages = item.pages || (item.page != null ? [item.page] : []);
  if (pages.length) parts.push(`p.${pages.join(",")}`);
  return parts.join(" › ");
}

// -- connecting -------------------------------------------------------------
async function loadCollections() {
  const response = await fetch("/api/collections");
  const { collections } = await response.json();
  const select = $("#collection");
  select.replaceChildren(...collections.map((c) => el("option", { value: c.name, text: c.name })));
  const remembered = sessionStorage.getItem("bunko-collection");
  if (remembered && collections.some((c) => c.name === remembered)) select.value = remembered;
  state.collection = select.value;
  $("#apikey").value = state.key;
  await connect();
}

async function connect() {
  state.collection = $("#collection").value;
  sessionStorage.setItem("bunko-collection", state.collection);
  try {
    state.me = await api("/me");
    const scope = state.me.groups ? `groups ${state.me.groups.join(", ")}` : "all documents";
    $("#whoami").textContent = `Signed in as ${state.me.name} (${state.me.role}, ${scope}).`;
  } catch (error) {
    state.me = null;
    $("#whoami").textContent = error.status === 401 ? "This collection needs an API key." : `Error: ${error.message}`;
  }
  const editor = state.me && state.me.role !== "reader";
  newConversation();
  $("#upload-section").hidden = !editor;
  resetGraph();
  await loadDocuments();
  if (editor) await loadJobs();
}

// -- asking -------------------------------------------------------------------
async function* sseEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = "message";
      const data = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      yield { event, data: JSON.parse(data.join("\n")) };
    }
  }
}

function newConversation() {
  state.conversation = [];
  showConversation();
}

function showConversation() {
  const turns = state.conversation;
  $("#conversation-box").hidden = turns.length === 0;
  $("#new-conversation").hidden = turns.length === 0;
  $("#conversation").replaceChildren(...turns.map((turn) => el("li", { class: turn.role, lang: turn.lang || null },
    el("span", { class: "role", text: turn.role === "user" ? "You:" : "bunko:" }), turn.text)));
}

async function ask(question) {
  const history = state.conversation.slice(-HISTORY_TURNS).map(({ role, text }) => ({ role, text }));
  let answered = null;
  const text = $("#answer-text");
  $("#answer").hidden = false;
  $("#citations").replaceChildren();
  $("#trace-body").replaceChildren();
  $("#answer-meta").textContent = "Searching…";
  text.textContent = "";
  text.setAttribute("aria-busy", "true");
  $("#ask-button").disabled = true;
  try {
    const response = await fetch(base() + "/ask", {
      method: "POST",
      headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
      body: JSON.stringify(history.length ? { question, stream: true, history } : { question, stream: true }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      throw new Error(body?.error?.message || `${response.status} ${response.statusText}`);
    }
    for await (const { event, data } of sseEvents(response)) {
      if (event === "delta") text.append(data.text);
      else if (event === "error") throw new Error(data.message);
      else if (event === "done") {
        showAnswer(data);
        answered = data;
      }
    }
    if (answered) {
      const lang = LANG[answered.language] || answered.language;
      state.conversation.push({ role: "user", text: question, lang }, { role: "assistant", text: answered.text, lang });
      showConversation();
      $("#question").value = "";
    }
  } catch (error) {
    $("#answer-meta").textContent = `Error: ${error.message}`;
  } finally {
    text.setAttribute("aria-busy", "false");
    $("#ask-button").disabled = false;
  }
}

function citeButton(citation) {
  return el("button", {
    type: "button", class: "cite", "data-cite": citation.number,
    "aria-label": `Source ${citation.number}: ${citation.label}`, text: `[${citation.number}]`,
    onclick: () => openDocument(citation.doc_id, citation),
  });
}

function showAnswer(answer) {
  state.answer = answer;
  const byNumber = new Map(answer.citations.map((c) => [c.number, c]));
  const text = $("#answer-text");
  text.lang = LANG[answer.language] || answer.language;
  const nodes = [];
  let last = 0;
  for (const match of answer.text.matchAll(/\[(\d+)\]/g)) {
    const citation = byNumber.get(Number(match[1]));
    if (!citation) continue;
    nodes.push(answer.text.slice(last, match.index), citeButton(citation));
    last = match.index + match[0].length;
  }
  nodes.push(answer.text.slice(last));
  text.replaceChildren(...nodes);
  $("#answer-meta").textContent = answer.abstained
    ? "No answer in the documents."
    : `Confidence ${answer.confidence.toFixed(2)} · trace ${answer.trace_id}`;
  $("#citations").replaceChildren(...answer.citations.map((c) => el("li", {},
    el("button", { type: "button", class: "source", text: c.label, onclick: () => openDocument(c.doc_id, c) }),
    el("blockquote", { lang: text.lang, text: c.quote }),
    ...((c.also_at || []).length ? [el("p", { class: "also-at", text: `also at ${c.also_at.join(", ")}` })] : []),
    ...(c.figures || []).map((figureId) => figureView(c, figureId)),
  )));
  loadTrace(answer.trace_id);
}

async function loadTrace(traceId) {
  const body = $("#trace-body");
  try {
    const trace = await api(`/traces/${encodeURIComponent(traceId)}`);
    const graphed = trace.hits.some((hit) => hit.signals?.path);
    const rows = trace.hits.map((hit, i) => el("tr", {},
      el("td", { text: String(i + 1) }),
      el("td", { text: hit.source }),
      el("td", { text: hit.score.toFixed(4) }),
      el("td", { text: signal(hit.signals.dense) }),
      el("td", { text: signal(hit.signals.keyword) }),
      el("td", { text: hit.distance == null ? "–" : hit.distance.toFixed(3) }),
      graphed ? el("td", {}, viaLine(hit.signals.path)) : null,
    ));
    const columns = ["#", "Source", "Fused score", "Dense rank · score", "Keyword rank · score", "Distance"];
    if (graphed) columns.push("Graph path");
    const head = el("tr", {}, ...columns.map((name) => el("th", { scope: "col", text: name })));
    const timings = Object.entries(trace.timings || {}).map(([stage, seconds]) => el("li", { text: `${stage}: ${(seconds * 1000).toFixed(1)} ms` }));
    const condensed = trace.condensed;
    const searchedAs = condensed && condensed.standalone !== condensed.question
      ? el("p", { class: "searched-as" }, "Searched as: ", el("q", { lang: LANG[trace.language] || null, text: condensed.standalone }),
        ` (${condensed.used_llm ? "rewritten by the model" : condensed.reason})`)
      : null;
    body.replaceChildren(
      ...(searchedAs ? [searchedAs] : []),
      el("p", { text: `Route: ${trace.route?.mode || ""} (${trace.route?.name || ""}) ${trace.route?.reason || ""} · grade confidence ${trace.grade?.confidence?.toFixed?.(2) ?? "–"}` }),
      el("table", { class: "trace-hits" }, el("caption", { text: "Hits" }), el("thead", {}, head), el("tbody", {}, ...rows)),
      el("h5", { text: "Timings" }), el("ul", { class: "timings" }, ...timings),
    );
  } catch (error) {
    body.replaceChildren(el("p", { text: `Trace unavailable: ${error.message}` }));
  }
}

function signal(s) {
  return s ? `${s.rank} · ${Number(s.score).toFixed(3)}` : "–";
}

// -- documents and context ------------------------------------------------------------
async function openDocument(docId, citation = null, sections = false) {
  const section = $("#context");
  state.docId = docId;
  resetSections();
  $("#page-view").hidden = true;
  try {
    const doc = await api(`/documents/${encodeURIComponent(docId)}`);
    section.hidden = false;
    $("#context-h").textContent = doc.title || doc.source;
    $("#context-meta").textContent = `${doc.source} · ${doc.chunk_count} chunks${doc.groups ? ` · groups ${[].concat(doc.groups).join(", ")}` : ""}`;
    let cited = null;
    const items = doc.chunks.map((chunk) => {
      const isCited = citation && chunk.chunk_id === citation.chunk_id;
      const item = el("li", { id: `chunk-${chunk.ordinal}`, class: isCited ? "chunk cited" : "chunk" },
        el("p", { class: "where", text: placeOf({ source: "", section_path: chunk.section_path, pages: chunk.pages }).replace(/^ › /, "") || "(top)" }),
        highlighted(chunk.text, isCited ? citation.quote : null),
      );
      if (isCited) cited = item;
      return item;
    });
    $("#context-chunks").replaceChildren(...items);
    await showPage(citation);
    if (sections) {
      $("#sections-panel").open = true;
      await loadSections();
      section.scrollIntoView({ block: "start" });
    } else {
      (cited || section).scrollIntoView({ block: "center" });
    }
    $("#context-h").focus({ preventScroll: true });
  } catch (error) {
    section.hidden = false;
    $("#context-h").textContent = "Document";
    $("#context-meta").textContent = `Error: ${error.message}`;
    $("#context-chunks").replaceChildren();
  }
}

// -- a document's sections ------------------------------------------------------------
function resetSections() {
  state.sectionsLoaded = null;
  $("#sections-status").textContent = "";
  $("#sections-summary").hidden = true;
  $("#sections-tools").hidden = true;
  $("#sections-tree").replaceChildren();
  if ($("#sections-panel").open) loadSections();
}

function pagesText(pages) {
  if (!pages.length) return null;
  const [first, last] = [pages[0], pages[pages.length - 1]];
  return first === last ? `p. ${first}` : `pp. ${first}–${last}`;
}

function chunkTotal(node) {
  return node.chunks + node.children.reduce((sum, child) => sum + chunkTotal(child), 0);
}

function sectionCount(node) {
  return node.children.reduce((sum, child) => sum + 1 + sectionCount(child), 0);
}

// One section: "number title (pages · chunks)"; its summary and subsections fold under it.
function sectionItem(node) {
  const total = chunkTotal(node);
  const size = [pagesText(node.pages), `${total} chunk${total === 1 ? "" : "s"}`].filter(Boolean).join(" · ");
  const numbered = node.number && !node.title.trimStart().startsWith(node.number);
  const heading = [
    numbered ? el("span", { class: "number", text: node.number }) : null, numbered ? " " : null,
    el("span", { class: "title", text: node.title }), " ",
    el("span", { class: "size", text: size }),
  ];
  const lang = LANG[node.language] || node.language;
  const summary = node.summary ? el("p", { class: "summary", lang, text: node.summary }) : null;
  const children = node.children.length ? el("ul", {}, ...node.children.map(sectionItem)) : null;
  const item = el("li", { class: "section", "data-number": node.number || null });
  if (!summary && !children) item.append(el("div", { class: "heading" }, ...heading));
  else item.append(el("details", {}, el("summary", {}, ...heading), summary, children));
  return item;
}

async function loadSections() {
  const docId = state.docId;
  if (!docId || state.sectionsLoaded === docId) return;
  state.sectionsLoaded = docId;
  const status = $("#sections-status");
  status.textContent = "Loading sections…";
  try {
    const tree = await api(`/documents/${encodeURIComponent(docId)}/tree`);
    if (state.docId !== docId) return;
    const count = sectionCount(tree);
    const pages = pagesText(tree.pages);
    status.textContent = count
      ? `${count} section${count === 1 ? "" : "s"}${pages ? ` · ${pages}` : ""}`
      : "No sections: the document has no headings.";
    const summary = $("#sections-summary");
    summary.textContent = tree.summary;
    summary.lang = LANG[tree.language] || tree.language;
    summary.hidden = !tree.summary;
    $("#sections-tools").hidden = count === 0;
    $("#sections-tree").replaceChildren(...tree.children.map(sectionItem));
  } catch (error) {
    state.sectionsLoaded = null;
    status.textContent = `Sections unavailable: ${error.message}`;
  }
}

function foldSections(open) {
  for (const details of document.querySelectorAll("#sections-tree details")) details.open = open;
}

function findQuote(text, quote) {
  const wanted = quote.trim();
  const at = text.indexOf(wanted);
  if (at >= 0) return [at, at + wanted.length];
  // A table row is quoted as "column: value / column: value": find the line that holds all its values.
  const values = wanted.split(" / ").map((part) => part.split(/[:：]\s*/).pop().trim()).filter(Boolean);
  let offset = 0;
  for (const line of text.split("\n")) {
    if (values.length && values.every((value) => line.includes(value))) return [offset, offset + line.length];
    offset += line.length + 1;
  }
  return null;
}

// A chunk's text as the reader should see it: its Markdown tables (a header row, a |---| row, rows) as <table>s,
// everything else as text; the quoted span marked, in a table as the whole cited row.
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function tableCells(line) {
  // "| a | b \| c |" -> ["a", "b | c"]: a cell's own pipe is written "\|"
  const inner = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, "|"));
}

function textBlocks(text) {
  // [{table: false, start, end}] and [{table: true, start, end, lines: [[start, end], …]}], in order
  const lines = [];
  let offset = 0;
  for (const line of text.split("\n")) {
    lines.push([offset, offset + line.length, line]);
    offset += line.length + 1;
  }
  const blocks = [];
  let i = 0;
  let plainStart = 0;
  while (i < lines.length) {
    if (i + 1 < lines.length && TABLE_ROW.test(lines[i][2]) && TABLE_RULE.test(lines[i + 1][2])) {
      const rows = [lines[i]];
      let j = i + 2;
      while (j < lines.length && TABLE_ROW.test(lines[j][2])) rows.push(lines[j++]);
      if (lines[i][0] - 1 > plainStart) blocks.push({ table: false, start: plainStart, end: lines[i][0] - 1 }); // without its "\n"
      blocks.push({ table: true, start: lines[i][0], end: rows[rows.length - 1][1], rows });
      plainStart = j < lines.length ? lines[j][0] : text.length;
      i = j;
    } else {
      i += 1;
    }
  }
  if (plainStart < text.length) blocks.push({ table: false, start: plainStart, end: text.length });
  return blocks;
}

function markedText(text, start, end, span) {
  // text[start:end] as nodes, the part inside span marked
  if (!span || span[1] <= start || span[0] >= end) return [text.slice(start, end)];
  const from = Math.max(start, span[0]);
  const to = Math.min(end, span[1]);
  return [text.slice(start, from), el("mark", { text: text.slice(from, to) }), text.slice(to, end)].filter((n) => n !== "");
}

function markdownTable(text, block, span) {
  const [head, ...rows] = block.rows;
  const headCells = tableCells(head[2]);
  const table = el("table", { class: "md-table" },
    el("thead", {}, el("tr", {}, ...headCells.map((cell) => el("th", { scope: "col", text: cell })))));
  const body = el("tbody");
  for (const [start, end, line] of rows) {
    const cited = span && span[0] < end && span[1] > start;
    const cells = tableCells(line);
    while (cells.length < headCells.length) cells.push("");
    body.append(el("tr", cited ? { class: "cited" } : {},
      ...cells.map((cell) => el("td", {}, cited && cell ? el("mark", { text: cell }) : cell))));
  }
  table.append(body);
  return table;
}

function highlighted(text, quote) {
  const body = el("div", { class: "chunk-text" });
  const span = quote ? findQuote(text, quote) : null;
  if (quote && !span) body.classList.add("whole");
  for (const block of textBlocks(text)) {
    if (block.table) body.append(markdownTable(text, block, span));
    else body.append(...markedText(text, block.start, block.end, span));
  }
  return body;
}

async function loadDocuments() {
  const tbody = $("#docs-table tbody");
  if (!state.me) {
    tbody.replaceChildren();
    return;
  }
  const { documents } = await api("/documents");
  $("#docs-empty").hidden = documents.length > 0;
  const editor = state.me.role !== "reader";
  tbody.replaceChildren(...documents.map((doc) => el("tr", {},
    el("td", {}, el("button", { type: "button", class: "link", text: doc.title || doc.source, onclick: () => openDocument(doc.doc_id) })),
    el("td", { text: doc.source }),
    el("td", { text: doc.groups ? [].concat(doc.groups).join(", ") : "–" }),
    el("td", { text: String(doc.chunk_count) }),
    el("td", { class: "actions" },
      el("button", {
        type: "button", class: "link", "aria-label": `Sections of ${doc.source}`, text: "Sections",
        onclick: () => openDocument(doc.doc_id, null, true),
      }),
      editor ? el("button", {
        type: "button", "aria-label": `Delete ${doc.source}`, text: "Delete",
        onclick: async () => {
          if (!confirm(`Delete ${doc.source}?`)) return;
          await api(`/documents/${encodeURIComponent(doc.doc_id)}`, { method: "DELETE" });
          await loadDocuments();
        },
      }) : null),
  )));
}

// -- entity graph --------------------------------------------------------------------
function entityChip(key, count = null, label = null) {
  return el("li", {}, el("button", {
    type: "button", class: "chip", "data-entity": key, "aria-label": label || `Entity ${key}`,
    onclick: () => openEntity(key),
  }, key, count == null ? null : el("span", { class: "count", text: String(count) })));
}

// A graph route hit's path ({seeds, via: [[key, mass]], from_passages, bridges}): "via: key1, key2" as entity chips.
function viaLine(path) {
  const keys = [...new Set([...(path?.via || []).map(([key]) => key), ...(path?.bridges || [])])];
  if (!keys.length) return "–";
  return el("div", { class: "via" }, "via:", el("ul", { class: "chips" }, ...keys.map((key) => entityChip(key, null, `Open entity ${key}`))));
}

function resetGraph() {
  state.graphLoaded = null;
  $("#graph-top").hidden = true;
  $("#graph-top-list").replaceChildren();
  $("#graph-entity").hidden = true;
  $("#graph-status").replaceChildren();
  if ($("#graph-panel").open) loadTopEntities();
}

async function loadTopEntities() {
  if (!state.me || state.graphLoaded === state.collection) return;
  state.graphLoaded = state.collection;
  try {
    const stats = await api("/graph/stats?limit=30");
    $("#graph-top-list").replaceChildren(...stats.top_entities.map((e) => entityChip(e.key, e.passages, `Entity ${e.key}, ${e.passages} passages`)));
    $("#graph-top").hidden = stats.top_entities.length === 0;
    if (!stats.entities) $("#graph-status").textContent = "No entities in the graph yet.";
    else if ($("#graph-entity").hidden) $("#graph-status").textContent = `${stats.passages} passages, ${stats.entities} entities.`;
  } catch (error) {
    state.graphLoaded = null;
    $("#graph-status").textContent = `Graph unavailable: ${error.message}`;
  }
}

async function openEntity(name) {
  const panel = $("#graph-panel");
  if (!panel.open) panel.open = true;
  $("#entity").value = name;
  const status = $("#graph-status");
  status.textContent = "Looking up…";
  try {
    const entity = await api(`/graph/entity?${new URLSearchParams({ name, limit: "20" })}`);
    showEntity(entity);
    status.textContent = "";
  } catch (error) {
    $("#graph-entity").hidden = true;
    const close = error.body?.error?.suggestions || [];
    status.replaceChildren(error.status === 404 ? `No entity “${name}” in the graph.` : `Error: ${error.message}`);
    if (close.length) status.append(" Close:", el("ul", { class: "chips" }, ...close.map((key) => entityChip(key))));
  }
  $("#graph-section").scrollIntoView({ block: "start" });
}

function showEntity(entity) {
  $("#graph-entity").hidden = false;
  $("#graph-entity-h").textContent = entity.key;
  const more = entity.passages > entity.mentions.length ? ` (showing ${entity.mentions.length})` : "";
  $("#graph-entity-meta").textContent = `${entity.passages} passage${entity.passages === 1 ? "" : "s"}${more}`
    + (entity.hub ? " · a hub: too common to link passages" : "");
  const neighbours = entity.neighbours.map((n) => entityChip(n.key, n.shared, `Entity ${n.key}, ${n.shared} shared passages`));
  $("#graph-neighbours").replaceChildren(...(neighbours.length ? neighbours : [el("li", { class: "meta", text: "None: it shares no passage with another linking entity." })]));
  $("#graph-passages").replaceChildren(...entity.mentions.map(passageItem));
  $("#graph-entity-h").focus({ preventScroll: true });
}

function passageItem(m) {
  const full = el("div", { class: "chunk-text full", hidden: true });
  const snippet = el("p", { class: "snippet" }, m.snippet_before, m.mention ? el("mark", { text: m.mention }) : null, m.snippet_after);
  const open = el("button", {
    type: "button", class: "source", "aria-expanded": "false", title: "Show the whole passage", text: placeOf(m),
    onclick: () => toggleFullText(open, snippet, full, m),
  });
  return el("li", { class: "chunk", "data-chunk": m.chunk_id }, el("p", { class: "where" }, open), snippet, full);
}

async function toggleFullText(button, snippet, full, m) {
  const opening = full.hidden;
  button.setAttribute("aria-expanded", String(opening));
  full.hidden = !opening;
  snippet.hidden = opening;
  if (!opening || full.dataset.loaded) return;
  try {
    const doc = await api(`/documents/${encodeURIComponent(m.doc_id)}`);
    const chunk = doc.chunks.find((c) => c.chunk_id === m.chunk_id);
    if (!chunk) throw new Error("the passage is gone (the document was re-ingested?)");
    const { text } = chunk;
    if (m.start != null && text.slice(m.start, m.end).replace(/\s+/g, " ") === m.mention) {
      full.replaceChildren(text.slice(0, m.start), el("mark", { text: text.slice(m.start, m.end) }), text.slice(m.end));
    } else {
      full.replaceChildren(...highlighted(text, m.mention || null).childNodes);
    }
    full.dataset.loaded = "1";
  } catch (error) {
    full.textContent = `Error: ${error.message}`;
  }
}

// -- upload and jobs ---------------------------------------------------------------
let chosen = [];

function choose(files) {
  chosen = Array.from(files);
  $("#dropped").textContent = chosen.length ? `${chosen.length} file(s): ${chosen.map((f) => f.name).join(", ")}` : "";
}

async function upload() {
  if (!chosen.length) {
    $("#upload-status").textContent = "Choose or drop files first.";
    return;
  }
  const form = new FormData();
  for (const file of chosen) form.append("files", file, file.name);
  const groups = $("#groups").value.trim();
  if (groups) form.append("groups", groups);
  try {
    const result = await api("/documents", { method: "POST", body: form });
    const rejected = result.rejected.map((r) => `${r.filename}: ${r.message}`).join("; ");
    $("#upload-status").textContent = `Queued ${result.jobs.length} file(s).${rejected ? ` Refused: ${rejected}` : ""}`;
    choose([]);
    $("#files").value = "";
    await loadJobs();
  } catch (error) {
    $("#upload-status").textContent = `Upload refused: ${error.message}`;
  }
}

async function loadJobs() {
  const { jobs } = await api("/jobs?limit=50");
  $("#jobs-table tbody").replaceChildren(...jobs.map((job) => el("tr", { class: `job ${job.status.toLowerCase()}`, "data-job": job.job_id },
    el("td", { text: job.filename }),
    el("td", { class: "status", text: job.status }),
    el("td", { text: job.error_code || "" }),
    el("td", { text: job.error_detail || "" }),
  )));
  const running = jobs.some((job) => !TERMINAL.has(job.status));
  if (running && !state.polling) {
    state.polling = setInterval(loadJobs, 800);
  } else if (!running && state.polling) {
    clearInterval(state.polling);
    state.polling = null;
    await loadDocuments();
  }
}

// -- wiring ------------------------------------------------------------------------------
document.addEventListener("DOMContentLoaded", () => {
  $("#connect").addEventListener("submit", (event) => {
    event.preventDefault();
    state.key = $("#apikey").value.trim();
    sessionStorage.setItem("bunko-key", state.key);
    connect();
  });
  $("#collection").addEventListener("change", connect);
  $("#graph-panel").addEventListener("toggle", () => { if ($("#graph-panel").open) loadTopEntities(); });
  $("#sections-panel").addEventListener("toggle", () => { if ($("#sections-panel").open) loadSections(); });
  $("#sections-expand").addEventListener("click", () => foldSections(true));
  $("#sections-collapse").addEventListener("click", () => foldSections(false));
  $("#graph-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("#entity").value.trim();
    if (name) openEntity(name);
  });
  $("#new-conversation").addEventListener("click", () => {
    newConversation();
    $("#question").focus();
  });
  $("#ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const question = $("#question").value.trim();
    if (question) ask(question);
  });
  $("#question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("#ask-form").requestSubmit();
    }
  });
  const zone = $("#dropzone");
  for (const name of ["dragenter", "dragover"]) {
    zone.addEventListener(name, (event) => { event.preventDefault(); zone.classList.add("over"); });
  }
  for (const name of ["dragleave", "drop"]) zone.addEventListener(name, () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    choose(event.dataTransfer.files);
  });
  $("#files").addEventListener("change", (event) => choose(event.target.files));
  $("#upload-form").addEventListener("submit", (event) => {
    event.preventDefault();
    upload();
  });
  loadCollections();
});
