// The interactive calculator and planner: forms on the Calculator and "Plan a fleet" pages, computed
// in the browser by the engine's twin (engine.js, planner.js; loaded here as engine-bundle.js with
// catalog.js, classic scripts that also work from the offline copy on file://). Loaded on every page,
// it does nothing unless the page has a `.gpu-calc` element. The state lives in the URL's query, so a
// configuration can be shared; every displayed figure carries its raw SI value in data-value.
(function () {
  "use strict";
  var base = new URL(".", document.currentScript.src).href;
  var loading = null;

  function load(src) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = base + src;
      el.onload = resolve;
      el.onerror = function () { reject(new Error("could not load " + src)); };
      document.body.appendChild(el);
    });
  }

  function engine() {
    if (window.GpuMath && window.GpuMathCatalog) return Promise.resolve();
    if (!loading) loading = load("catalog.js").then(function () { return load("engine-bundle.js"); });
    return loading;
  }

  // --- formatting: three significant figures, decimal SI, as the site's fmt.py --------------------
  function sig(x, n) { return Number(Number(x).toPrecision(n || 3)); }
  function num(x) { return sig(x).toLocaleString("en", { maximumFractionDigits: 6 }); }
  function count(x) { return Math.round(x).toLocaleString("en"); }
  function si(x, unit) {
    var prefixes = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (var i = 0; i < prefixes.length; i++) if (Math.abs(x) >= prefixes[i][0]) return num(x / prefixes[i][0]) + " " + prefixes[i][1] + unit;
    return num(x) + " " + unit;
  }
  var FMT = {
    bytes: function (x) { return si(x, "B"); }, ms: function (x) { return num(x * 1e3) + " ms"; },
    count: count, num: num, tps: function (x) { return num(x) + " tokens/s"; },
    usd: function (x) {  // cents below $100, whole dollars above, as fmt.usd
      var r = sig(x);
      return "$" + r.toLocaleString("en", Math.abs(r) < 100 ? { minimumFractionDigits: 2, maximumFractionDigits: 2 }
        : { maximumFractionDigits: 0 });
    }, pct: function (x) { return num(x * 100) + "%"; },
    flops: function (x) { return si(x, "FLOP/s"); }, text: function (x) { return String(x); },
  };

  // --- the URL's query ------------------------------------------------------------------------
  function readQuery() {
    var out = {};
    new URLSearchParams(location.search).forEach(function (v, k) { out[k] = v; });
    return out;
  }
  function writeQuery(state, defaults) {
    var q = new URLSearchParams();
    Object.keys(state).forEach(function (k) {
      if (state[k] !== "" && String(state[k]) !== String(defaults[k] === undefined ? "" : defaults[k])) q.set(k, state[k]);
    });
    var search = q.toString();
    history.replaceState(history.state, "", location.pathname + (search ? "?" + search : "") + location.hash);
  }

  // --- form building ----------------------------------------------------------------------------
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { e.appendChild(c); });
    return e;
  }
  function field(form, spec) {  // spec: [name, label, kind, options or step, hint]
    var name = spec[0], id = form.id + "-" + name, input;
    if (spec[2] === "select") {
      input = el("select", { id: id, name: name });
      spec[3].forEach(function (o) { input.appendChild(el("option", { value: o[0], text: o[1] })); });
    } else {
      input = el("input", { id: id, name: name, type: "number", step: spec[3] || "any", inputmode: "decimal" });
      if (spec[4]) input.placeholder = spec[4];
    }
    return el("div", { "class": "gpu-calc__field" + (spec[5] ? " gpu-calc__field--" + spec[5] : "") },
      [el("label", { "for": id, text: spec[1] }), input]);
  }
  function values(form) {
    var out = {};
    Array.prototype.forEach.call(form.elements, function (e) { if (e.name) out[e.name] = e.value.trim(); });
    return out;
  }
  function setValues(form, state) {
    Object.keys(state).forEach(function (k) { if (form.elements[k] !== undefined) form.elements[k].value = state[k]; });
  }
  function optional(x, scale) { return x === "" || x === undefined ? null : Number(x) * (scale || 1); }

  function outputs(box, rows) {  // rows: [key, label, value, format]
    box.innerHTML = "";
    var dl = el("dl", { "class": "gpu-calc__results" });
    rows.forEach(function (r) {
      if (r[2] === null || r[2] === undefined) return;
      dl.appendChild(el("dt", { text: r[1] }));
      dl.appendChild(el("dd", { "data-key": r[0], "data-value": String(r[2]), text: FMT[r[3]](r[2]) }));
    });
    box.appendChild(dl);
  }

  // --- the calculator ---------------------------------------------------------------------------
  var MODEL_FIELDS = [["m_params", "Parameters (billions)"], ["m_active", "Active parameters (billions; blank: dense)"],
    ["m_layers", "Layers"], ["m_query_heads", "Query heads"], ["m_kv_heads", "KV heads"], ["m_head_dim", "Head dim"],
    ["m_hidden", "Hidden size"], ["m_max_context", "Max context (tokens)"], ["m_experts", "Routed experts (MoE)"],
    ["m_experts_per_token", "Experts per token"], ["m_kv_lora_rank", "MLA latent rank (blank: GQA)"],
    ["m_rope", "MLA RoPE key dim"], ["m_q_lora_rank", "MLA query rank"], ["m_window", "Sliding window (tokens)"],
    ["m_window_layers", "Layers with the window"]];
  var GPU_FIELDS = [["g_memory", "Memory per GPU (GB)"], ["g_bandwidth", "Bandwidth (TB/s)"],
    ["g_bf16", "BF16 dense (TFLOP/s)"], ["g_fp8", "FP8 dense (TFLOP/s; blank: none)"],
    ["g_fp4", "FP4 dense (TFLOP/s; blank: none)"], ["g_link", "GPU link, one direction (GB/s)"]];

  function customModel(v, cat) {
    var mla = optional(v.m_kv_lora_rank), head = Number(v.m_head_dim);
    return { key: "custom", name: "Custom model", params: Number(v.m_params) * 1e9, active_params: optional(v.m_active, 1e9),
      layers: Number(v.m_layers), query_heads: Number(v.m_query_heads), kv_heads: Number(v.m_kv_heads), head_dim: head,
      hidden_size: optional(v.m_hidden), max_context: Number(v.m_max_context), experts: optional(v.m_experts),
      experts_per_token: optional(v.m_experts_per_token), kv_lora_rank: mla, qk_rope_head_dim: mla ? Number(v.m_rope) : null,
      qk_nope_head_dim: mla ? head : null, v_head_dim: mla ? head : null, q_lora_rank: mla ? optional(v.m_q_lora_rank) : null,
      sliding_window: optional(v.m_window), sliding_window_layers: optional(v.m_window_layers) || 0,
      native_weights: cat.defaults.kv, native_nonexpert_weights: null };
  }
  function customGpu(v) {
    return { key: "custom", name: "Custom GPU", memory_bytes: Number(v.g_memory) * 1e9,
      bandwidth_bytes_per_s: Number(v.g_bandwidth) * 1e12, bf16_flops: Number(v.g_bf16) * 1e12,
      fp8_flops: optional(v.g_fp8, 1e12), fp4_flops: optional(v.g_fp4, 1e12), interconnect_bytes_per_s: Number(v.g_link) * 1e9 };
  }
  function fromModel(m) {
    return { m_params: sig(m.params / 1e9, 6), m_active: m.active_params ? sig(m.active_params / 1e9, 6) : "",
      m_layers: m.layers, m_query_heads: m.query_heads, m_kv_heads: m.kv_heads, m_head_dim: m.head_dim,
      m_hidden: m.hidden_size || "", m_max_context: m.max_context, m_experts: m.experts || "",
      m_experts_per_token: m.experts_per_token || "", m_kv_lora_rank: m.kv_lora_rank || "", m_rope: m.qk_rope_head_dim || "",
      m_q_lora_rank: m.q_lora_rank || "", m_window: m.sliding_window || "", m_window_layers: m.sliding_window_layers || "" };
  }
  function fromGpu(g) {
    return { g_memory: g.memory_bytes / 1e9, g_bandwidth: g.bandwidth_bytes_per_s / 1e12, g_bf16: g.bf16_flops / 1e12,
      g_fp8: g.fp8_flops ? g.fp8_flops / 1e12 : "", g_fp4: g.fp4_flops ? g.fp4_flops / 1e12 : "",
      g_link: g.interconnect_bytes_per_s / 1e9 };
  }

  function memoryBar(s) {  // the replica's memory: weights held, the batch's KV, free KV budget, reserve
    var total = s.memory_bytes, kv = s.batch * s.kv_bytes_per_seq_group;
    var parts = [["weights", s.weight_bytes_held, "Weights"], ["kv", kv, "KV cache at the batch"],
      ["free", Math.max(s.kv_budget_bytes - kv, 0), "KV budget unused"], ["reserve", s.reserve_bytes, "Reserve"]];
    var svg = '<svg class="gpu-calc__bar" viewBox="0 0 1000 40" preserveAspectRatio="none" role="img" aria-label="Memory of the replica: '
      + parts.map(function (p) { return p[2] + " " + FMT.bytes(p[1]); }).join(", ") + '">';
    var x = 0;
    parts.forEach(function (p) {
      var w = Math.max(0, Math.min(1000 - x, p[1] / total * 1000));
      svg += '<rect class="gpu-calc__seg--' + p[0] + '" x="' + x + '" y="0" width="' + w + '" height="40"></rect>';
      x += w;
    });
    var legend = parts.map(function (p) {
      return '<span class="gpu-calc__key"><i class="gpu-calc__seg--' + p[0] + '"></i>' + p[2] + ": " + FMT.bytes(p[1]) + "</span>";
    }).join(" ");
    return svg + "</svg><p class=\"gpu-calc__legend\">" + legend + " (of " + FMT.bytes(total) + ")</p>";
  }

  function roofline(s) {  // per GPU: the bandwidth roof, the compute roof, and the decode step on them
    var B = s.gpu_bandwidth_bytes_per_s, P = s.gpu_peak_flops, lx = [0, 4], ly = [Math.log10(P) - 3, Math.log10(P) + 0.3];
    function X(i) { return 50 + (Math.log10(i) - lx[0]) / (lx[1] - lx[0]) * 430; }
    function Y(p) { return 190 - (Math.log10(p) - ly[0]) / (ly[1] - ly[0]) * 170; }
    var knee = P / B, lo = Math.pow(10, ly[0]) / B;
    var op = s.decode_intensity, at = Math.min(P, op * B);
    return '<svg class="gpu-calc__roof" viewBox="0 0 500 220" role="img" aria-label="Roofline per GPU: the decode step at '
      + num(op) + " FLOP per byte reaches " + FMT.flops(at) + " of " + FMT.flops(P) + '">'
      + '<line class="axis" x1="50" y1="190" x2="480" y2="190"></line><line class="axis" x1="50" y1="20" x2="50" y2="190"></line>'
      + '<polyline class="roof" points="' + X(Math.max(lo, 1)) + "," + Y(Math.max(lo, 1) * B) + " " + X(knee) + "," + Y(P)
      + " " + X(1e4) + "," + Y(P) + '"></polyline>'
      + '<circle class="point" cx="' + X(Math.max(op, 1)) + '" cy="' + Y(at) + '" r="6"></circle>'
      + '<text x="265" y="212">arithmetic intensity, FLOP per byte (log)</text>'
      + '<text x="56" y="16">attainable FLOP/s per GPU (log); peak ' + FMT.flops(P) + "</text>"
      + '<text x="' + (X(knee) + 4) + '" y="' + (Y(P) + 16) + '">balance ' + num(knee) + "</text></svg>";
  }

  function calculator(box, cat) {
    var M = cat.models, G = cat.gpus, fmts = Object.keys(cat.precisions);
    var form = el("form", { id: "gpu-calc-form", "class": "gpu-calc__form", "aria-label": "Calculator inputs" });
    var opts = function (t) { return Object.keys(t).map(function (k) { return [k, t[k].name]; }); };
    [["model", "Model", "select", opts(M).concat([["custom", "Custom geometry…"]])],
      ["gpu", "GPU", "select", opts(G).concat([["custom", "Custom GPU…"]])],
      ["gpus", "GPUs per replica", "number", "1", "auto"], ["layout", "Layout", "select", cat.limits.layouts.map(function (l) { return [l, l]; })],
      ["seq_len", "Context (tokens)", "number", "1"], ["batch", "Batch", "number", "1", "max"],
      ["weights", "Weights", "select", [["", "the model's own"]].concat(fmts.map(function (k) { return [k, k]; }))],
      ["kv", "KV cache", "select", fmts.map(function (k) { return [k, k]; })],
      ["reserve", "Reserve per GPU (GB)", "number"], ["price", "Price per GPU-hour (USD)", "number", "any", "on record"],
      ["efficiency", "Efficiency η", "number", "0.01"]].forEach(function (f) { form.appendChild(field(form, f)); });
    var custom = el("fieldset", { "class": "gpu-calc__custom", hidden: "" }, [el("legend", { text: "Custom model" })]);
    MODEL_FIELDS.forEach(function (f) { custom.appendChild(field(form, [f[0], f[1], "number"])); });
    var customG = el("fieldset", { "class": "gpu-calc__custom", hidden: "" }, [el("legend", { text: "Custom GPU" })]);
    GPU_FIELDS.forEach(function (f) { customG.appendChild(field(form, [f[0], f[1], "number"])); });
    form.appendChild(custom); form.appendChild(customG);
    var error = el("p", { "class": "gpu-calc__error", role: "alert" }), out = el("div", { "class": "gpu-calc__out", "aria-live": "polite" });
    var charts = el("div", { "class": "gpu-calc__charts" });
    box.innerHTML = ""; box.appendChild(form); box.appendChild(error); box.appendChild(out); box.appendChild(charts);

    var defaults = { model: box.dataset.model, gpu: box.dataset.gpu, gpus: box.dataset.gpus || "", layout: cat.defaults.layout,
      seq_len: cat.defaults.seq_len, batch: "", weights: "", kv: cat.defaults.kv, reserve: cat.defaults.reserve_bytes / 1e9,
      price: "", efficiency: cat.defaults.efficiency };
    var state = Object.assign({}, defaults, fromModel(M[defaults.model]), fromGpu(G[defaults.gpu]), readQuery());
    setValues(form, state);

    function update(changed) {
      var v = values(form);
      if (changed === "model" && v.model !== "custom") setValues(form, fromModel(M[v.model]));
      if (changed === "gpu" && v.gpu !== "custom") setValues(form, fromGpu(G[v.gpu]));
      v = values(form);
      custom.hidden = v.model !== "custom"; customG.hidden = v.gpu !== "custom";
      var keep = {}; Object.keys(v).forEach(function (k) {
        if ((k.slice(0, 2) !== "m_" || v.model === "custom") && (k.slice(0, 2) !== "g_" || v.gpu === "custom")) keep[k] = v[k];
      });
      writeQuery(keep, defaults);
      try {
        var s = GpuMath.scenario(cat, { model: v.model === "custom" ? customModel(v, cat) : v.model,
          gpu: v.gpu === "custom" ? customGpu(v) : v.gpu, gpus: optional(v.gpus), seq_len: optional(v.seq_len),
          batch: optional(v.batch), weights: v.weights || null, kv: v.kv, layout: v.layout,
          reserve_bytes: optional(v.reserve, 1e9), price: optional(v.price), efficiency: optional(v.efficiency) });
      } catch (e) {
        if (!(e instanceof GpuMath.InputError)) throw e;
        error.textContent = e.message; out.innerHTML = ""; charts.innerHTML = ""; return;
      }
      error.textContent = "";
      var verdict = !s.fits ? "does not fit: the weights and the reserve leave no room for one sequence"
        : s.bound + "-bound at batch " + s.batch + "; the planned step is the floor divided by η";
      outputs(out, [["verdict", "Verdict", verdict, "text"], ["gpus", "GPUs per replica", s.gpus, "count"],
        ["weight_bytes", "Weights (one copy)", s.weight_bytes, "bytes"], ["kv_bytes_per_seq", "KV per sequence", s.kv_bytes_per_seq, "bytes"],
        ["kv_copies", "KV copies per sequence", s.kv_copies, "num"], ["kv_budget_bytes", "KV budget", s.kv_budget_bytes, "bytes"],
        ["max_batch", "Max batch", s.max_batch, "count"], ["batch", "Batch", s.batch, "count"],
        ["decode_step_s", "Decode step, floor", s.decode_step_s, "ms"], ["planned_step_s", "Decode step, planned", s.planned_step_s, "ms"],
        ["decode_intensity", "Intensity (FLOP/B)", s.decode_intensity, "num"], ["machine_balance", "Machine balance (FLOP/B)", s.machine_balance, "num"],
        ["decode_tokens_per_s", "Aggregate, floor", s.decode_tokens_per_s, "tps"], ["planned_tokens_per_s", "Aggregate, planned", s.planned_tokens_per_s, "tps"],
        ["decode_tokens_per_s_per_user", "Per user, floor", s.decode_tokens_per_s_per_user, "tps"],
        ["prefill_s", "Prefill of one full context, floor", s.prefill_s, "ms"],
        ["tp_allreduce_s", "TP all-reduces per step (beside the floor)", s.tp_allreduce_s, "ms"],
        ["cost_per_million_tokens", "Cost per million output tokens", s.cost_per_million_tokens, "usd"]]);
      charts.innerHTML = s.fits ? memoryBar(s) + roofline(s) : memoryBar(s);
    }
    form.addEventListener("input", function (e) { update(e.target.name); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    update(null);
  }

  // --- the planner ------------------------------------------------------------------------------
  function planner(box, cat) {
    var w = JSON.parse(box.dataset.workload), fmts = Object.keys(cat.precisions);
    var opts = function (t) { return Object.keys(t).map(function (k) { return [k, t[k].name]; }); };
    var form = el("form", { id: "gpu-plan-form", "class": "gpu-calc__form", "aria-label": "Workload" });
    [["model", "Model", "select", opts(cat.models)], ["gpu", "GPU", "select", opts(cat.gpus)],
      ["gpus_per_replica", "GPUs per replica", "number", "1", "auto"],
      ["layout", "Layout", "select", cat.limits.layouts.map(function (l) { return [l, l]; })],
      ["weights", "Weights", "select", fmts.map(function (k) { return [k, k]; })], ["kv", "KV cache", "select", fmts.map(function (k) { return [k, k]; })],
      ["requests_per_day", "Requests a day", "number", "1"], ["peak_to_mean", "Peak to mean", "number"],
      ["prompt_tokens", "Prompt tokens (mean)", "number", "1"], ["output_tokens", "Output tokens (mean)", "number", "1"],
      ["prefix_hit_rate", "Prefix-cache hit rate (0–1)", "number", "0.05"], ["ttft_ms", "TTFT target (ms)", "number"],
      ["tpot_ms", "TPOT target (ms)", "number"], ["efficiency", "Efficiency η", "number", "0.01"],
      ["headroom", "Headroom (0–1)", "number", "0.05"], ["price", "Price per GPU-hour (USD)", "number", "any", "on record"]
    ].forEach(function (f) { form.appendChild(field(form, f)); });
    var error = el("p", { "class": "gpu-calc__error", role: "alert" }), out = el("div", { "class": "gpu-calc__out", "aria-live": "polite" });
    box.innerHTML = ""; box.appendChild(form); box.appendChild(error); box.appendChild(out);
    var defaults = { model: w.model, gpu: w.gpu, gpus_per_replica: w.gpus_per_replica || "", layout: w.layout, weights: w.weights,
      kv: w.kv, requests_per_day: w.requests_per_day, peak_to_mean: w.peak_to_mean, prompt_tokens: w.prompt_tokens,
      output_tokens: w.output_tokens, prefix_hit_rate: w.prefix_hit_rate, ttft_ms: w.ttft_s * 1e3, tpot_ms: w.tpot_s * 1e3,
      efficiency: w.efficiency, headroom: w.headroom, price: w.price_per_gpu_hour || "" };
    setValues(form, Object.assign({}, defaults, readQuery()));

    function update() {
      var v = values(form);
      writeQuery(v, defaults);
      var p;
      try {
        p = GpuMath.plan(cat, { name: "This workload", model: v.model, gpu: v.gpu, gpus_per_replica: optional(v.gpus_per_replica),
          layout: v.layout, weights: v.weights, kv: v.kv, requests_per_day: Number(v.requests_per_day), peak_to_mean: Number(v.peak_to_mean),
          prompt_tokens: Number(v.prompt_tokens), output_tokens: Number(v.output_tokens), prefix_hit_rate: Number(v.prefix_hit_rate),
          ttft_s: Number(v.ttft_ms) / 1e3, tpot_s: Number(v.tpot_ms) / 1e3, efficiency: Number(v.efficiency),
          headroom: Number(v.headroom), price_per_gpu_hour: optional(v.price) });
      } catch (e) {
        if (!(e instanceof GpuMath.InputError)) throw e;
        error.textContent = e.message; out.innerHTML = ""; return;
      }
      var missed = { memory: "cannot hold the weights and one sequence", tpot: "cannot meet the TPOT target",
        ttft: "cannot meet the TTFT target" };
      if (!p.feasible) {  // an answer, not an error: no shape the planner may use meets the targets
        error.textContent = "No replica of up to " + p.gpus_per_replica + " GPUs meets the targets: " + p.gpus_per_replica
          + " × " + cat.gpus[p.gpu].name + " " + missed[p.infeasible_because] + ".";
        out.innerHTML = ""; return;
      }
      error.textContent = "";
      var binding = p.binding === "kv" ? "the KV budget caps the batch" : "the TPOT target caps the batch";
      var widened = p.widened_because === null ? null : "widened from " + p.gpus_per_replica_pinned + ": "
        + p.gpus_per_replica_pinned + " × " + cat.gpus[p.gpu].name + " " + missed[p.widened_because];
      outputs(out, [["binding", "What binds", binding, "text"], ["gpus", "GPUs at peak", p.gpus, "count"],
        ["replicas", "Replicas", p.replicas, "count"], ["gpus_per_replica", "GPUs per replica", p.gpus_per_replica, "count"],
        ["widened_because", "Replica shape", widened, "text"],
        ["slo_batch", "SLO batch", p.slo_batch, "count"], ["max_batch", "Max batch", p.max_batch, "count"],
        ["planned_step_s", "Planned step (TPOT)", p.planned_step_s, "ms"], ["planned_prefill_s", "Planned prefill (TTFT, no queue)", p.planned_prefill_s, "ms"],
        ["ttft_ok", "TTFT target", p.ttft_ok ? "met" : "missed", "text"], ["tpot_ok", "TPOT target", p.tpot_ok ? "met" : "missed", "text"],
        ["prefill_share", "Prefill's share of replica time", p.prefill_share, "pct"],
        ["peak_output_tokens_per_s", "Peak output", p.peak_output_tokens_per_s, "tps"],
        ["cost_per_day", "Cost per day at peak provisioning", p.cost_per_day, "usd"],
        ["cost_per_million_output_tokens", "Per million output tokens", p.cost_per_million_output_tokens, "usd"]]);
    }
    form.addEventListener("input", update);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    update();
  }

  function start() {
    var boxes = document.querySelectorAll(".gpu-calc[data-tool]");
    if (!boxes.length) return;
    engine().then(function () {
      Array.prototype.forEach.call(boxes, function (box) {
        (box.dataset.tool === "planner" ? planner : calculator)(box, window.GpuMathCatalog);
      });
    });
  }
  if (typeof document$ !== "undefined") document$.subscribe(start);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
