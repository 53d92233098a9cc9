// The Load explorer's form (loaded by ui.js after serving-bundle.js): one replica under an open-loop Poisson
// stream, simulated by the serving model's twin (window.GpuServing): the sweep of arrival rates with its
// knee (serving/sweep.js), drawn as a chart, and the slider's one rate in figures. The token fields are
// checked by a workload file's rules (forms.js); the state lives in the URL. Only numbers and fixed words
// reach the chart's markup: nothing a reader types is inserted as HTML.
(function () {
  "use strict";
  var U = window.GpuForms, S = window.GpuServing;

  function r1(x) { return Math.round(x * 10) / 10; }
  function text(x, y, words, cls) {
    return '<text x="' + r1(x) + '" y="' + r1(y) + '" class="' + cls + '">' + words + "</text>";
  }
  function line(x1, y1, x2, y2, cls) {
    return '<line class="' + cls + '" x1="' + r1(x1) + '" y1="' + r1(y1) + '" x2="' + r1(x2) + '" y2="' + r1(y2) + '"></line>';
  }

  // p50 and p99 TTFT against the offered rate: x linear from 0, y logarithmic (the tail grows by decades).
  function chart(points, knee, rate, FMT, width) {
    var ok = points.every(function (p) { return p.ttft_p50_s > 0 && p.ttft_p99_s > 0 && Number.isFinite(p.ttft_p99_s); });
    if (!ok) return "";
    var log = Math.log10, W = Math.max(320, Math.round(width)), H = 260, left = 64, right = W - 16, top = 30, bottom = H - 46;
    var xMax = points[points.length - 1].rate_per_s * 1.05;
    var lows = points.map(function (p) { return p.ttft_p50_s; }), highs = points.map(function (p) { return p.ttft_p99_s; });
    var ly0 = Math.floor(log(Math.min.apply(null, lows))), ly1 = Math.max(Math.ceil(log(Math.max.apply(null, highs))), ly0 + 1);
    function X(r) { return left + r / xMax * (right - left); }
    function Y(t) { return bottom - (log(t) - ly0) / (ly1 - ly0) * (bottom - top); }
    var out = '<svg class="gpu-calc__roof gpu-calc__load" viewBox="0 0 ' + W + " " + H + '" role="img" aria-label="Time to first token '
      + "against the arrival rate: p99 from " + FMT.s(highs[0]) + " to " + FMT.s(highs[highs.length - 1])
      + (knee ? ", knee at " + FMT.num(knee.rate_per_s) + " requests per second" : "") + '">';
    for (var j = ly0; j <= ly1; j++) {  // y ticks: powers of ten of seconds
      var t = Math.pow(10, j);
      out += line(left, Y(t), right, Y(t), "grid") + text(left - 6, Y(t) + 4, FMT.s(t), "tick tick--y");
    }
    var step = Math.pow(10, Math.floor(log(xMax / 4))), ticks = xMax / step > 8 ? 2 * step : step;
    if (xMax / ticks > 8) ticks *= 2.5;
    for (var x = 0; x <= xMax; x += ticks) {
      out += line(X(x), bottom, X(x), bottom + 5, "axis") + text(X(x), bottom + 18, FMT.num(x), "tick tick--x");
    }
    out += line(left, bottom, right, bottom, "axis") + line(left, top, left, bottom, "axis");
    [["ttft_p99_s", "p99"], ["ttft_p50_s", "p50"]].forEach(function (s) {
      out += '<polyline class="load load--' + s[1] + '" points="' + points.map(function (p) {
        return r1(X(p.rate_per_s)) + "," + r1(Y(p[s[0]]));
      }).join(" ") + '"></polyline>';
      var last = points[points.length - 1];
      out += text(Math.min(X(last.rate_per_s) + 4, right - 24), Y(last[s[0]]) - 6, s[1], "label");
    });
    if (knee) {
      out += line(X(knee.rate_per_s), top, X(knee.rate_per_s), bottom, "knee")
        + text(X(knee.rate_per_s), top - 8, "knee", "label label--knee");
    }
    if (rate !== null) out += line(X(rate), top, X(rate), bottom, "rate");
    return out + text(right, H - 8, "arrival rate, requests per second", "title title--x")
      + text(left - 58, 16, "time to first token", "title title--y") + "</svg>";
  }

  function explorer(box, cat) {
    var R = cat.rules, start = JSON.parse(box.dataset.start), FMT = U.formats(cat);
    FMT.rate = function (x) { return FMT.num(x) + " requests/s"; };
    FMT.s = function (x) { return GpuMath.format.seconds(cat.format, x); };
    var opts = function (t, keep) {
      return Object.keys(t).filter(keep || function () { return true; }).map(function (k) { return [k, t[k].name]; });
    };
    var served = function (k) {  // the GPUs the serving model has parameters for: those in a family
      return Object.keys(cat.serving.families).some(function (f) { return cat.serving.families[f].gpus.indexOf(k) >= 0; });
    };
    var SPECS = [
      { name: "model", label: "Model", options: opts(cat.models) },
      { name: "gpu", label: "GPU", options: opts(cat.gpus, served) },
      { name: "gpus", label: "GPUs", options: [1, 2, 4, 8].map(function (n) { return [String(n), String(n)]; }) },
      { name: "engine", label: "Engine", options: opts(cat.serving.engines) },
      { name: "input_tokens", label: "Prompt tokens", rule: ["workload", "prompt_tokens"] },
      { name: "output_tokens", label: "Output tokens", rule: ["workload", "output_tokens"] }];
    var form = U.el("form", { id: "gpu-load-form", "class": "gpu-calc__form", "aria-label": "Replica and requests", novalidate: "" });
    SPECS.forEach(function (s) { form.appendChild(U.field(R, form.id, s)); });
    var slider = U.el("input", { id: "gpu-load-form-load", name: "load", type: "range", min: String(S.SWEEP_FRACTIONS[0]),
      max: String(S.SWEEP_FRACTIONS[S.SWEEP_FRACTIONS.length - 1]), step: "0.01", "aria-describedby": "gpu-load-form-load-msg" });
    var said = U.el("output", { id: "gpu-load-form-load-msg", "for": "gpu-load-form-load", "class": "gpu-calc__said" });
    form.appendChild(U.el("div", { "class": "gpu-calc__field gpu-calc__field--wide", "data-field": "load" },
      [U.el("label", { "for": slider.id, text: "Arrival rate (share of capacity)" }), slider, said]));
    var parts = U.frame(box, form, "The replica under load");
    var defaults = { model: start.model, gpu: start.gpu, gpus: String(start.gpus), engine: start.engine,
      input_tokens: start.input_tokens, output_tokens: start.output_tokens, load: "0.7" };
    U.setTexts(form, Object.assign({}, defaults, U.readQuery()));
    var swept = null, sweptFor = null;

    function update() {
      var t = U.texts(form);
      U.writeQuery(t, defaults);
      var got = U.read(R, form, SPECS), v = got.values, errors = got.errors;
      var q = { model: v.model, gpu: v.gpu, gpus: Number(v.gpus), engine: v.engine, input_tokens: v.input_tokens,
        output_tokens: v.output_tokens };
      var key = JSON.stringify(q), point = null;
      if (!Object.keys(errors).length) {
        try {
          if (key !== sweptFor) { swept = S.sweep(cat, q); sweptFor = key; }
          point = S.point(cat, q, Number(slider.value) * swept[0], swept[0]);
        } catch (e) {
          if (!(e instanceof S.InputError)) throw e;
          errors[""] = e.message;
          swept = sweptFor = null;
        }
      }
      U.mark(form, errors, parts.general);
      if (point === null) { said.textContent = ""; parts.charts.innerHTML = ""; U.fixFirst(parts.out, errors); return; }
      var capacity = swept[0], knee = S.knee(swept[1]);
      said.textContent = FMT.rate(point.rate_per_s) + ", " + FMT.pct(Number(slider.value)) + " of the capacity";
      U.results(parts.out, FMT, [["rate_per_s", "Offered", point.rate_per_s, "rate"],
        ["requests_per_s", "Served", point.requests_per_s, "rate"],
        ["ttft_p50_s", "TTFT p50", point.ttft_p50_s, "s"], ["ttft_p99_s", "TTFT p99", point.ttft_p99_s, "s"],
        ["tpot_p50_s", "TPOT p50", point.tpot_p50_s === null || Number.isNaN(point.tpot_p50_s) ? { none: "one-token answers" } : point.tpot_p50_s, "ms"],
        ["tpot_p99_s", "TPOT p99", point.tpot_p99_s === null || Number.isNaN(point.tpot_p99_s) ? { none: "one-token answers" } : point.tpot_p99_s, "ms"],
        ["output_tokens_per_s_per_gpu", "Output per GPU", point.output_tokens_per_s_per_gpu, "tps"],
        ["utilisation", "Utilisation ρ", point.utilisation, "pct"], ["mean_batch", "Mean batch", point.mean_batch, "num"],
        ["capacity_per_s", "Capacity", capacity, "rate"],
        ["knee_rate_per_s", "Knee", knee === null ? { none: "none in the sweep" } : knee.rate_per_s, "rate"]]);
      parts.charts.innerHTML = chart(swept[1], knee, point.rate_per_s, FMT, parts.charts.clientWidth || 640);
    }
    var timer = null;
    function later() { clearTimeout(timer); timer = setTimeout(update, 150); }  // a sweep is a dozen runs
    form.addEventListener("input", function (e) { if (e.target === slider) update(); else later(); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    update();
  }

  window.GpuLoadExplorer = explorer;
})();
