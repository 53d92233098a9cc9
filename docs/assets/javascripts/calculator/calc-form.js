// The calculator page's form (loaded by ui.js): a model on a replica, computed by the engine's twin
// (GpuMath.scenario), every field checked by the rules first (forms.js), the state in the URL.
(function () {
  "use strict";
  var U = window.GpuForms;

  // Custom geometry, typed in the units a model card uses; each is the `model` rule's field.
  var MODEL_FIELDS = [
    { name: "m_params", label: "Parameters (billions)", rule: ["model", "params"], scale: 1e9 },
    { name: "m_active", label: "Active parameters (billions)", rule: ["model", "active_params"], scale: 1e9, empty: "all (dense)" },
    { name: "m_layers", label: "Layers", rule: ["model", "layers"] },
    { name: "m_query_heads", label: "Query heads", rule: ["model", "query_heads"] },
    { name: "m_kv_heads", label: "KV heads", rule: ["model", "kv_heads"] },
    { name: "m_head_dim", label: "Head dim", rule: ["model", "head_dim"] },
    { name: "m_hidden", label: "Hidden size", rule: ["model", "hidden_size"], empty: "not given" },
    { name: "m_max_context", label: "Max context (tokens)", rule: ["model", "max_context"] },
    { name: "m_experts", label: "Routed experts", rule: ["model", "experts"], empty: "none (dense)" },
    { name: "m_experts_per_token", label: "Experts per token", rule: ["model", "experts_per_token"], empty: "none" },
    { name: "m_kv_lora_rank", label: "MLA latent rank", rule: ["model", "kv_lora_rank"], empty: "none (GQA)" },
    { name: "m_rope", label: "MLA RoPE key dim", rule: ["model", "qk_rope_head_dim"], empty: "none" },
    { name: "m_q_lora_rank", label: "MLA query rank", rule: ["model", "q_lora_rank"], empty: "none" },
    { name: "m_window", label: "Sliding window (tokens)", rule: ["model", "sliding_window"], empty: "none" },
    { name: "m_window_layers", label: "Layers with the window", rule: ["model", "sliding_window_layers"], empty: "none" }];
  var GPU_FIELDS = [
    { name: "g_memory", label: "Memory per GPU (GB)", rule: ["gpu", "memory_bytes"], scale: 1e9 },
    { name: "g_bandwidth", label: "Bandwidth (TB/s)", rule: ["gpu", "bandwidth_bytes_per_s"], scale: 1e12 },
    { name: "g_bf16", label: "BF16 dense (TFLOP/s)", rule: ["gpu", "bf16_flops"], scale: 1e12 },
    { name: "g_fp8", label: "FP8 dense (TFLOP/s)", rule: ["gpu", "fp8_flops"], scale: 1e12, empty: "none" },
    { name: "g_fp4", label: "FP4 dense (TFLOP/s)", rule: ["gpu", "fp4_flops"], scale: 1e12, empty: "none" },
    { name: "g_link", label: "GPU link, one direction (GB/s)", rule: ["gpu", "interconnect_bytes_per_s"], scale: 1e9 }];

  function si(v, spec) { return v === null || !spec.scale ? v : v * spec.scale; }
  function byName(specs, v) {
    var out = {};
    specs.forEach(function (s) { out[s.name] = si(v[s.name], s); });
    return out;
  }

  // A custom model: an MLA model's nope and value head sizes are its head dim (the form asks for one).
  function customModel(v, cat) {
    var x = byName(MODEL_FIELDS, v), mla = x.m_kv_lora_rank !== null;
    return { key: "custom", name: "Custom model", params: x.m_params, active_params: x.m_active, layers: x.m_layers,
      query_heads: x.m_query_heads, kv_heads: x.m_kv_heads, head_dim: x.m_head_dim, hidden_size: x.m_hidden,
      max_context: x.m_max_context, experts: x.m_experts, experts_per_token: x.m_experts_per_token,
      kv_lora_rank: x.m_kv_lora_rank, qk_rope_head_dim: x.m_rope, qk_nope_head_dim: mla ? x.m_head_dim : null,
      v_head_dim: mla ? x.m_head_dim : null, q_lora_rank: x.m_q_lora_rank, sliding_window: x.m_window,
      sliding_window_layers: x.m_window_layers || 0, native_weights: cat.defaults.kv, native_nonexpert_weights: null };
  }
  function customGpu(v) {
    var x = byName(GPU_FIELDS, v);
    return { key: "custom", name: "Custom GPU", memory_bytes: x.g_memory, bandwidth_bytes_per_s: x.g_bandwidth,
      bf16_flops: x.g_bf16, fp8_flops: x.g_fp8, fp4_flops: x.g_fp4, interconnect_bytes_per_s: x.g_link };
  }
  // A preset's figures in the form's units (format.js's roundSig clears the float's last-digit noise); a
  // count of 0 (no layer with a window) as a blank.
  function typed(x, scale) { return x === null || x === undefined ? "" : GpuMath.format.roundSig(x / (scale || 1), 12); }
  function fromPreset(specs, entry) {
    var out = {};
    specs.forEach(function (s) { out[s.name] = entry[s.rule[1]] === 0 ? "" : typed(entry[s.rule[1]], s.scale); });
    return out;
  }

  function calculator(box, cat) {
    var R = cat.rules, M = cat.models, G = cat.gpus, fmts = Object.keys(cat.precisions), FMT = U.formats(cat);
    var opts = function (t) { return Object.keys(t).map(function (k) { return [k, t[k].name]; }); };
    var list = function (xs) { return xs.map(function (k) { return [k, k]; }); };
    var MAIN = [
      { name: "model", label: "Model", options: opts(M).concat([["custom", "Custom geometry…"]]) },
      { name: "gpu", label: "GPU", options: opts(G).concat([["custom", "Custom GPU…"]]) },
      { name: "gpus", label: "GPUs per replica", rule: ["scenario", "gpus"], empty: "auto" },
      { name: "layout", label: "Layout", options: list(cat.limits.layouts) },
      { name: "seq_len", label: "Context (tokens)", rule: ["scenario", "seq_len"] },
      { name: "batch", label: "Batch", rule: ["scenario", "batch"], empty: "max" },
      { name: "weights", label: "Weights", options: [["", "the model's own"]].concat(list(fmts)) },
      { name: "kv", label: "KV cache", options: list(fmts) },
      { name: "reserve", label: "Reserve per GPU (GB)", rule: ["scenario", "reserve_bytes"], scale: 1e9 },
      { name: "price", label: "Price per GPU-hour (USD)", rule: ["scenario", "price"], empty: "on record" },
      { name: "efficiency", label: "Efficiency η", rule: ["scenario", "efficiency"] }];
    var form = U.el("form", { id: "gpu-calc-form", "class": "gpu-calc__form", "aria-label": "Calculator inputs", novalidate: "" });
    MAIN.forEach(function (s) { form.appendChild(U.field(R, form.id, s)); });
    var custom = U.el("fieldset", { "class": "gpu-calc__custom", hidden: "" }, [U.el("legend", { text: "Custom model" })]);
    MODEL_FIELDS.forEach(function (s) { custom.appendChild(U.field(R, form.id, s)); });
    var customG = U.el("fieldset", { "class": "gpu-calc__custom", hidden: "" }, [U.el("legend", { text: "Custom GPU" })]);
    GPU_FIELDS.forEach(function (s) { customG.appendChild(U.field(R, form.id, s)); });
    form.appendChild(custom); form.appendChild(customG);
    var parts = U.frame(box, form, "Results");
    var price = form.elements.price;

    var defaults = { model: box.dataset.model, gpu: box.dataset.gpu, gpus: box.dataset.gpus || "", layout: cat.defaults.layout,
      seq_len: cat.defaults.seq_len, batch: "", weights: "", kv: cat.defaults.kv, reserve: cat.defaults.reserve_bytes / 1e9,
      price: "", efficiency: cat.defaults.efficiency };
    U.setTexts(form, Object.assign({}, defaults, fromPreset(MODEL_FIELDS, M[defaults.model]),
      fromPreset(GPU_FIELDS, G[defaults.gpu]), U.readQuery()));

    function update(changed) {
      var t = U.texts(form);
      if (changed === "model" && t.model !== "custom") U.setTexts(form, fromPreset(MODEL_FIELDS, M[t.model]));
      if (changed === "gpu" && t.gpu !== "custom") U.setTexts(form, fromPreset(GPU_FIELDS, G[t.gpu]));
      t = U.texts(form);
      var isModel = t.model === "custom", isGpu = t.gpu === "custom";
      custom.hidden = !isModel; customG.hidden = !isGpu;
      var onRecord = !isGpu && cat.prices[t.gpu];
      price.placeholder = onRecord ? "on record" : "none on record";
      var keep = {};
      Object.keys(t).forEach(function (k) {
        if ((k.slice(0, 2) !== "m_" || isModel) && (k.slice(0, 2) !== "g_" || isGpu)) keep[k] = t[k];
      });
      U.writeQuery(keep, defaults);

      var specs = MAIN.concat(isModel ? MODEL_FIELDS : [], isGpu ? GPU_FIELDS : []);
      var got = U.read(R, form, specs), v = got.values, errors = got.errors;
      if (isModel) {
        var mla = v.m_kv_lora_rank !== null;
        U.across(R, "model", MODEL_FIELDS, v, errors, { qk_nope_head_dim: mla ? v.m_head_dim : null, v_head_dim: mla ? v.m_head_dim : null });
      }
      if (isGpu) U.across(R, "gpu", GPU_FIELDS, v, errors);
      var s = null;
      if (!Object.keys(errors).length) {
        try {
          s = GpuMath.scenario(cat, { model: isModel ? customModel(v, cat) : v.model, gpu: isGpu ? customGpu(v) : v.gpu,
            gpus: v.gpus, seq_len: v.seq_len, batch: v.batch, weights: v.weights || null, kv: v.kv, layout: v.layout,
            reserve_bytes: byName(MAIN, v).reserve, price: v.price, efficiency: v.efficiency });
        } catch (e) {
          if (!(e instanceof GpuMath.InputError)) throw e;
          errors[e.field && form.elements[e.field] ? e.field : ""] = e.message;
        }
      }
      U.mark(form, errors, parts.general);
      if (s === null) { U.fixFirst(parts.out, errors); parts.charts.innerHTML = ""; return; }
      show(s, isGpu ? "Custom GPU" : G[t.gpu].name);
    }

    function show(s, gpuName) {
      var verdict = !s.fits ? "does not fit: the weights and the reserve leave no room for one sequence"
        : s.bound + "-bound at batch " + FMT.count(s.batch) + "; the planned step is the floor divided by η";
      var cost = s.cost_per_million_tokens === null && s.fits
        ? { none: "no price on record for " + gpuName + ": enter one" } : s.cost_per_million_tokens;
      // The fitted step model's step (the estimate), with its band; in words where it has none.
      var engineName = cat.serving.engines[s.engine].name;
      // One line a tile: the reason for no estimate, and the band's basis, are in gpu_math.py's output and --json.
      var estimated = s.estimated_step_s !== null ? s.estimated_step_s : s.fits ? { none: "none: no fitted parameters for this GPU" } : null;
      var band = s.estimated_step_s === null ? null : FMT.ms(s.estimated_step_low_s) + " to " + FMT.ms(s.estimated_step_high_s);
      var shown = U.results(parts.out, FMT, [["verdict", "Verdict", verdict, "text"], ["gpus", "GPUs per replica", s.gpus, "count"],
        ["weight_bytes", "Weights (one copy)", s.weight_bytes, "bytes"], ["kv_bytes_per_seq", "KV per sequence", s.kv_bytes_per_seq, "bytes"],
        ["kv_copies", "KV copies per sequence", s.kv_copies, "num"], ["kv_budget_bytes", "KV budget", s.kv_budget_bytes, "bytes"],
        ["max_batch", "Max batch", s.max_batch, "count"], ["batch", "Batch", s.batch, "count"],
        ["decode_step_s", "Decode step, floor", s.decode_step_s, "ms"], ["planned_step_s", "Decode step, planned", s.planned_step_s, "ms"],
        ["estimated_step_s", "Decode step, estimated (" + engineName + " fit)", estimated, "ms"],
        ["estimate_band", "Estimate's band, p10 to p90", band, "text"],
        ["estimated_output_tokens_per_s_per_gpu", "Output per GPU, estimated", s.estimated_output_tokens_per_s_per_gpu, "tps"],
        ["decode_intensity", "Intensity (FLOP/B)", s.decode_intensity, "num"], ["machine_balance", "Machine balance (FLOP/B)", s.machine_balance, "num"],
        ["decode_tokens_per_s", "Aggregate, floor", s.decode_tokens_per_s, "tps"], ["planned_tokens_per_s", "Aggregate, planned", s.planned_tokens_per_s, "tps"],
        ["decode_tokens_per_s_per_user", "Per user, floor", s.decode_tokens_per_s_per_user, "tps"],
        ["prefill_s", "Prefill of one full context, floor", s.prefill_s, "ms"],
        ["tp_allreduce_s", "TP all-reduces per step (beside the floor)", s.tp_allreduce_s, "ms"],
        ["cost_per_million_tokens", "Cost per million output tokens", cost, "usd"]]);
      var width = parts.charts.clientWidth || 600;
      parts.charts.innerHTML = !shown ? "" : GpuCharts.memoryBar(s, FMT) + (s.fits ? GpuCharts.roofline(s, FMT, width) : "");
    }

    form.addEventListener("input", function (e) { update(e.target.name); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    update(null);
  }

  window.GpuCalculator = calculator;
})();
