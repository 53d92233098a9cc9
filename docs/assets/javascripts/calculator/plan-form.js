// The "Plan a fleet" page's form (loaded by ui.js): a workload on a fleet, computed by the planner's twin
// (GpuMath.plan), every field checked by the rules of a workload file first (forms.js), the state in
// the URL. This shows the napkin's first-order derivation; fleet-form.js (GpuFleetPanel) gives the answer: the
// same workload simulated at its targets on each replica shape, the shape search and a day of traffic.
(function () {
  "use strict";
  var U = window.GpuForms;

  var PERCENTILE_FIELDS = [["ttft_p50", "TTFT p50"], ["ttft_p90", "TTFT p90"], ["ttft_p95", "TTFT p95"],
    ["ttft_p99", "TTFT p99"], ["tpot_p50", "TPOT p50"], ["tpot_p90", "TPOT p90"], ["tpot_p95", "TPOT p95"],
    ["tpot_p99", "TPOT p99"], ["itl_p95", "Inter-token p95"], ["itl_p99", "Inter-token p99"]];

  function planner(box, cat) {
    var R = cat.rules, w = JSON.parse(box.dataset.workload), fmts = Object.keys(cat.precisions), FMT = U.formats(cat);
    var opts = function (t) { return Object.keys(t).map(function (k) { return [k, t[k].name]; }); };
    var list = function (xs) { return xs.map(function (k) { return [k, k]; }); };
    var rule = function (f) { return ["workload", f]; };
    var SPECS = [
      { name: "model", label: "Model", options: opts(cat.models) }, { name: "gpu", label: "GPU", options: opts(cat.gpus) },
      { name: "gpus_per_replica", label: "GPUs per replica", rule: rule("gpus_per_replica"), empty: "auto" },
      { name: "layout", label: "Layout", options: list(cat.limits.layouts) },
      { name: "weights", label: "Weights", options: list(fmts) }, { name: "kv", label: "KV cache", options: list(fmts) },
      { name: "requests_per_day", label: "Requests a day", rule: rule("requests_per_day") },
      { name: "peak_to_mean", label: "Peak to mean", rule: rule("peak_to_mean") },
      { name: "prompt_tokens", label: "Prompt tokens (mean)", rule: rule("prompt_tokens") },
      { name: "output_tokens", label: "Output tokens (mean)", rule: rule("output_tokens") },
      { name: "prefix_hit_rate", label: "Prefix-cache hit rate", rule: rule("prefix_hit_rate") },
      { name: "ttft_ms", label: "TTFT target, mean (ms)", rule: rule("ttft_s"), scale: 1e-3, empty: "none" },
      { name: "tpot_ms", label: "TPOT target, mean (ms)", rule: rule("tpot_s"), scale: 1e-3, empty: "none" },
      { name: "efficiency", label: "Efficiency η", rule: rule("efficiency") },
      { name: "headroom", label: "Headroom", rule: rule("headroom") },
      { name: "price", label: "Price per GPU-hour (USD)", rule: rule("price_per_gpu_hour"), empty: "on record" }];
    // The simulated answer's inputs: percentile targets (blank: none), the engine whose scheduler runs, the fleet
    // mode, and speculative decoding's drafts per step and acceptance (both blank, or both given).
    PERCENTILE_FIELDS.forEach(function (f) {
      SPECS.push({ name: f[0] + "_ms", label: f[1] + " target (ms)", rule: rule(f[0] + "_s"), scale: 1e-3, empty: "none" });
    });
    SPECS.push({ name: "engine", label: "Engine (simulated)", options: list(R.lists.engines) },
      { name: "token_budget", label: "Tokens per step", rule: rule("token_budget"), empty: "engine's default" },
      { name: "mode", label: "Fleet mode", options: list(R.lists.fleet_modes) },
      { name: "draft_tokens", label: "Draft tokens per step", rule: rule("draft_tokens"), empty: "none" },
      { name: "acceptance", label: "Draft acceptance", rule: rule("acceptance"), empty: "none" });
    var form = U.el("form", { id: "gpu-plan-form", "class": "gpu-calc__form", "aria-label": "Workload", novalidate: "" });
    SPECS.forEach(function (s) { form.appendChild(U.field(R, form.id, s)); });
    var parts = U.frame(box, form, "The napkin (first order)");
    var defaults = { model: w.model, gpu: w.gpu, gpus_per_replica: w.gpus_per_replica || "", layout: w.layout, weights: w.weights,
      kv: w.kv, requests_per_day: w.requests_per_day, peak_to_mean: w.peak_to_mean, prompt_tokens: w.prompt_tokens,
      output_tokens: w.output_tokens, prefix_hit_rate: w.prefix_hit_rate,
      ttft_ms: w.ttft_s === null ? "" : w.ttft_s * 1e3, tpot_ms: w.tpot_s === null ? "" : w.tpot_s * 1e3,
      efficiency: w.efficiency, headroom: w.headroom, price: w.price_per_gpu_hour || "", engine: w.engine, mode: w.mode,
      draft_tokens: w.draft_tokens || "", acceptance: w.acceptance || "", token_budget: w.token_budget || "" };
    PERCENTILE_FIELDS.forEach(function (f) {
      defaults[f[0] + "_ms"] = w[f[0] + "_s"] === null ? "" : w[f[0] + "_s"] * 1e3;
    });
    var fleet = window.GpuFleetPanel(parts.charts, cat);
    U.setTexts(form, Object.assign({}, defaults, U.readQuery()));
    var missed = { memory: "cannot hold the weights and one sequence", tpot: "cannot meet the TPOT target",
      ttft: "cannot meet the TTFT target" };

    function update() {
      var t = U.texts(form);
      U.writeQuery(t, defaults);
      form.elements.price.placeholder = cat.prices[t.gpu] ? "on record" : "none on record";
      var got = U.read(R, form, SPECS), v = got.values, errors = got.errors, p = null, input = null;
      U.across(R, "workload", SPECS, v, errors);
      if (!Object.keys(errors).length) {
        try {
          input = { name: "This workload", model: v.model, gpu: v.gpu, gpus_per_replica: v.gpus_per_replica,
            layout: v.layout, weights: v.weights, kv: v.kv, requests_per_day: v.requests_per_day, peak_to_mean: v.peak_to_mean,
            prompt_tokens: v.prompt_tokens, output_tokens: v.output_tokens, prefix_hit_rate: v.prefix_hit_rate,
            ttft_s: v.ttft_ms === null ? null : v.ttft_ms / 1e3, tpot_s: v.tpot_ms === null ? null : v.tpot_ms / 1e3,
            efficiency: v.efficiency, headroom: v.headroom,
            price_per_gpu_hour: v.price, engine: v.engine, mode: v.mode, draft_tokens: v.draft_tokens,
            token_budget: v.token_budget,
            acceptance: v.acceptance };
          PERCENTILE_FIELDS.forEach(function (f) {
            var ms = v[f[0] + "_ms"];
            input[f[0] + "_s"] = ms === null ? null : ms / 1e3;
          });
          p = GpuMath.plan(cat, input);
        } catch (e) {
          if (!(e instanceof GpuMath.InputError)) throw e;
          errors[e.field && form.elements[e.field] ? e.field : ""] = e.message;
        }
      }
      U.mark(form, errors, parts.general);
      fleet.update(p === null ? null : input);
      if (p === null) { U.fixFirst(parts.out, errors); return; }
      var gpuName = cat.gpus[p.gpu].name;
      if (!p.feasible) {  // an answer, not an error: no shape the planner may use meets the targets
        U.pending(parts.out, "No replica of up to " + FMT.count(p.gpus_per_replica) + " GPUs meets the targets: "
          + FMT.count(p.gpus_per_replica) + " × " + gpuName + " " + missed[p.infeasible_because] + ".");
        return;
      }
      var noPrice = { none: "no price on record for " + gpuName + ": enter one" };
      var binding = p.binding === "kv" ? "the KV budget caps the batch" : "the TPOT target caps the batch";
      var widened = p.widened_because === null ? null : "widened from " + p.gpus_per_replica_pinned + ": "
        + p.gpus_per_replica_pinned + " × " + gpuName + " " + missed[p.widened_because];
      U.results(parts.out, FMT, [["binding", "What binds", binding, "text"], ["gpus", "GPUs, first order", p.gpus, "count"],
        ["replicas", "Replicas, first order", p.replicas, "count"], ["gpus_per_replica", "GPUs per replica", p.gpus_per_replica, "count"],
        ["widened_because", "Replica shape", widened, "text"],
        ["slo_batch", "SLO batch", p.slo_batch, "count"], ["max_batch", "Max batch", p.max_batch, "count"],
        ["planned_step_s", "Planned step (TPOT)", p.planned_step_s, "ms"], ["planned_prefill_s", "Planned prefill (TTFT, no queue)", p.planned_prefill_s, "ms"],
        ["ttft_ok", "TTFT target", p.ttft_ok ? "met" : "missed", "text"], ["tpot_ok", "TPOT target", p.tpot_ok ? "met" : "missed", "text"],
        ["prefill_share", "Prefill's share of replica time", p.prefill_share, "pct"],
        ["peak_output_tokens_per_s", "Peak output", p.peak_output_tokens_per_s, "tps"],
        ["cost_per_day", "Cost per day, first order", p.cost_per_day === null ? noPrice : p.cost_per_day, "usd"],
        ["cost_per_million_output_tokens", "Per million output tokens",
          p.cost_per_million_output_tokens === null ? noPrice : p.cost_per_million_output_tokens, "usd"]]);
    }
    form.addEventListener("input", update);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    update();
  }

  window.GpuPlanner = planner;
})();
