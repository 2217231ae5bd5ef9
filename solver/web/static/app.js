// The advice page: plain JavaScript, no build step, no network beyond this server's /api.
// Every figure shown comes from the JSON API, which answers exactly what the `kniffel` CLI prints.
"use strict";

const $ = (id) => document.getElementById(id);
const GAME_KEY = "kniffel.game.v1";
const LANG_KEY = "kniffel.lang"; // the reader's choice of language, remembered
const MAX_UNDO = 200;
const CHART_DELAY_MS = 300;

const state = {
  variants: [], v: null, lang: null, texts: {}, browser: null, // lang: null until the texts come
  card: {}, extra: 0, dice: [], cursor: 0, roll: 1,
  advice: null, shown: 0, showAll: false, value: null,
  undo: [], game: false, distribution: true, seq: 0, chartData: null,
  // playing for a target score: the target (null: off), the server's chances answer, a note under the
  // field, and the variants whose target table the server does not have (asked again after a reload)
  target: null, chances: null, chancesFor: null, targetNote: "", targetMissing: {},
  loading: false, // the URL's situation is being read (loadSituation)
  pending: false, // a request for the situation shown is on its way: the advice on screen is stale
  stoppedAt: null, // the situation where the player stopped rolling: the advice is which box to fill with this roll
  focusNext: null, // the control the keyboard goes to once it can take it (after a move the buttons wait for advice)
};

// ---- API ----------------------------------------------------------------------------------------
async function api(path, params) {
  const url = path + (params ? "?" + new URLSearchParams(params).toString() : "");
  // the answer's messages (advice, errors) come in the page's language
  const headers = { Accept: "application/json" };
  if (state.lang) headers["Accept-Language"] = state.lang; // before that: the browser's own
  const res = await fetch(url, { headers });
  let body = null;
  try { body = await res.json(); } catch (e) { body = { error: T("web_server_answered", { status: res.status }) }; }
  return { ok: res.ok, status: res.status, body };
}

// ---- card and dice as the CLI writes them -------------------------------------------------------
function cardText(card = state.card, extra = state.extra) {
  const parts = state.v.boxes.filter((b) => b.key in card).map((b) => `${b.key}=${card[b.key]}`);
  if (extra) parts.push(`extra=${extra}`);
  return parts.join(",");
}
function parseCardText(text) {
  const card = {}; let extra = 0;
  for (const part of text.split(",").filter(Boolean)) {
    const [key, pts] = part.split("=");
    const n = Number.isSafeInteger(Number(pts)) ? Number(pts) : pts; // else as typed: the server names it
    if (key === "extra") extra = n; else card[key] = n;
  }
  return { card, extra };
}
// a served hand (Generala) scores more at the first throw: stopping there asks for the box at that roll
const situationKey = () => `${state.v.variant}|${diceText()}|${state.roll}`; // a bonus marked meanwhile keeps the stop
const diceComplete = () => state.dice.length > 0 && state.dice.every((d) => d !== null);
const diceText = () => state.dice.join("");
const boxName = (b) => b[state.lang || "en"] || b.en;
// a Kniffel 7 die's colour in the page's language (die_names: the English keys the advice names dice by)
const dieColour = (i) => (state.v.die_colours[state.lang || "en"] || state.v.die_names)[i];

// ---- the page's language: texts from the server's catalogues (/api/texts) -----------------------
function T(key, fields = {}) {
  const text = state.texts[key] || "";
  return text.replace(/{(\w+)}/g, (m, f) => (f in fields ? String(fields[f]) : m));
}
function storedLang() {
  try { return localStorage.getItem(LANG_KEY); } catch (e) { return null; }
}
// the reader's choice, else the browser's language, else the game's own (Generala Spanish, Yams French)
const preferredLang = () => storedLang() || state.browser || (state.v ? state.v.lang : "en");
async function loadTexts(lang) {
  const res = await api("/api/texts", lang ? { lang } : null);
  if (!res.ok) return;
  state.texts = res.body.texts;
  state.lang = res.body.lang;
  if (!lang) state.browser = res.body.browser;
  document.documentElement.lang = state.lang;
  document.title = T("web_title");
  for (const el of document.querySelectorAll("[data-text]")) el.textContent = T(el.dataset.text);
  for (const el of document.querySelectorAll("[data-label]")) el.setAttribute("aria-label", T(el.dataset.label));
  for (const el of document.querySelectorAll("[data-title]")) el.title = T(el.dataset.title);
  for (const el of document.querySelectorAll("[data-placeholder]")) el.placeholder = T(el.dataset.placeholder);
  document.documentElement.style.setProperty("--kept-word", JSON.stringify(T("web_kept")));
  $("lang").value = state.lang;
  titles();
}
function titles() {
  // each game's title in the page's language
  for (const o of $("variant").options) {
    const v = state.variants.find((x) => x.variant === o.value);
    o.textContent = (v.titles && v.titles[state.lang]) || v.title;
  }
}
async function speak(lang) {
  if (lang !== state.lang) await loadTexts(lang);
}
const cardFull = () => state.v.boxes.every((b) => b.key in state.card);

// ---- undo and game storage ----------------------------------------------------------------------
function snapshot() {
  return { card: { ...state.card }, extra: state.extra, dice: [...state.dice], roll: state.roll };
}
function pushUndo() {
  state.undo.push(snapshot());
  if (state.undo.length > MAX_UNDO) state.undo.shift();
}
// the game being played, and each game's own copy (GAME_KEY:variant): another game chosen meanwhile loses none
function saveGame() {
  if (!state.game) return;
  const game = { variant: state.v.variant, card: state.card, extra: state.extra, undo: state.undo };
  try {
    localStorage.setItem(GAME_KEY, JSON.stringify(game));
    localStorage.setItem(`${GAME_KEY}:${game.variant}`, JSON.stringify(game));
  } catch (e) { /* storage full or disabled: the game still works in this tab */ }
}
function loadGame(variant) {
  try { return JSON.parse(localStorage.getItem(variant ? `${GAME_KEY}:${variant}` : GAME_KEY) || "null"); } catch (e) { return null; }
}
function forgetGames() {
  try {
    for (const key of Object.keys(localStorage)) if (key === GAME_KEY || key.startsWith(`${GAME_KEY}:`)) localStorage.removeItem(key);
  } catch (e) { /* storage disabled: nothing was kept */ }
}
function resumeGame(game) {
  // a stored game of the variant shown: its card and its undo steps
  if (game) Object.assign(state, { card: game.card || {}, extra: game.extra || 0, undo: game.undo || [] });
}

// ---- rendering ----------------------------------------------------------------------------------
function keptDice() {
  // which dice the shown option keeps: by die name (dice told apart) or by face (identical dice)
  const a = state.advice;
  const kept = new Set();
  if (!a || a.action !== "keep" || !diceComplete() || state.pending) return kept;
  const opt = a.options[state.shown] || a.best;
  if (opt.keep_dice) {
    for (const name of opt.keep_dice) kept.add(state.v.die_names.indexOf(name));
    return kept;
  }
  for (const face of opt.keep) {
    const i = state.dice.findIndex((d, j) => d === face && !kept.has(j));
    if (i >= 0) kept.add(i);
  }
  return kept;
}

function renderDice() {
  const box = $("dice");
  box.textContent = "";
  box.style.setProperty("--n", String(state.dice.length));
  const kept = keptDice();
  state.dice.forEach((face, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "die" + (face === null ? " empty" : "") + (kept.has(i) ? " kept" : "") + (i === state.cursor ? " cursor" : "");
    const name = state.v.die_names[i];
    if (name) b.dataset.colour = name;
    b.dataset.index = i;
    b.id = `die-${i}`;
    b.textContent = face === null ? "?" : String(face);
    const who = T(name ? "web_die_named" : "web_die", { n: i + 1, name: dieColour(i) });
    const label = T("web_die_label", { who, face: face === null ? T("web_not_set") : face });
    b.setAttribute("aria-label", kept.has(i) ? T("web_die_kept", { label }) : label);
    b.addEventListener("click", () => cycleDie(i, 1));
    b.addEventListener("keydown", (ev) => dieKey(ev, i));
    box.appendChild(b);
  });
  const faces = $("faces");
  faces.textContent = "";
  const cursorDie = state.v.die_faces[state.cursor] || [];
  const all = [...new Set(state.v.die_faces.flat())].sort((x, y) => x - y);
  for (const f of all) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = String(f);
    b.disabled = !cursorDie.includes(f);
    const die = state.v.die_names[state.cursor] ? dieColour(state.cursor) : T("web_die", { n: state.cursor + 1 });
    b.setAttribute("aria-label", T("web_set_face", { die, face: f }));
    b.addEventListener("click", () => setFace(f));
    faces.appendChild(b);
  }
  document.querySelectorAll("#rolls button").forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.roll) === state.roll)));
}

function renderCard() {
  const box = $("card");
  box.textContent = "";
  const best = state.advice && state.advice.action === "box" ? state.advice.best : state.advice && state.advice.then;
  for (const b of state.v.boxes) {
    const row = document.createElement("div");
    const filled = b.key in state.card;
    row.className = "box" + (filled ? " filled" : "") + (best && best.box === b.key && !filled ? " suggest" : "");
    const id = `box-${b.key}`;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = boxName(b);
    const input = document.createElement("input");
    input.id = id;
    input.type = "number";
    input.inputMode = "numeric";
    input.min = "0";
    input.max = "999";
    input.value = filled ? String(state.card[b.key]) : "";
    input.placeholder = best && best.box === b.key && !filled ? String(best.points) : "";
    input.dataset.key = b.key;
    input.setAttribute("aria-label", T(filled ? "web_box_label" : "web_box_label_free", { box: boxName(b) }));
    input.addEventListener("change", () => editBox(b.key, input.value, input.validity.badInput));
    row.append(label, input);
    box.appendChild(row);
  }
  if (state.v.extra_points) {
    const row = document.createElement("div");
    row.className = "box extra";
    const joker = state.v.boxes.find((b) => b.key === state.v.joker_box);
    const label = Object.assign(document.createElement("label"), { htmlFor: "box-extra" });
    label.textContent = T("web_extra_label", { points: state.v.extra_points, box: joker ? boxName(joker) : "" });
    row.appendChild(label);
    const input = document.createElement("input");
    Object.assign(input, { id: "box-extra", type: "number", min: "0", max: "9999", step: String(state.v.extra_points) });
    input.value = state.extra ? String(state.extra) : "";
    input.addEventListener("change", () => editExtra(input.value, input.validity.badInput));
    row.appendChild(input);
    box.appendChild(row);
  }
  $("undo").disabled = state.undo.length === 0;
}

// numbers as the page's language writes them (245,11 in German, Spanish and French), as the CLI does
function fmt(x, digits = 2) {
  return new Intl.NumberFormat(state.lang || "en", { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
}
function pct(p, small = false) {
  // small (a loss of chance): as many decimals as show its first two digits, up to 4 ('0.040%', not '0.0%')
  const digits = small && p > 0 ? Math.min(4, Math.max(1, 1 - Math.floor(Math.log10(p * 100)))) : p > 0.999 && p < 1 ? 3 : 1;
  return new Intl.NumberFormat(state.lang || "en", { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits }).format(p);
}

function expectedCell(expected, std) {
  // the expected final score, and under it, small, its standard deviation (how far a game strays from it)
  const box = document.createDocumentFragment();
  const value = document.createElement("span");
  value.className = "value";
  value.textContent = expected;
  box.appendChild(value);
  if (typeof std === "number") {
    const spread = document.createElement("span");
    spread.className = "spread";
    spread.textContent = `± ${fmt(std, 1)}`;
    spread.title = T("web_sd_title");
    box.appendChild(spread);
  }
  return box;
}

function renderAdvice() {
  const a = state.advice;
  const table = $("options");
  const body = table.querySelector("tbody");
  body.textContent = "";
  $("advice").setAttribute("aria-busy", String(state.pending));
  $("advice").classList.toggle("stale", state.pending);
  $("next-roll").disabled = state.pending || !a || a.action !== "keep";
  if (!a) {
    $("best").textContent = "";
    table.hidden = true;
    return;
  }
  const forTarget = typeof a.target === "number"; // ranked by the chance of reaching the target
  let text = forTarget ? T("web_best_target", { target: a.target, text: a.best.text }) : T("web_best", { text: a.best.text });
  if (a.then) text = T("web_then", { text, then: a.then.text });
  const expected = fmt(a.best.expected_final_score);
  $("best").textContent = forTarget
    ? T("web_reaches", { text, target: a.target, p: pct(a.best.probability), expected })
    : T("web_expected", { text, expected });
  $("chance-head").hidden = !forTarget;
  table.classList.toggle("target", forTarget);
  $("chance-head").textContent = forTarget ? `P(≥ ${a.target})` : "";
  a.options.forEach((o, i) => {
    const tr = document.createElement("tr");
    tr.className = "option" + (i === 0 ? " best" : "") + (i === state.shown && a.action === "keep" ? " shown" : "");
    tr.dataset.index = i;
    // for a target the loss is in the chance of reaching it (the rows' order), else in expected points
    const lost = forTarget ? a.options[0].probability - o.probability : o.loss;
    const tied = forTarget ? lost < 1e-6 : lost <= 0; // chances this close rank as equal (targets.PROBABILITY_TIE)
    const loss = i === 0 ? T("web_best_mark") : tied ? T("web_tie") : `−${forTarget ? pct(lost, true) : fmt(lost)}`;
    const cells = [String(i + 1), o.text, ...(forTarget ? [pct(o.probability)] : []), fmt(o.expected_final_score), loss];
    const expectedAt = cells.length - 2;
    cells.forEach((c, j) => {
      const td = document.createElement("td");
      if (j === expectedAt) td.appendChild(expectedCell(c, o.std));
      else td.textContent = c;
      if (j !== 1) td.className = j === cells.length - 1 ? "num loss" : "num";
      tr.appendChild(td);
    });
    const act = document.createElement("button");
    act.type = "button";
    act.id = `option-${i}`;
    if (o.kind === "box") {
      act.textContent = T("web_fill");
      act.setAttribute("aria-label", T("web_fill_label", { text: o.text }));
      act.addEventListener("click", (ev) => { ev.stopPropagation(); fillBox(o); });
    } else {
      act.textContent = T("web_show");
      act.setAttribute("aria-label", T("web_show_label", { text: o.text }));
      act.addEventListener("click", (ev) => { ev.stopPropagation(); state.shown = i; renderAll(); });
    }
    act.disabled = state.pending; // a stale option must not be filled or shown
    const cell = document.createElement("td");
    cell.appendChild(act);
    tr.appendChild(cell);
    body.appendChild(tr);
  });
  if (a.options_total > a.options.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = forTarget ? 6 : 5;
    const more = document.createElement("button");
    more.type = "button";
    more.textContent = T("web_show_all", { count: a.options_total });
    more.disabled = state.pending;
    more.addEventListener("click", () => { state.showAll = true; refresh(); });
    td.appendChild(more);
    tr.appendChild(td);
    body.appendChild(tr);
  }
  table.hidden = false;
}

function renderValue() {
  const v = state.value;
  // a bonus marked before its box is chosen: the server answers for the turn's start, the box pays it (fillBox)
  const points = v && v.bonus_waiting ? T("web_card_points_waiting", { points: v.points, bonus: v.bonus_waiting }) : "";
  $("card-points").textContent = v ? points || T("web_card_points", { points: v.points }) : "";
  $("card-value").textContent = v
    ? (cardFull() ? T("web_game_over", { points: v.points }) : T("web_card_value", { expected: fmt(v.expected_final_score) }))
    : "";
  // the upper section's sum as the pad shows it: how far to the next bonus, or what it has earned
  const next = v ? state.v.bonuses.find(([threshold]) => v.upper_total < threshold) : null;
  $("card-upper").textContent = !v || !state.v.bonuses.length ? ""
    : next && v.upper_free ? T("web_upper_open", { total: v.upper_total, missing: next[0] - v.upper_total, points: next[1] })
    : v.upper_bonus ? T("web_upper_earned", { total: v.upper_total, bonus: v.upper_bonus })
    : T("web_upper_missed", { total: v.upper_total });
}

function boxLabels(text) {
  // the server's messages quote card entries as the page sends them ('full_house=20'): the player reads the box's label
  if (!state.v) return text;
  return state.v.boxes.reduce((t, b) => t.replace(new RegExp(`\\b${b.key}=`, "g"), `${boxName(b)}=`), text);
}

function showText(el, text) {
  // the CLI's messages write commands between backticks: shown as code, never broken inside
  const parts = text.split("`").map((part, i) => (i % 2 ? Object.assign(document.createElement("code"), { textContent: part }) : boxLabels(part)));
  el.replaceChildren(...parts.filter((part) => part !== "")); // nothing at all when there is no text: :empty
}

function renderTarget() {
  const input = $("target");
  if (document.activeElement !== input) input.value = state.target === null ? "" : String(state.target);
  const c = state.chances;
  let note = state.targetNote;
  if (!note && c && state.target !== null) note = chancesNote(c);
  const v = state.value;
  if (state.target !== null && cardFull() && v) { // the game is over: reached or not, and by how much
    note = v.points >= state.target ? T("web_target_reached", { target: state.target, points: v.points })
      : T("web_target_missed", { target: state.target, points: v.points, short: state.target - v.points });
  }
  showText($("target-note"), note);
}

function chancesNote(c) {
  // exact for the target; else (Kniffel 7 beyond this page's minute) the chance playing for the mean, exact or
  // simulated, and the server's line saying what the best play for the target needs
  const mean = c.probability_expected_play;
  if (typeof c.probability === "number") {
    const note = T("web_target_note", { p: pct(c.probability) });
    return typeof mean === "number" ? T("web_target_note_mean", { note, p: pct(mean) }) : note;
  }
  const games = c.expected_play_games;
  const line = typeof games === "number" ? T("web_target_note_simulated", { p: pct(mean), games }) : T("web_target_note_mean_only", { p: pct(mean) });
  return c.note ? `${line}. ${c.note}` : line;
}

function renderAll() {
  // the parts are rebuilt: keep the keyboard focus on the element with the same id
  const focused = document.activeElement && document.activeElement.id;
  renderDice();
  renderCard();
  renderAdvice();
  renderValue();
  renderTarget();
  if (focused && document.activeElement.id !== focused && $(focused)) $(focused).focus();
  const next = state.focusNext && $(state.focusNext);
  if (next && !next.disabled) { next.focus(); state.focusNext = null; }
}

// ---- the chart: final-score distribution as SVG, drawn here -------------------------------------
const SVG = "http://www.w3.org/2000/svg";
function svgEl(name, attrs, text) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}
function drawChart(d) {
  state.chartData = d; // redrawn at the new width when the window is resized
  const pmf = d.pmf;
  let lo = 0, hi = pmf.length - 1, acc = 0;
  for (let s = 0; s < pmf.length; s++) { acc += pmf[s]; if (acc > 0.001) { lo = s; break; } }
  acc = 0;
  for (let s = pmf.length - 1; s >= 0; s--) { acc += pmf[s]; if (acc > 0.001) { hi = s; break; } }
  lo = Math.max(0, Math.floor(lo / 10) * 10); hi = Math.ceil((hi + 1) / 10) * 10;
  $("chart").hidden = false;
  // drawn at the figure's own pixel width, so the labels keep their size on a phone
  const W = Math.max(300, Math.min(760, $("chart").clientWidth || 600)), H = 230, L = 12, R = 12, TM = 26, B = 36;
  const top = Math.max(...pmf.slice(lo, hi + 1)) || 1;
  const x = (s) => L + ((s - lo) / (hi - lo)) * (W - L - R);
  const y = (p) => H - B - (p / top) * (H - TM - B);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": T("web_chart_label", { mean: fmt(d.mean), median: d.median }) });
  const bw = Math.max(0.5, (W - L - R) / (hi - lo));
  for (let s = lo; s <= hi && s < pmf.length; s++) {
    if (pmf[s] > 0) svg.appendChild(svgEl("rect", { x: x(s), y: y(pmf[s]), width: bw, height: H - B - y(pmf[s]), fill: "#3465a4" }));
  }
  svg.appendChild(svgEl("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#333" }));
  const step = hi - lo > 300 ? 100 : 50;
  for (let s = Math.ceil(lo / step) * step; s <= hi; s += step) {
    svg.appendChild(svgEl("line", { x1: x(s), y1: H - B, x2: x(s), y2: H - B + 5, stroke: "#333" }));
    svg.appendChild(svgEl("text", { x: x(s), y: H - B + 18, "text-anchor": "middle", "font-size": 13 }, String(s)));
  }
  svg.appendChild(svgEl("line", { x1: x(d.mean), y1: TM, x2: x(d.mean), y2: H - B, stroke: "#cc0000", "stroke-width": 2 }));
  const label = svgEl("text", { x: x(d.mean) + 4, y: TM - 8, "font-size": 13, fill: "#cc0000" },
    T("web_chart_mean", { mean: fmt(d.mean), median: d.median }));
  svg.appendChild(label);
  svg.appendChild(svgEl("text", { x: W / 2, y: H - 4, "text-anchor": "middle", "font-size": 13 }, T("web_chart_axis")));
  $("chart-svg").replaceChildren(svg);
  $("chart").hidden = false;
  // the mean's label beside its line, right of it where it fits, else left of it, else as far right as it fits
  // (a long label on a phone ran off the chart: "moyenne 211,53, médiane")
  const width = label.getComputedTextLength(), at = x(d.mean);
  const left = at + 4 + width <= W - 2 ? at + 4 : at - 4 - width >= 2 ? at - 4 - width : Math.max(2, W - 2 - width);
  label.setAttribute("x", String(left));
}

// ---- talking to the server ----------------------------------------------------------------------
function situationParams() {
  const p = { variant: state.v.variant, card: cardText() };
  if (diceComplete()) { p.dice = diceText(); p.roll = String(state.roll); }
  if (diceComplete() && state.stoppedAt === situationKey()) p.box = "1"; // stopped rolling: a reload keeps it
  if (state.target !== null) p.target = String(state.target);
  return p;
}
function updateUrl() {
  const p = new URLSearchParams(situationParams());
  if (!p.get("card")) p.delete("card");
  history.replaceState(null, "", "/?" + p.toString());
}

function targetProblem(res) {
  // a target answer that failed: 409 (no target table on the server) turns target play off for the
  // variant with the command that builds the table; 400 (e.g. a target out of reach of the table) is shown
  if (res.status === 409) {
    state.targetMissing[state.v.variant] = res.body.error;
    return T("web_no_target_table", { variant: state.v.variant });
  }
  return res.body.error;
}

async function refresh() {
  const seq = ++state.seq;
  updateUrl();
  saveGame(); // now, not after the answers: a reload right after a move must not lose it
  // what the player just did shows at once; the advice on screen is marked stale until its answer comes
  state.pending = true;
  renderAll();
  const base = { variant: state.v.variant, card: cardText() };
  const none = Promise.resolve(null);
  const wantAdvice = diceComplete() && !cardFull();
  const missing = state.targetMissing[state.v.variant];
  const wantTarget = state.target !== null && !cardFull() && !missing;
  const q = { ...base, dice: diceText(), roll: String(state.roll) };
  if (state.showAll) q.all = "1";
  if (state.stoppedAt !== situationKey()) state.stoppedAt = null; // a move since: roll on as usual
  if (state.stoppedAt) q.box = "1";
  // the chances are shown when they come: a new card's need its distribution (seconds), the advice must not wait
  const chancesAnswer = wantTarget ? api("/api/chances", { ...base, target: String(state.target) }) : none;
  // Kniffel 7's target advice is computed from the card (up to a minute): the plain advice is shown meanwhile
  const targetAnswer = wantAdvice && wantTarget ? api("/api/advise", { ...q, target: String(state.target) }) : none;
  const slowTarget = !state.v.identical_dice;
  const [value, advice, targetAdvice] = await Promise.all([
    api("/api/value", base),
    wantAdvice ? api("/api/advise", q) : none,
    slowTarget ? none : targetAnswer,
  ]);
  if (seq !== state.seq) return; // a newer situation is on its way
  state.pending = false;
  const errors = [];
  state.value = value.ok ? value.body : null;
  if (!value.ok) errors.push(value.body.error);
  state.advice = advice && advice.ok ? advice.body : null;
  if (advice && !advice.ok && value.ok) errors.push(advice.body.error);
  state.targetNote = targetAdvice && !targetAdvice.ok ? targetProblem(targetAdvice) : "";
  if (missing && state.target !== null && state.v.identical_dice) {
    state.targetNote = targetProblem({ status: 409, body: { error: missing } });
  }
  if (targetAdvice && targetAdvice.ok) state.advice = targetAdvice.body;
  const chancesFor = wantTarget ? `${base.variant} ${base.card} ${state.target}` : null;
  if (chancesFor !== state.chancesFor) state.chances = null; // another card or target: none shown until they come
  state.chancesFor = chancesFor;
  state.shown = 0;
  showText($("error"), errors.join(" "));
  renderAll();
  if (state.distribution && value.ok && !cardFull()) refreshChart(seq, base);
  else if (!value.ok || cardFull()) { $("chart").hidden = true; showText($("chart-note"), ""); }
  const computing = T("web_target_computing");
  if (slowTarget && wantTarget) {
    state.targetNote = computing; // the plain advice is shown meanwhile
    renderTarget();
    if (wantAdvice) await slowTargetAdvice(seq, targetAnswer);
  }
  const chances = await chancesAnswer;
  if (!chances || seq !== state.seq) return;
  if (state.targetNote === computing) state.targetNote = "";
  if (chances.ok) state.chances = chances.body;
  else if (!state.targetNote) state.targetNote = targetProblem(chances);
  renderTarget();
}

async function slowTargetAdvice(seq, answer) {
  // Kniffel 7: the target advice replaces the plain advice when it comes (beyond this page's minute, the
  // answer is the plain advice with the chances under "target", which the chances note tells)
  const res = await answer;
  if (seq !== state.seq) return;
  state.targetNote = res.ok ? "" : targetProblem(res);
  if (res.ok && typeof res.body.target === "number") state.advice = res.body;
  renderAll();
}

async function refreshChart(seq, base) {
  // asked once the situation rests a moment: a new card's distribution costs the server seconds, and
  // quick taps through a card would queue one for every card passed on the way
  await new Promise((resolve) => setTimeout(resolve, CHART_DELAY_MS));
  if (seq !== state.seq) return;
  const res = await api("/api/distribution", base);
  if (seq !== state.seq) return;
  if (res.status === 404) { state.distribution = false; $("chart").hidden = true; return; }
  if (res.ok) drawChart(res.body); else $("chart").hidden = true;
  // why there is no chart (Kniffel 7 early in a game: more work than the page waits) and what is available
  showText($("chart-note"), res.ok ? "" : res.body.error);
}

// ---- actions ------------------------------------------------------------------------------------
function setVariant(name, keepCard) {
  state.v = state.variants.find((v) => v.variant === name) || state.variants[0];
  $("variant").value = state.v.variant;
  if (!keepCard) { state.card = {}; state.extra = 0; state.undo = []; }
  state.dice = Array(state.v.dice).fill(null);
  state.cursor = 0;
  state.roll = 1;
  state.advice = null;
  state.chances = null;
  state.targetNote = "";
  state.showAll = false;
}
function nextEmpty(from) {
  const n = state.dice.length;
  for (let k = 1; k <= n; k++) { const i = (from + k) % n; if (state.dice[i] === null) return i; }
  return (from + 1) % n;
}
function setFace(f) {
  state.dice[state.cursor] = f;
  state.cursor = nextEmpty(state.cursor);
  state.showAll = false;
  const focused = document.activeElement && document.activeElement.id;
  renderDice();
  if (focused && $(focused)) $(focused).focus();
  refresh();
}
function cycleDie(i, step) {
  const faces = state.v.die_faces[i];
  const at = faces.indexOf(state.dice[i]);
  state.dice[i] = at < 0 ? faces[step > 0 ? 0 : faces.length - 1] : faces[(at + step + faces.length) % faces.length];
  state.cursor = i;
  refresh();
}
function dieKey(ev, i) {
  const faces = state.v.die_faces[i];
  if (ev.key === "ArrowUp" || ev.key === "+") { cycleDie(i, 1); ev.preventDefault(); }
  else if (ev.key === "ArrowDown" || ev.key === "-") { cycleDie(i, -1); ev.preventDefault(); }
  else if (/^[0-9]$/.test(ev.key) && faces.includes(Number(ev.key))) {
    state.cursor = i; setFace(Number(ev.key));
    $(`die-${state.cursor}`).focus();
    ev.preventDefault();
  } else if (ev.key === "Backspace" || ev.key === "Delete") {
    state.dice[i] = null; state.cursor = i; state.advice = null; refresh(); ev.preventDefault();
  }
}
function setRoll(r) { state.roll = r; state.showAll = false; refresh(); }
function nextRoll() {
  const a = state.advice;
  if (!a || a.action !== "keep" || state.pending) return;
  const kept = keptDice();
  if (kept.size === state.dice.length) { // stop rolling: the box now, at this roll (a served hand keeps its bonus)
    state.stoppedAt = situationKey();
    state.focusNext = "option-0";
    refresh();
    return;
  }
  state.dice = state.dice.map((d, i) => (kept.has(i) ? d : null));
  state.cursor = state.dice.findIndex((d) => d === null);
  state.roll = Math.min(3, state.roll + 1);
  state.advice = null;
  state.showAll = false;
  state.focusNext = `die-${state.cursor}`;
  refresh();
}
function fillBox(option) {
  pushUndo();
  // the advice's card is the card as the rules count it: a bonus typed before its box is paid with the box, once
  const counted = state.advice ? parseCardText(state.advice.card).extra : state.extra;
  state.card[option.box] = option.points;
  state.extra = counted + option.extra;
  endTurn();
  state.focusNext = "die-0"; // the keyboard goes on with the next roll's dice
  refresh();
}
async function editBox(key, text, unreadable) {
  if (unreadable) { renderCard(); return; } // '1-2', 'e': the browser reads no number; the box stays as it was
  const points = Number(text);
  // a free box filled by hand while a roll is shown uses that roll, as Fill does: advice on it again would count it
  // twice (points the rules cannot take, -3 or 2.5, end no turn: the refusal is shown and the roll stays)
  const move = !(key in state.card) && text.trim() !== "" && Number.isSafeInteger(points) && points >= 0 && diceComplete();
  const extra = move && state.v.extra_points ? await extraWithBox(key, points) : null;
  pushUndo();
  if (text.trim() === "") delete state.card[key];
  else state.card[key] = Number.isSafeInteger(points) ? points : text.trim(); // as typed: the server names a refusal
  if (extra !== null) state.extra = extra;
  if (move) endTurn();
  refresh();
}
async function extraWithBox(key, points) {
  // the card's extra points once this box takes the roll shown, as Fill counts them (a further Kniffel's bonus
  // paid with its box, a bonus typed before it paid once); null where no option of the rules is that entry
  const q = { variant: state.v.variant, card: cardText(), dice: diceText(), roll: String(state.roll), box: "1", all: "1" };
  const res = await api("/api/advise", q);
  const option = res.ok ? res.body.options.find((o) => o.kind === "box" && o.box === key && o.points === points) : null;
  return option ? parseCardText(res.body.card).extra + option.extra : null;
}
function endTurn() {
  state.dice = Array(state.v.dice).fill(null);
  state.cursor = 0;
  state.roll = 1;
  state.advice = null;
  state.showAll = false;
}
function editExtra(text, unreadable) {
  if (unreadable) { renderCard(); return; }
  pushUndo();
  const points = Number(text);
  state.extra = text.trim() === "" ? 0 : Number.isSafeInteger(points) ? points : text.trim(); // as typed, as a box is
  refresh();
}
function undo() {
  const s = state.undo.pop();
  if (!s) return;
  Object.assign(state, { card: s.card, extra: s.extra, dice: s.dice, roll: s.roll, advice: null });
  state.cursor = Math.max(0, state.dice.findIndex((d) => d === null));
  refresh();
}

// ---- start --------------------------------------------------------------------------------------
async function start() {
  await loadTexts(null); // the browser's language first (or English), until the game is known
  const res = await api("/api/variants");
  if (!res.ok) { showText($("error"), res.body.error); return; }
  state.variants = res.body;
  for (const v of state.variants) {
    const o = document.createElement("option");
    o.value = v.variant;
    $("variant").appendChild(o);
  }
  titles();
  const q = new URLSearchParams(location.search);
  if (/^[0-9]{1,6}$/.test(q.get("target") || "")) state.target = Number(q.get("target"));
  const stored = loadGame();
  const byName = (n) => state.variants.find((v) => v.variant === n || v.aliases.includes(n));
  if (stored) { state.game = true; $("game-mode").checked = true; }
  if (q.has("variant") || q.has("card") || q.has("dice") || q.has("target")) {
    const v = byName(q.get("variant") || "kniffel");
    setVariant(v ? v.variant : "kniffel", false);
    if (!v) $("error").textContent = T("web_unknown_variant", { name: q.get("variant") });
    // the game of the link's variant: its undo steps, and where the link's card is another, one Undo back to it
    const mine = state.game ? loadGame(state.v.variant) || (stored && stored.variant === state.v.variant ? stored : null) : null;
    if (mine) {
      const kept = { card: mine.card || {}, extra: mine.extra || 0, dice: [...state.dice], roll: 1 };
      state.undo = mine.undo || [];
      if (cardText(kept.card, kept.extra) !== (q.get("card") || "")) state.undo = [...state.undo, kept];
    }
    await speak(preferredLang());
    wire(); // the controls work at once: a move made while the URL's situation loads wins over it
    await loadSituation(q.get("card") || "", q.get("dice") || "", q.get("roll") || "1", q.get("box") === "1");
  } else {
    if (stored && byName(stored.variant)) {
      setVariant(byName(stored.variant).variant, false);
      resumeGame(stored);
    } else setVariant("kniffel", false);
    await speak(preferredLang());
    wire();
    refresh();
  }
}

function keepLinkCard(text) {
  // a card the rules refuse stays on the pad as the link wrote it, where it is in the page's own form (box=points):
  // the error names the entry to correct (an empty pad lost the card at the next move, which rewrites the link)
  const keys = new Set([...state.v.boxes.map((b) => b.key), "extra"]);
  const parts = text.split(",").filter(Boolean);
  if (parts.every((p) => /^[a-z_0-9]+=[^=]*$/.test(p) && keys.has(p.split("=")[0]))) Object.assign(state, parseCardText(text));
}
async function loadSituation(card, dice, roll, stopped) {
  // the URL's card and dice, as the server reads them (names in either language, any dice form)
  const seq = state.seq;
  const failed = (res) => { state.pending = false; state.loading = false; renderAll(); showText($("error"), res.body.error); };
  state.pending = true;
  state.loading = true; // a language chosen meanwhile is no move: this situation still loads
  renderAll();
  const value = await api("/api/value", { variant: state.v.variant, card });
  if (seq !== state.seq) { state.loading = false; return; } // the player made a move meanwhile
  if (!value.ok) { keepLinkCard(card); failed(value); return; }
  const pad = parseCardText(value.body.card); // the card at the turn's start ...
  pad.extra += value.body.bonus_waiting || 0; // ... and a bonus marked before its box, as the player wrote it
  Object.assign(state, pad);
  if (dice) {
    const r = ["1", "2", "3"].includes(roll) ? Number(roll) : 1;
    const adv = await api("/api/advise", { variant: state.v.variant, card, dice, roll: String(r) });
    if (seq !== state.seq) { state.loading = false; return; }
    if (!adv.ok) { failed(adv); return; }
    Object.assign(state, { dice: adv.body.dice, roll: r, cursor: 0 });
    if (stopped) state.stoppedAt = situationKey();
  }
  state.loading = false;
  refresh();
}

function setTarget(text) {
  const t = text.trim() === "" ? null : Math.round(Number(text));
  state.target = t !== null && Number.isFinite(t) ? t : null;
  state.showAll = false;
  state.chances = null;
  refresh();
}

function wire() {
  // a box ticked before the page was ready (or restored by the browser on reload) counts
  if ($("game-mode").checked !== state.game) { state.game = $("game-mode").checked; saveGame(); }
  $("variant").addEventListener("change", async (ev) => {
    setVariant(ev.target.value, false);
    if (state.game) resumeGame(loadGame(state.v.variant)); // the game of this variant goes on where it was left
    await speak(preferredLang());
    refresh();
  });
  $("target").addEventListener("change", (ev) => setTarget(ev.target.value));
  $("lang").addEventListener("change", async (ev) => {
    try { localStorage.setItem(LANG_KEY, ev.target.value); } catch (e) { /* not remembered: this tab still speaks it */ }
    await speak(ev.target.value);
    if (!state.loading) refresh(); // the advice and its texts again, in the new language
  });
  $("game-mode").addEventListener("change", (ev) => {
    state.game = ev.target.checked;
    if (state.game) saveGame(); else forgetGames();
  });
  document.querySelectorAll("#rolls button").forEach((b) => b.addEventListener("click", () => setRoll(Number(b.dataset.roll))));
  $("next-roll").addEventListener("click", nextRoll);
  $("clear-dice").addEventListener("click", () => { state.dice = state.dice.map(() => null); state.cursor = 0; state.roll = 1; state.advice = null; refresh(); });
  $("undo").addEventListener("click", undo);
  $("clear-card").addEventListener("click", () => { pushUndo(); state.card = {}; state.extra = 0; state.dice = state.dice.map(() => null); state.cursor = 0; state.roll = 1; refresh(); });
  $("share").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(location.href); $("share").textContent = T("web_link_copied"); }
    catch (e) { $("share").textContent = T("web_copy_address"); }
    setTimeout(() => { $("share").textContent = T("web_share"); }, 2000);
  });
  document.body.dataset.ready = "true"; // every control is wired (the browser tests wait for this)
}

let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => { if (state.chartData && !$("chart").hidden) drawChart(state.chartData); }, 150);
});
document.addEventListener("DOMContentLoaded", start);
