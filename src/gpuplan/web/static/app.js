// gpuplan dashboard: calls /api/v1 with the pasted token; every page's behaviour is below.
"use strict";
(function () {
  const T = window.T || {};
  const t = (w) => T[w] || w;
  // the catalog's codes in the page's language (the API answers with the codes)
  const confidence = (c) => c == null ? t("unknown") : T[`confidence:${c}`] || c;
  const pricingWords = (k) => T[`pricing:${k}`] || t(k);
  const body = document.body;
  const lang = body.dataset.lang || "en";
  // a label's colon and a list's comma as the page's language writes them: full-width in Chinese
  const colon = lang === "zh" ? "：" : ": ";
  const comma = lang === "zh" ? "，" : ", ";
  const $ = (sel) => document.querySelector(sel);
  const tokenBox = $("#token");
  tokenBox.value = localStorage.getItem("gpuplan_token") || "";
  tokenBox.addEventListener("change", () => localStorage.setItem("gpuplan_token", tokenBox.value.trim()));
  // What a page loads with the token: now if there is one, and again when another one is pasted.
  const withToken = (load) => {
    let used = tokenBox.value.trim();
    if (used) load().catch(() => {});
    tokenBox.addEventListener("change", () => {
      const now = tokenBox.value.trim();
      if (now && now !== used) { used = now; load().catch(() => {}); }
    });
  };

  // Each request and each error line gets the next number: a request that answers clears only an
  // error older than itself (a refusal shown while the page's data was still loading had been wiped
  // by that load's answer).
  let seq = 0, errorSeq = 0;
  function showError(text) {
    const box = $("#error");
    box.textContent = text || "";
    box.hidden = !text;
    errorSeq = ++seq;
  }

  // The form fields a request names otherwise than the form does.
  const FIELD_CONTROLS = { budget_usd: "budget", budget_cny: "budget", amount_usd: "amount", amount_cny: "amount", hours_per_month: "hours" };
  // The page's own label of the form control a request field comes from ("" where it has none).
  function fieldLabel(field) {
    const last = String(field || "").split(".").pop();
    const name = FIELD_CONTROLS[last] || last;
    const control = name && document.querySelector(`main [name="${CSS.escape(name)}"]`);
    const label = control && control.closest("label");
    return label ? Array.from(label.childNodes).filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join("").trim() : "";
  }
  // A refused request as its reader can act on it: a value refused is named by the form's own label
  // (the server's line begins with the field's path, query.max_price: …, which is for programs).
  function refusal(doc) {
    if (!doc || !doc.error) return "";
    if (doc.message == null) return doc.error;
    const label = fieldLabel(doc.field);
    if (label) return `${label}${colon}${doc.message}`;
    return doc.field ? `${doc.message} (${doc.field})` : doc.message;
  }

  async function api(method, path, payload, opts) {
    const token = (tokenBox.value || "").trim();
    if (!token) { showError(t("Paste a token first (gpuplan serve token create).")); throw new Error("no token"); }
    localStorage.setItem("gpuplan_token", token);
    const headers = { Authorization: "Bearer " + token, "Accept-Language": lang };
    if (payload !== undefined) headers["Content-Type"] = "application/json";
    const sep = path.includes("?") ? "&" : "?";
    const started = ++seq;
    const res = await fetch(path + sep + "lang=" + lang, {
      method, headers, body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    if (!res.ok) {
      let line = res.status + " " + res.statusText;
      try { line = refusal(await res.json()) || line; } catch (e) { /* not JSON */ }
      showError(line);
      throw new Error(line);
    }
    if (errorSeq < started) showError("");
    if (opts && opts.text) return { status: res.status, text: await res.text() };
    return { status: res.status, data: await res.json() };
  }

  // A 202 answer is a job: poll it until it is done, showing its progress.
  async function finished(answer, statusBox) {
    if (answer.status !== 202) return answer;
    let job = answer.data;
    while (job.status === "queued" || job.status === "running") {
      if (statusBox) {
        statusBox.innerHTML = "";
        const bar = document.createElement("progress");
        bar.max = 1; bar.value = job.progress;
        statusBox.append(t(job.status) + " ", bar, " " + (job.message || ""));
      }
      await new Promise((r) => setTimeout(r, 1000));
      job = (await api("GET", job.href)).data;
    }
    if (statusBox) statusBox.textContent = t(job.status);
    // failed: why; cancelled (by its owner or an admin): who cancelled it. Neither has a result.
    if (job.status === "failed" || job.status === "cancelled") { showError(job.error); throw new Error(job.error); }
    return { status: 200, data: job.result, job };
  }

  const money = (x, cur) => x == null ? t("unknown") :
    (cur === "CNY" ? "¥" : "$") + Number(x).toLocaleString(lang === "zh" ? "zh-CN" : "en-US", { maximumFractionDigits: 2, minimumFractionDigits: 2 });
  const num = (x, d) => x == null ? t("unknown") : Number(x).toFixed(d == null ? 2 : d);
  // A translated template with its {fields} filled in.
  const fill = (s, v) => s.replace(/\{(\w+)\}/g, (m, k) => v[k] !== undefined ? String(v[k]) : m);
  // A USD amount of a plan document in the currency it was planned in, at the document's own rate.
  const docMoney = (usd, doc) => {
    const r = doc && doc.exchange_rate;
    return doc && doc.display_currency === "CNY" && r && usd != null ? money(usd * r.units_per_usd, "CNY") : money(usd);
  };
  // A time the server keeps in UTC, in the reader's time zone and words.
  const when = (iso) => {
    const d = iso ? new Date(iso) : null;
    return d && !isNaN(d) ? d.toLocaleString(lang === "zh" ? "zh-CN" : "en-US", { dateStyle: "medium", timeStyle: "short" }) : (iso || "");
  };
  // How old a price is, as `gpuplan offers` says it (days, months, years).
  function ageText(days) {
    if (days == null) return "?";
    if (days < 60) return fill(t("{n} d"), { n: days });
    if (days < 730) return fill(t("{n} mo"), { n: Math.round(days / 30.44) });
    return fill(t("{n} y"), { n: (days / 365.25).toFixed(1) });
  }
  // A price not known to be current says so beside its date: stale past the limit, or of unknown age.
  function ageFlag(o) {
    if (o.staleness === "stale") return fill(t("stale ({age})"), { age: ageText(o.age_days) });
    if (o.staleness === "unknown" && o.age_bound_launch && o.gpu) {
      // the source's interval reaches back before the GPU launched: the launch bounds the age
      return fill(t("age unknown (at most {age}: the {gpu} launched {launched})"), {
        age: ageText(o.age_days), gpu: o.gpu, launched: o.age_bound_launch,
      });
    }
    if (o.staleness === "unknown") return fill(t("age unknown (up to {age})"), { age: ageText(o.age_days) });
    return o.stale ? t("stale") : "";
  }
  function dated(o) {
    const flag = ageFlag(o);
    if (!flag) return { text: o.as_of || "", sort: o.as_of };
    const span = document.createElement("span"), mark = document.createElement("span");
    mark.className = "stale agewarn"; mark.textContent = flag;
    span.append((o.as_of || "") + " ", mark);
    return { node: span, sort: o.as_of };
  }

  // A table whose columns sort on a click (numbers as numbers, unknown last).
  function table(box, headers, rows, numeric) {
    const el = document.createElement("table");
    const head = el.createTHead().insertRow();
    let order = { col: -1, dir: 1 };
    headers.forEach((h, i) => {
      const th = document.createElement("th");
      th.textContent = h; th.scope = "col";
      th.addEventListener("click", () => {
        order = { col: i, dir: order.col === i ? -order.dir : 1 };
        const key = (r) => r[i] && r[i].sort !== undefined ? r[i].sort : (r[i] && r[i].text !== undefined ? r[i].text : r[i]);
        rows.sort((a, b) => {
          const x = key(a), y = key(b);
          if (x == null) return 1; if (y == null) return -1;
          return (x < y ? -1 : x > y ? 1 : 0) * order.dir;
        });
        fill();
      });
      head.append(th);
    });
    const tb = el.createTBody();
    function fill() {
      tb.innerHTML = "";
      rows.forEach((r) => {
        const tr = tb.insertRow();
        r.forEach((c, i) => {
          const td = tr.insertCell();
          if (c && c.node) td.append(c.node); else td.textContent = c && c.text !== undefined ? c.text : (c == null ? "" : c);
          if (numeric && numeric.includes(i)) td.className = "num";
        });
      });
    }
    fill();
    box.innerHTML = ""; box.append(el);
  }

  function formData(form) {
    const out = {};
    new FormData(form).forEach((v, k) => { out[k] = typeof v === "string" ? v.trim() : v; });
    form.querySelectorAll("input[type=checkbox]").forEach((c) => { out[c.name] = c.checked; });
    return out;
  }
  const list = (s) => s ? s.split(",").map((x) => x.trim()).filter(Boolean) : null;

  // ---------------------------------------------------------------- offers
  // The map's cheapest GPU-hours in the offers' currency: yuan at the offers document's rate (the
  // countries' document has dollars only; the map had said $ beside a table in ¥).
  function mapSvg(doc, cur, rate) {
    const price = (usd) => cur === "CNY" && rate ? money(usd * rate.units_per_usd, "CNY") : money(usd);
    const W = 720, H = 360, x = (lon) => (lon + 180) / 360 * W, y = (lat) => (90 - lat) / 180 * H;
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`); svg.setAttribute("role", "img");
    const add = (tag, attrs, parent) => { const e = document.createElementNS(ns, tag); for (const k in attrs) e.setAttribute(k, attrs[k]); (parent || svg).append(e); return e; };
    add("rect", { x: 0, y: 0, width: W, height: H, fill: "#eef3fa" });
    for (let lon = -150; lon <= 150; lon += 30) add("line", { x1: x(lon), x2: x(lon), y1: 0, y2: H, stroke: "#d5dfec" });
    for (let lat = -60; lat <= 60; lat += 30) add("line", { x1: 0, x2: W, y1: y(lat), y2: y(lat), stroke: lat === 0 ? "#b9c8dc" : "#d5dfec" });
    const placed = doc.countries.filter((c) => c.latitude != null && c.cheapest_usd_per_gpu_hour != null);
    const prices = placed.map((c) => c.cheapest_usd_per_gpu_hour);
    const lo = Math.min(...prices), hi = Math.max(...prices);
    placed.forEach((c) => {
      const f = hi > lo ? (c.cheapest_usd_per_gpu_hour - lo) / (hi - lo) : 0;
      const color = `hsl(${Math.round(120 * (1 - f))}, 65%, 42%)`;
      const dot = add("circle", { cx: x(c.longitude), cy: y(c.latitude), r: 4 + 2.2 * Math.sqrt(c.offers), fill: color, "fill-opacity": 0.75, stroke: "#fff", "data-country": c.country });
      add("title", {}, dot).textContent = `${c.name}${colon}${c.offers} · ${price(c.cheapest_usd_per_gpu_hour)}/GPU·h (${c.cheapest})`;
      const label = add("text", { x: x(c.longitude) + 6, y: y(c.latitude) - 6, "font-size": 11, fill: "#1d2330" });
      label.textContent = c.country;
    });
    return svg;
  }

  // Yuan amounts name the rate they were converted at, its date, and the server's warning when it is old.
  function rateNote(el, doc, cur) {
    const r = doc.exchange_rate;
    el.textContent = cur === "CNY" && r ? `${t("Exchange rate")}${colon}1 USD = ${num(r.units_per_usd, 4)} CNY (${r.as_of || "?"}; ${r.source})${r.warning ? " " + r.warning : ""}` : "";
    el.classList.toggle("stale", Boolean(cur === "CNY" && r && r.stale));
  }

  async function offersPage() {
    const form = $("#filters");
    let latest = 0;  // an older search answering late does not overwrite a newer one
    async function search(ev) {
      if (ev) ev.preventDefault();
      const f = formData(form);
      const q = new URLSearchParams();
      for (const k of ["gpu", "provider", "pricing", "currency", "max_price"]) if (f[k]) q.set(k, f[k]);
      const cur = f.currency || "USD", mine = ++latest;
      const [offers, countries] = await Promise.all([
        api("GET", "/api/v1/offers?" + q), api("GET", "/api/v1/offers/countries?" + q)]);
      if (mine !== latest) return;
      const perHour = cur === "CNY" ? "price_cny_per_hour" : "price_usd_per_hour";
      const perGpu = cur === "CNY" ? "price_cny_per_gpu_hour" : "price_usd_per_gpu_hour";
      // What plans cost a price at, where it is not the price itself (a spot price undated, or older
      // than the limit, below a dated one): the document's price fields carry it, and its floor the
      // offer's own figure, which the price columns show; its basis and date on hover.
      const own = (o, key) => o.floor ? o.floor[key.replace("price_", "best_case_")] : o[key];
      function costed(o) {
        if (!o.floor) return { text: "", sort: o[perHour] };
        const span = document.createElement("span");
        span.textContent = money(o[perHour], cur); span.className = "costed";
        span.title = `${o.floor.what} (${o.floor.as_of}${o.floor.source ? "; " + o.floor.source : ""})`;
        return { node: span, sort: o[perHour] };
      }
      const rows = offers.data.offers.map((o) => [o.provider, o.region, o.instance_type, `${o.gpu_count}× ${o.gpu}`, t(o.pricing),
        { text: money(own(o, perHour), cur), sort: own(o, perHour) }, { text: money(own(o, perGpu), cur), sort: own(o, perGpu) }, costed(o), dated(o), confidence(o.confidence)]);
      $("#count").textContent = `(${rows.length})`;
      rateNote($("#rate"), offers.data, cur);
      table($("#table"), [t("Provider"), t("Region"), t("Instance"), t("GPU"), t("Pricing"), t("Price/h"), t("Price/GPU·h"), t("Costed at/h"), t("As of"), t("Confidence")], rows, [5, 6, 7]);
      const map = $("#map"); map.innerHTML = "";
      const doc = countries.data;
      if (doc.map_source) map.append(mapSvg(doc, cur, offers.data.exchange_rate));
      const legend = document.createElement("div"); legend.className = "legend";
      legend.textContent = doc.map_source ? `${t("dots: offers per country; colour: cheapest GPU-hour (green cheap, red dear)")} — ${doc.map_source}` : t("no map: this server has no time zone table to place countries");
      map.append(legend);
    }
    form.addEventListener("submit", search);
    withToken(search);
  }

  // ---------------------------------------------------------------- plan
  function workloadFrom(f) {
    const w = { name: f.name || "my-job", task: f.task, model: { preset: f.preset }, inputs: { batch_size: Number(f.batch_size) || 1 }, precision: f.precision };
    if (f.seq_len) w.inputs.seq_len = Number(f.seq_len);
    if (f.image_size) w.inputs.image_size = Number(f.image_size);
    if (f.samples) w.data = { samples: Number(f.samples), epochs: Number(f.epochs) || 1 };
    return w;
  }
  function planRequest(f) {
    const r = { workload: workloadFrom(f), currency: f.currency || "USD" };
    if (f.deadline) r.deadline = f.deadline;
    // A yuan budget is sent as such: the server converts it at the catalog's dated rate and says so.
    if (f.budget) r[f.budget_currency === "CNY" ? "budget_cny" : "budget_usd"] = Number(f.budget);
    if (f.providers) r.providers = list(f.providers);
    return r;
  }
  function summary(doc) {
    const rec = doc.recommended || {};
    const box = $("#summary"); box.innerHTML = "";
    const card = document.createElement("div"); card.className = "card"; card.id = "recommended";
    const where = `${rec.provider}/${rec.region}/${rec.instance_type} × ${rec.nodes || 1}${comma}${t(rec.pricing)}`;
    card.innerHTML = `<div>${t("Recommended")}${colon}<b></b></div><div>${t("Total cost")}${colon}<span class="cost"></span> · ${t("Job time")}${colon}<span class="time"></span> ${t("hours")}</div>`;
    card.querySelector("b").textContent = where;
    card.querySelector(".cost").textContent = docMoney(rec.total_cost_usd, doc);
    card.querySelector(".time").textContent = num(rec.job_time_h, 1);
    box.append(card);
  }
  async function planPage() {
    const form = $("#planform"), status = $("#status");
    const month = form.querySelector("[name=month]");
    month.value = new Date().toISOString().slice(0, 7);
    // Start from the BERT-Large SQuAD fine-tune of the examples folder.
    const start = { preset: "bert-large", task: "finetune", batch_size: 32, seq_len: 384, precision: "amp-fp16", samples: 88000, epochs: 2, name: "bert-large-squad" };
    for (const k in start) { const el = form.querySelector(`[name=${k}]`); if (el) el.value = start[k]; }
    async function loadSaved() {
      const found = (await api("GET", "/api/v1/workloads")).data.workloads;
      const sel = form.querySelector("[name=saved]");
      const seen = new Set();
      sel.innerHTML = "<option value=''>—</option>";
      found.forEach((w) => { if (seen.has(w.name)) return; seen.add(w.name); const o = document.createElement("option"); o.value = w.name; o.textContent = `${w.name} (v${w.version})`; sel.append(o); });
    }
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const f = formData(form), req = planRequest(f);
      status.textContent = t("running");
      const answer = await finished(await api("POST", "/api/v1/plan", req), status);
      summary(answer.data);
      const report = await api("POST", "/api/v1/plan/report", req, { text: true });
      $("#report").srcdoc = report.text;
      status.textContent = t("done");
    });
    $("#saveworkload").addEventListener("click", async () => {
      const f = formData(form);
      const answer = (await api("POST", "/api/v1/workloads", { name: f.name, workload: workloadFrom(f) }, undefined)).data;
      // The same workload as the name's newest version adds none: that version, said to be unchanged.
      const saved = answer.workloads[0];
      status.textContent = `${t(answer.unchanged ? "already saved, unchanged" : "saved")}${colon}${saved.name} v${saved.version}`;
      await loadSaved();
    });
    $("#saveplan").addEventListener("click", async () => {
      const f = formData(form);
      const name = f.saved || f.name;
      const req = Object.assign(planRequest(f), { name, month: f.month || new Date().toISOString().slice(0, 7) });
      // How often the workload runs in the month: the month's spend is the plan's cost times this.
      if (f.runs_per_month) req.runs_per_month = Number(f.runs_per_month);
      delete req.workload;
      const answer = await finished(await api("POST", "/api/v1/plans", req), status);
      const item = answer.data;
      status.textContent = `${t("saved")}${colon}#${item.id} ${item.workload} v${item.workload_version} · ${item.month} · ${docMoney(item.total_cost_usd, item.document)}`
        + (item.budget_notes || []).map((n) => ` · ${n}`).join("");  // over a budget: kept, and said
      if (item.document) summary(item.document);
    });
    withToken(loadSaved);
  }

  // ---------------------------------------------------------------- history
  // The latest day a price's date allows: a date, a month's last day, a range's end (2020-11/2026-12-03).
  function latestDay(asOf) {
    const end = String(asOf || "").split("/").pop();
    const m = /^(\d{4})-(\d{2})$/.exec(end);
    return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]), 0)).toISOString().slice(0, 10) : end;
  }
  async function historyPage() {
    const form = $("#historyform");
    let latest = 0;  // an older answer arriving late does not overwrite a newer one
    async function show(ev) {
      if (ev) ev.preventDefault();
      const f = formData(form), mine = ++latest;
      const q = new URLSearchParams({ instance: f.instance, currency: f.currency || "USD" });
      if (f.region) q.set("region", f.region);
      const doc = (await api("GET", "/api/v1/catalog/history?" + q)).data;
      if (mine !== latest) return;
      const cur = f.currency || "USD", key = cur === "CNY" ? "price_cny_per_hour" : "price_usd_per_hour";
      const series = {};
      doc.prices.forEach((p) => { const k = `${p.provider}/${p.region} ${t(p.pricing)}`; (series[k] = series[k] || []).push(p); });
      // A price dated only as a range is drawn at its latest day as an open marker, its range on hover.
      const ranged = (p) => String(p.as_of || "").includes("/");
      const traces = Object.entries(series).map(([name, ps]) => {
        ps = ps.slice().sort((a, b) => latestDay(a.as_of).localeCompare(latestDay(b.as_of)));
        return {
          name, mode: "lines+markers", x: ps.map((p) => latestDay(p.as_of)), y: ps.map((p) => p[key]), line: { shape: "hv" },
          marker: { symbol: ps.map((p) => ranged(p) ? "circle-open" : "circle"), size: 8 },
          text: ps.map((p) => ranged(p) ? fill(t("dated {range}: drawn at its latest day"), { range: p.as_of }) : p.as_of),
          hoverinfo: "name+y+text",
        };
      });
      // One dated price draws as a point in a month-wide window, not on a millisecond axis.
      const days = doc.prices.map((p) => Date.parse(latestDay(p.as_of))).filter((d) => !isNaN(d));
      const lo = Math.min(...days) - 15 * 864e5, hi = Math.max(...days) + 15 * 864e5;
      const xaxis = days.length ? { type: "date", range: [new Date(lo).toISOString().slice(0, 10), new Date(hi).toISOString().slice(0, 10)] } : {};
      const chart = $("#chart");
      if (!traces.length) chart.textContent = t("no prices for this instance");
      else if (window.Plotly) window.Plotly.newPlot(chart, traces, { height: 340, margin: { t: 20, r: 10, l: 60, b: 40 }, xaxis, yaxis: { title: { text: cur + "/h" } }, legend: { orientation: "h" }, showlegend: true }, { displaylogo: false, responsive: true });
      table($("#table"), [t("Provider"), t("Region"), t("Pricing"), t("Price/h"), t("As of"), t("Confidence")],
        doc.prices.map((p) => [p.provider, p.region, t(p.pricing), { text: money(p[key], cur), sort: p[key] }, dated(p), confidence(p.confidence)]), [3]);
      rateNote($("#rate"), doc, cur);
    }
    form.addEventListener("submit", show);
    withToken(show);
  }

  // ---------------------------------------------------------------- tco
  async function tcoPage() {
    const form = $("#tcoform");
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const f = formData(form);
      const demand = { name: "demand", gpu: f.gpu, gpus: Number(f.gpus), hours_per_month: Number(f.hours) };
      if (f.interruptible) demand.interruptible = true;
      const usage = { horizon_months: Number(f.horizon_months), start: f.start, currency: "USD", demands: [demand] };
      if (f.providers) usage.constraints = { providers: list(f.providers) };
      const doc = (await api("POST", "/api/v1/tco", { usage })).data;
      const box = $("#summary"); box.innerHTML = "";
      const card = document.createElement("div"); card.className = "card"; card.id = "tcototal";
      card.innerHTML = `<div>${t("Total over the horizon")}${colon}<b></b></div><div>${t("All on-demand")}${colon}<span class="od"></span> · ${t("Savings")}${colon}<span class="sv"></span> %</div>`;
      card.querySelector("b").textContent = money(doc.total_cost_usd);
      card.querySelector(".od").textContent = money(doc.all_on_demand_cost_usd);
      card.querySelector(".sv").textContent = num(doc.savings_pct, 1);
      // The total rests on prices known to be current: spot and commitment prices stale or of
      // unknown age (spot prices move, a commitment locks its price in) are left out of it, and the
      // cheaper total they would give is said beside it, as the tco text's headline says it; where
      // the demand cannot be met without them, the total uses them. A document of version 4 states
      // spot prices only (with_stale_spot).
      const w = doc.with_stale_prices || doc.with_stale_spot;
      if (w) {
        const n = w.prices_used ?? w.spot_prices_used;
        const kinds = new Set((w.stale_prices || []).map((p) => (p.pricing === "spot" ? "spot" : "commitment")));
        const kind = kinds.has("commitment") ? t(kinds.has("spot") ? "spot and commitment price(s)" : "commitment price(s)") : t("spot price(s)");
        const line = document.createElement("div"); line.className = "stalespot";
        line.textContent = w.needed
          ? fill(t("at {n} {kind} stale or of unknown age; without them the demand cannot be met"), { n, kind })
          : fill(t("{cheaper} with {n} {kind} stale or of unknown age, left out of it as they may have changed"), { n, kind, cheaper: money(w.total_cost_usd) });
        card.append(line);
      }
      box.append(card);
      const months = doc.monthly || [];
      const kinds = [...new Set(months.flatMap((m) => Object.keys(m.cost_usd_by_pricing || {})))];
      if (window.Plotly && months.length) {
        const traces = kinds.map((k) => ({ type: "bar", name: t(k), x: months.map((m) => m.month), y: months.map((m) => (m.cost_usd_by_pricing || {})[k] || 0) }));
        window.Plotly.newPlot($("#chart"), traces, { barmode: "stack", height: 320, margin: { t: 20, r: 10, l: 60, b: 40 }, yaxis: { title: { text: "USD" } }, legend: { orientation: "h" }, showlegend: true }, { displaylogo: false, responsive: true });
      }
      // What the solver said: commitments bought, prices left out, assumptions.
      // A commitment in words (its pricing model named in the page's language), not as the API's JSON.
      // a commitment bought at a price not known to be current (only such a price meets the need): its date said
      const bought = (c) => [`${c.units} × ${c.provider}/${c.region}/${c.instance_type} (${c.gpus_per_unit}× ${c.gpu})`, pricingWords(c.pricing),
        fill(t("from {month}, {n} months"), { month: c.start_month, n: c.term_months }), `${t("Cost")} ${money(c.cost_usd)}`]
        .concat(c.stale ? [`${t("stale")} (${c.as_of || t("date unknown")})`] : []).join(" · ");
      const rows = (doc.commitments || []).map((c) => [t("Commitment"), bought(c)]).concat((doc.notes || []).map((n) => [t("Note"), n]));
      table($("#table"), [t("Kind"), t("Note")], rows);
    });
  }

  // ---------------------------------------------------------------- simulate
  // The form as POST /api/v1/simulate takes it: an inference workload of a preset, its load (a
  // generated shape or a trace CSV), the policies, and only the options given (the server's defaults
  // are the command's).
  function simulateRequest(f, saved) {
    const prompt = Number(f.prompt_tokens) || 512, output = Number(f.output_tokens) || 256;
    const serving = { prompt_tokens: prompt, output_tokens: output };
    if (f.rate) serving.requests_per_s = Number(f.rate);
    // A saved inference workload is sent as saved (the form's load fills a serving block it lacks).
    const workload = saved ? Object.assign({}, saved.workload, { serving: saved.workload.serving || serving }) :
      { name: `${f.preset}-service`, task: "infer", model: { preset: f.preset }, inputs: { batch_size: 8, seq_len: prompt + output }, precision: f.precision, serving };
    const r = {
      workload,
      policies: (f.policies || "").split("\n").map((x) => x.trim()).filter(Boolean),
      seed: Number(f.seed) || 0,
    };
    if (saved && saved.hf_config_json) r.hf_config_json = saved.hf_config_json;
    if (f.shape === "csv") r.trace_csv = f.trace_csv;
    else { r.shape = f.shape; if (f.hours) r.hours = Number(f.hours); }
    for (const k of ["gpu", "instance", "slo", "replica", "engine", "currency"]) if (f[k]) r[k] = f[k];
    for (const k of ["on_demand_price", "spot_price", "spot_rate", "spot_notice_s", "timeout_s"]) if (f[k] !== "" && f[k] != null) r[k] = Number(f[k]);
    return r;
  }
  // What each price per replica-hour rests on, one line per pricing model: the catalog offer's
  // publisher text, date and confidence, or the user's own figure; beside a price not known to hold
  // today, why (its date) and the best price that is, or that the catalog has none. The text comes
  // from the catalog: it is set as text, never parsed as markup.
  const offerWords = (b) => `${b.provider} ${b.region} ${b.instance_type} · ${t("Price source")}${colon}${b.price_source} · ${t("As of")}${colon}${b.as_of} · ${t("Confidence")}${colon}${confidence(b.confidence)}`;
  function priceBasis(pr, doc) {
    return Object.entries(pr.basis || {}).map(([k, b]) => {
      const d = document.createElement("div");
      d.className = "basis"; d.dataset.pricing = k;
      d.textContent = `${pricingWords(k)}${colon}${b.given ? t("your own figure") : offerWords(b)}`;
      if (!b.given && b.known_current === false) {
        // a second line: why it may not hold today, and what does
        const c = b.best_known_current, why = document.createElement("div");
        why.className = "stale";
        why.textContent = [b.date_note, `${t("Best known-current price")}${colon}${c ? `${docMoney(c.usd_per_hour, doc)} · ${offerWords(c)}` : t("none in the catalog")}`].filter(Boolean).join(" · ");
        d.append(why);
      }
      return d;
    });
  }
  const seconds = (x) => x == null ? t("unknown") : x < 1 ? (x * 1000).toFixed(0) + " ms" : x.toFixed(2) + " s";
  // Money in the currency the request was answered in (its currency, or yuan for a workload
  // budgeted in yuan: the document's display_currency), at the document's own rate.
  function simulationResult(doc) {
    const box = $("#summary"); box.innerHTML = "";
    const card = document.createElement("div"); card.className = "card"; card.id = "simresult";
    const tr = doc.trace, rep = doc.replica, pr = doc.prices;
    const lines = [
      `${t("Trace")}${colon}${tr.name} · ${tr.requests.toLocaleString()} ${t("requests")} · ${num(tr.duration_s / 3600, 1)} ${t("hours")} · ${tr.synthetic ? t("synthetic") : t("recorded")}`,
      `${t("Replica")}${colon}${rep.gpu} · ${rep.slots} ${t("slots")} · ${rep.source}`,
      `${t("Prices per replica-hour")}${colon}${Object.entries(pr.usd_per_hour).map(([k, v]) => `${pricingWords(k)} ${docMoney(v, doc)}`).join(" · ")} · ${t("Spot reclaims per hour")}${colon}${num(pr.spot_interruptions_per_hour, 3)}`,
    ];
    lines.forEach((l) => { const d = document.createElement("div"); d.textContent = l; card.append(d); });
    card.append(...priceBasis(pr, doc));
    // Beside the policies' costs: the offers each is priced at where they differ, with every cost
    // at one basis, and each cost at known-current prices where one rests on a price of unknown age
    // (worded by the server in the request's language and currency).
    [doc.comparison_note, ...doc.policies.map((p) => p.known_current_note)].filter(Boolean).forEach((l) => {
      const d = document.createElement("div"); d.className = "basis-note"; d.textContent = l; card.append(d);
    });
    const rate = document.createElement("div"); rate.className = "rate";
    rateNote(rate, doc, doc.display_currency);
    if (rate.textContent) card.append(rate);
    box.append(card);
    table($("#table"), [t("Policy"), t("Cost"), t("Replica-hours"), t("Latency p50"), t("Latency p95"), t("Latency p99"), t("SLO misses"), t("Dropped"), t("Interruptions"), t("Most replicas")],
      doc.policies.map((p) => [p.name, { text: docMoney(p.cost_usd, doc), sort: p.cost_usd },
        { text: num(Object.values(p.replica_hours).reduce((a, b) => a + b, 0), 1), sort: Object.values(p.replica_hours).reduce((a, b) => a + b, 0) },
        { text: seconds(p.latency_p50_s), sort: p.latency_p50_s }, { text: seconds(p.latency_p95_s), sort: p.latency_p95_s }, { text: seconds(p.latency_p99_s), sort: p.latency_p99_s },
        { text: p.slo_miss_pct == null ? "—" : num(p.slo_miss_pct, 2) + " %", sort: p.slo_miss_pct }, p.dropped, p.interruptions, p.max_replicas]),
      [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Each SLO of each policy: its threshold, what was achieved (dropped requests counted late), met or not.
    const rows = doc.policies.flatMap((p) => p.slos.map((s) => {
      const span = document.createElement("span");
      span.textContent = s.met ? t("met") : t("missed"); span.className = s.met ? "down" : "up";
      return [p.name, s.name, seconds(s.threshold_s), { text: seconds(s.achieved_s), sort: s.achieved_s }, { node: span, sort: s.met ? 1 : 0 }];
    }));
    const slos = $("#slos"); slos.innerHTML = "";
    if (rows.length) table(slos, [t("Policy"), t("SLOs"), t("Target"), t("Achieved"), t("Status")], rows, [2, 3]);
  }
  async function simulatePage() {
    const form = $("#simform"), status = $("#status");
    const specs = {};
    async function loadSaved() {
      const sel = form.querySelector("[name=saved]");
      (await api("GET", "/api/v1/workloads")).data.workloads.forEach((w) => {
        // a saved workload is {workload, hf_config_json}; the newest version comes first
        if (!w.spec.workload || w.spec.workload.task !== "infer" || specs[w.name]) return;
        specs[w.name] = w.spec;
        const o = document.createElement("option"); o.value = w.name; o.textContent = `${w.name} (v${w.version})`; sel.append(o);
      });
    }
    // The prices' currency, said beside each price; a saved workload budgeted in yuan picks yuan, as
    // the server's default for it is, another the page's own (yuan on a Chinese page).
    const currency = form.querySelector("[name=currency]");
    const sayCurrency = () => form.querySelectorAll(".price-currency").forEach((s) => { s.textContent = currency.value; });
    currency.addEventListener("change", sayCurrency);
    form.querySelector("[name=saved]").addEventListener("change", (ev) => {
      const spec = specs[ev.target.value], c = spec && spec.workload.constraints;
      currency.value = c && c.budget_cny != null ? "CNY" : [...currency.options].find((o) => o.defaultSelected).value;
      sayCurrency();
    });
    const file = form.querySelector("[name=trace_file]");
    file.addEventListener("change", async () => {
      if (!file.files.length) return;
      form.querySelector("[name=trace_csv]").value = await file.files[0].text();
      form.querySelector("[name=shape]").value = "csv";
    });
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const f = formData(form);
      if (f.shape === "csv" && !f.trace_csv) { showError(t("Paste a trace CSV or choose a file, or pick a generated shape.")); return; }
      status.textContent = t("running");
      const answer = await finished(await api("POST", "/api/v1/simulate", simulateRequest(f, specs[f.saved])), status);
      simulationResult(answer.data);
    });
    withToken(loadSaved);
  }

  // ---------------------------------------------------------------- team
  // The date of the prices a saved plan rests on, marked as an offer's is when they are not known
  // to be current today (the server ages them by the catalog's rule).
  const planDated = (asOf, staleness, ageDays) => asOf ? dated({ as_of: asOf, staleness, age_days: ageDays }) : t("date unknown");
  // A budget typed in a form (a month's or a year's), as the API takes it: a yuan budget as such (the
  // server keeps its dollars at the catalog's dated rate and says so). null for an empty or unreadable
  // field (a number field reads "" for text it cannot parse: no budget of 0), a negative one, or 0 yuan.
  const budgetBody = (text, currency) => {
    const amount = text === "" ? NaN : Number(text), yuan = currency === "CNY";
    if (!Number.isFinite(amount) || amount < 0 || (yuan && amount === 0)) return null;
    return yuan ? { amount_cny: amount } : { amount_usd: amount };
  };
  // A year's budget, its planned spend so far and what remains, in the currency `cur` it was given in;
  // `figure(k)` reads the budget's, planned or remaining amount in it (null: unknown, never 0).
  const yearWords = (year, cur, figure) => fill(t("Year {year}: budget {budget} · planned {planned} · remaining {remaining}"), {
    year, budget: money(figure("budget"), cur), planned: money(figure("planned"), cur),
    remaining: figure("remaining") == null ? "—" : money(figure("remaining"), cur) });
  async function teamPage() {
    const form = $("#budgetform");
    const monthBox = form.querySelector("[name=month]");
    monthBox.value = new Date().toISOString().slice(0, 7);
    let planned = 0;  // the saved plans a price check plans again
    let shownTeam = "";  // the team whose budget and plans are shown: the price check is of its plans
    // One team's budget and plans, or (no team given) the whole service's with each team's beside it.
    const teamQuery = () => { const team = form.querySelector("[name=team]").value.trim(); return team ? `?team=${encodeURIComponent(team)}` : ""; };
    let loads = 0;  // the newest load: an older one's answers, arriving after it, are not shown
    async function load() {
      const month = monthBox.value, q = teamQuery(), mine = ++loads;
      shownTeam = q;
      const [budget, plans, workloads] = await Promise.all([
        api("GET", `/api/v1/budget/${month}${q}`), api("GET", `/api/v1/plans${q}`), api("GET", "/api/v1/workloads")]);
      if (mine !== loads) return;
      const b = budget.data, box = $("#budget");
      box.innerHTML = "";
      const card = document.createElement("div"); card.className = "card"; card.id = "budgetcard";
      // A budget is said in the currency it was given in (a yuan budget is compared in yuan by the
      // server: used_pct, planned_cny, remaining_cny), as each team's line in its own; with no
      // budget, in the one the server shows it in (yuan where every budget and plan beside it is).
      const shownIn = (x) => x.display_currency || x.currency;
      const inBudget = (x, k) => (shownIn(x) === "CNY" ? money(x[`${k}_cny`], "CNY") : money(x[`${k}_usd`]));
      const sortBudget = (x, k) => (shownIn(x) === "CNY" ? x[`${k}_cny`] : x[`${k}_usd`]);
      const used = b.used_pct ? Math.min(100, b.used_pct) : 0;
      card.innerHTML = `<div>${t("Budget")}${colon}<b class="amount"></b> · ${t("Planned")}${colon}<span class="planned"></span><span class="current"></span> · ${t("Remaining")}${colon}<span class="remaining"></span></div><div class="meter"><span></span></div><div class="legend"></div><div class="year"></div><div class="note"></div><div class="budgetnotes" role="note"></div>`;
      const remaining = sortBudget(b, "remaining");
      card.querySelector(".amount").textContent = b.currency == null ? t("no budget set") : inBudget(b, "budget");
      card.querySelector(".planned").textContent = inBudget(b, "planned");
      // plans on a stale or undated price: the spend on prices known to be current beside it
      if (b.stale_price_plans) card.querySelector(".current").textContent = ` (${t("On current prices")}${colon}${inBudget(b, "planned_current")})`;
      // plans of unknown cost are not counted: what remains is at most the figure
      const left = (x) => (x.unknown_cost_plans ? fill(t("at most {amount}"), { amount: inBudget(x, "remaining") }) : inBudget(x, "remaining"));
      card.querySelector(".remaining").textContent = remaining == null ? "—" : left(b);
      const bar = card.querySelector(".meter span"); bar.style.width = used + "%";
      if (remaining != null && remaining < 0) bar.className = "over";
      // The year's budget (PUT /api/v1/budget/YYYY), where one is set: its planned spend so far and what
      // remains, in the currency it was given in, as the server counts each month.
      if (b.year_budget_usd != null || b.year_budget_cny != null) {
        const yc = b.year_budget_cny != null ? "CNY" : "USD";
        card.querySelector(".year").textContent = yearWords(month.slice(0, 4), yc, (k) => b[`year_${k}_${yc.toLowerCase()}`]);
      }
      // The budget's note: the team's words, and for a budget given in yuan the conversion it was kept at.
      if (b.note) card.querySelector(".note").textContent = b.note;
      // The server's notes: the teams' budgets adding up past the whole service's (allowed, but said).
      (b.notes || []).forEach((n) => { const line = document.createElement("div"); line.textContent = n; card.querySelector(".budgetnotes").append(line); });
      if (b.unknown_cost_plans) card.querySelector(".legend").textContent = `${b.unknown_cost_plans}${colon}${t("plans whose cost is unknown are not counted")}`;
      box.append(card);
      $("#teams").innerHTML = "";
      if (b.teams && b.teams.length) table($("#teams"), [t("Team"), t("Budget"), t("Planned"), t("On current prices"), t("Remaining")],
        b.teams.map((x) => [x.team, { text: x.currency == null ? t("no budget set") : inBudget(x, "budget"), sort: sortBudget(x, "budget") },
          { text: inBudget(x, "planned"), sort: sortBudget(x, "planned") },
          { text: inBudget(x, "planned_current"), sort: sortBudget(x, "planned_current") },
          { text: sortBudget(x, "remaining") == null ? "—" : left(x), sort: sortBudget(x, "remaining") }]), [1, 2, 3, 4]);
      planned = plans.data.plans.filter((p) => p.status === "planned").length;
      // a plan the budget counts: its words as the budget says them, in the budget's currency
      const counted = new Map((b.plans || []).map((x) => [x.id, x]));
      table($("#plans"), ["#", t("Workload"), t("Version"), t("Month"), t("Total cost"), t("Runs in the month"), t("Month's cost"), t("On current prices"), t("Priced as"), t("Prices as of"), t("Recommended"), t("Who"), t("Team"), t("When"), t("Status"), ""],
        plans.data.plans.map((p) => {
          let action = "";
          if (p.status === "planned") {
            const btn = document.createElement("button"); btn.type = "button"; btn.textContent = t("Cancel");
            btn.addEventListener("click", async () => { await api("POST", `/api/v1/plans/${p.id}/cancel`); load(); });
            action = { node: btn, text: "" };
          }
          // beside a yuan budget (or none, where all is in yuan), each plan's cost in the yuan it is counted in
          const yuan = shownIn(b) === "CNY" && p.month_cost_cny != null;
          const runCost = yuan ? p.total_cost_cny : p.total_cost_usd, monthCost = yuan ? p.month_cost_cny : p.month_cost_usd;
          // a plan on a stale or undated price: the month of its best option on prices known to be current, named
          const currentCost = yuan ? p.current_month_cost_cny : p.current_month_cost_usd;
          const current = p.prices_current_when_planned ? { text: money(currentCost, yuan ? "CNY" : "USD"), sort: currentCost }
            : currentCost == null ? t("no option on current prices") : { text: `${money(currentCost, yuan ? "CNY" : "USD")} (${p.current_option})`, sort: currentCost };
          return [p.id, p.workload, p.workload_version, p.month, { text: money(runCost, yuan ? "CNY" : "USD"), sort: runCost },
            // a service: whether the month's cost is its autoscaled day (the peak fleet beside it) or its peak fleet
            p.runs_per_month, { text: money(monthCost, yuan ? "CNY" : "USD"), sort: monthCost }, current, (counted.get(p.id) || p).cost_basis_words || "—", planDated(p.prices_as_of, p.prices_staleness, p.prices_age_days), p.recommended, p.created_by, p.team || "—", { text: when(p.created_at), sort: p.created_at }, t(p.status), action];
        }), [4, 5, 6, 7]);
      // The month's plans whose runs share a commitment or a data copy (the month is then not a run
      // times its runs): each by part, in the budget's currency, as the server words it.
      const notes = $("#monthnotes"); notes.innerHTML = "";
      (b.plans || []).filter((p) => p.month_note).forEach((p) => {
        const line = document.createElement("div"); line.className = "monthnote";
        line.textContent = `#${p.id} ${p.workload}${colon}${p.month_note}`; notes.append(line);
      });
      table($("#workloads"), [t("Workload"), t("Version"), t("Saved by"), t("When")],
        workloads.data.workloads.map((w) => [w.name, w.version, w.saved_by, { text: when(w.saved_at), sort: w.saved_at }]));
    }
    monthBox.addEventListener("change", () => load().catch(() => {}));
    form.querySelector("[name=team]").addEventListener("change", () => { $("#yearstatus").textContent = ""; load().catch(() => {}); });
    $("#setbudget").addEventListener("click", async () => {
      const f = formData(form), sent = budgetBody(f.amount, f.amount_currency);
      if (!sent) { showError(t("Give the month's budget as a number, 0 or more (in yuan: more than 0).")); return; }
      await api("PUT", `/api/v1/budget/${f.month}${teamQuery()}`, sent);
      await load();
    });
    // The year's budget (PUT /api/v1/budget/YYYY) of the team in the Team box (none: the whole
    // service's), refused as the month's is before anything is sent; its figures and the server's notes
    // (a year over its budget) said under the form, and the month's card loaded again (its year line).
    const yearForm = $("#yearbudgetform");
    yearForm.querySelector("[name=year]").value = monthBox.value.slice(0, 4);
    $("#setyearbudget").addEventListener("click", async () => {
      const f = formData(yearForm), sent = budgetBody(f.year_amount, f.year_amount_currency);
      if (!/^[0-9]{4}$/.test(f.year)) { showError(t("Give the year as YYYY, e.g. 2027.")); return; }
      if (!sent) { showError(t("Give the year's budget as a number, 0 or more (in yuan: more than 0).")); return; }
      const y = (await api("PUT", `/api/v1/budget/${f.year}${teamQuery()}`, sent)).data;
      const box = $("#yearstatus"), yc = y.currency || y.display_currency;
      box.textContent = yearWords(y.year, yc, (k) => y[`${k}_${yc.toLowerCase()}`]);
      (y.notes || []).forEach((n) => { const line = document.createElement("div"); line.textContent = n; box.append(line); });
      await load();
    });
    $("#changes").addEventListener("click", async () => {
      // Each saved plan is planned again on today's prices (seconds): the button waits, the table says so.
      const button = $("#changes"), box = $("#changestable");
      const wait = document.createElement("div"), bar = document.createElement("progress");
      wait.id = "checking"; wait.setAttribute("role", "status");
      wait.append(bar, " " + fill(t("Checking today's prices of the saved plans ({n})…"), { n: planned }));
      box.innerHTML = ""; box.append(wait); box.setAttribute("aria-busy", "true"); button.disabled = true;
      let doc;
      // The shown team's plans (the server keeps a team's token to its own team's).
      try { doc = (await api("GET", `/api/v1/price-changes${shownTeam}`)).data; } finally {
        wait.remove(); box.removeAttribute("aria-busy"); button.disabled = false;
      }
      // Each plan in the currency of the budget it counts in (its team's for its month): in yuan, then
      // as that budget counts the plan (at the rate it was priced at), today's at the catalog's newest
      // rate, named with its date under the table. Sorted by US dollars, which every plan has.
      const inYuan = (c) => c.currency === "CNY" && doc.exchange_rate != null;
      table($("#changestable"), ["#", t("Workload"), t("Team"), t("Month"), t("Recommended"), t("Cost then"), t("Prices as of"), t("Cost now"), t("Change"), t("Today's best"), t("Note")],
        doc.plans.map((c) => {
          const cur = inYuan(c) ? "CNY" : "USD", k = cur.toLowerCase();
          const change = c[cur === "CNY" ? "change_cny_pct" : "change_pct"];
          const span = document.createElement("span");
          span.textContent = change == null ? t("unknown") : (change > 0 ? "+" : "") + change.toFixed(1) + " %";
          if (change) span.className = change > 0 ? "up" : "down";
          const then = c[`then_${k}`], now = c[`now_${k}`], best = c[`best_now_${k}`];
          return [c.plan_id, c.workload, c.team || "—", c.month, c.recommended, { text: money(then, cur), sort: c.then_usd }, planDated(c.then_as_of, c.then_staleness, c.then_age_days),
            { text: money(now, cur), sort: c.now_usd }, { node: span, sort: change }, c.best_now ? `${c.best_now} (${money(best, cur)})` : "", c.note || ""];
        }), [5, 7, 8]);
      if (doc.plans.some(inYuan)) {
        const rate = document.createElement("p"), basis = document.createElement("p");
        rate.id = "changesrate"; rate.className = basis.className = "legend";
        rateNote(rate, doc, "CNY");
        basis.textContent = t("Costs in yuan: cost now and today's best at this rate; cost then at the rate each plan was priced at, as its budget counts it.");
        $("#changestable").append(rate, basis);
      }
    });
    withToken(load);
  }

  const pages = { offers: offersPage, plan: planPage, history: historyPage, tco: tcoPage, simulate: simulatePage, team: teamPage };
  window.addEventListener("unhandledrejection", (ev) => { ev.preventDefault(); });
  (pages[body.dataset.page] || (() => {}))();
})();
