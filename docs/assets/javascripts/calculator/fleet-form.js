// The planner page's second half (loaded by ui.js after fleet-bundle.js): under the napkin's answer, the same
// workload checked by simulation at its percentile targets (GpuFleet.planAll: the simulated count, p95s at peak,
// live concurrency by Little's law), the shape search with its Pareto curve, disaggregated pools and speculative
// decoding where the form asks for them, and a day of traffic under a scaling policy (GpuFleet.autoscale).
// Simulating takes from a fraction of a second to several: the work starts after a short pause in typing and
// runs in slices of about SLICE_MS between which the page stays responsive, restarting the computation each
// slice from a cache of the runs already made (a computation that needs a run it has not got stops, and the
// next slice makes that run). Every text shown is set as text, never as HTML.
(function () {
  "use strict";
  var U = window.GpuForms, F = window.GpuFleet;
  var DEBOUNCE_MS = 400, SLICE_MS = 40, MEMO_LIMIT = 400;
  var PENDING = { pending: true };  // thrown by the runner when a slice's time is up
  var WHY_NOT = { "not-fewer": "no count meets the targets with fewer GPUs than another option found",
    "no-replica-shape": "the napkin found no replica shape to simulate",
    "search-limit": "no count up to 64 times the napkin's meets the targets" };
  var SVGNS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, words) {
    var e = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (words !== undefined) e.textContent = words;
    return e;
  }

  // Log-log axes over [x0, x1] x [y0, y1] (decades), ticked at powers of ten.
  function axes(root, box, xr, yr, FMT, xTitle, yTitle) {
    var X = function (v) { return box.left + (Math.log10(v) - xr[0]) / (xr[1] - xr[0]) * (box.right - box.left); };
    var Y = function (v) { return box.bottom - (Math.log10(v) - yr[0]) / (yr[1] - yr[0]) * (box.bottom - box.top); };
    for (var i = Math.ceil(xr[0]); i <= Math.floor(xr[1]); i++) {
      root.appendChild(svg("line", { "class": "grid", x1: X(Math.pow(10, i)), x2: X(Math.pow(10, i)), y1: box.top, y2: box.bottom }));
      root.appendChild(svg("text", { "class": "tick tick--x", x: X(Math.pow(10, i)), y: box.bottom + 16 }, FMT.num(Math.pow(10, i))));
    }
    for (var j = Math.ceil(yr[0]); j <= Math.floor(yr[1]); j++) {
      root.appendChild(svg("line", { "class": "grid", x1: box.left, x2: box.right, y1: Y(Math.pow(10, j)), y2: Y(Math.pow(10, j)) }));
      root.appendChild(svg("text", { "class": "tick tick--y", x: box.left - 6, y: Y(Math.pow(10, j)) + 4 }, FMT.num(Math.pow(10, j))));
    }
    root.appendChild(svg("line", { "class": "axis", x1: box.left, x2: box.right, y1: box.bottom, y2: box.bottom }));
    root.appendChild(svg("line", { "class": "axis", x1: box.left, x2: box.left, y1: box.top, y2: box.bottom }));
    root.appendChild(svg("text", { "class": "title title--x", x: box.right, y: box.bottom + 34 }, xTitle));
    root.appendChild(svg("text", { "class": "title", x: 4, y: 14 }, yTitle));
    return { X: X, Y: Y };
  }

  var decades = function (values) {
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    return [Math.floor(Math.log10(lo) - 0.05), Math.max(Math.ceil(Math.log10(hi) + 0.05), Math.floor(Math.log10(lo)) + 1)];
  };

  // Every point the shape search walked, its Pareto front as a line, and each shape's best point within the
  // targets marked, the chosen shape's and the runner-up's labelled.
  function paretoChart(search, FMT, width) {
    var pts = search.points.filter(function (p) { return p.tokens_per_s_per_user > 0 && p.output_tokens_per_s_per_gpu > 0; });
    if (!pts.length) return null;
    var W = Math.max(300, Math.round(width)), H = 280, box = { left: 64, right: W - 16, top: 24, bottom: H - 44 };
    var root = svg("svg", { "class": "gpu-calc__roof gpu-fleet__pareto", viewBox: "0 0 " + W + " " + H, role: "img",
      "aria-label": "The shape search: output tokens/s per GPU against tokens/s per user, " + pts.length
        + " points over " + search.results.length + " shapes, the Pareto front drawn as a line" });
    var ax = axes(root, box, decades(pts.map(function (p) { return p.tokens_per_s_per_user; })),
      decades(pts.map(function (p) { return p.output_tokens_per_s_per_gpu; })), FMT, "tokens/s per user",
      "output tokens/s per GPU");
    pts.forEach(function (p) {
      root.appendChild(svg("circle", { "class": p.meets ? "dot dot--meets" : "dot", r: 3,
        cx: ax.X(p.tokens_per_s_per_user), cy: ax.Y(p.output_tokens_per_s_per_gpu) }));
    });
    root.appendChild(svg("polyline", { "class": "roof", points: search.pareto.map(function (p) {
      return ax.X(p.tokens_per_s_per_user).toFixed(1) + "," + ax.Y(p.output_tokens_per_s_per_gpu).toFixed(1);
    }).join(" ") }));
    [[search.chosen, "chosen"], [search.runner_up, "runner-up"]].forEach(function (pair) {
      if (pair[0] === null) return;
      var b = pair[0].best, x = ax.X(b.tokens_per_s_per_user), y = ax.Y(b.output_tokens_per_s_per_gpu);
      root.appendChild(svg("circle", { "class": "point", r: 6, cx: x, cy: y }));
      // The chosen shape's label above and to the right of its point, the runner-up's below and to the left,
      // each turned inward where it would leave the plot.
      var words = pair[1] + ": " + F.shapeLabel(b.shape), wide = 7 * words.length, chosenOne = pair[1] === "chosen";
      var right = chosenOne ? x + 10 + wide <= box.right : x - 10 - wide < box.left;
      root.appendChild(svg("text", { "class": "label", x: right ? x + 10 : x - 10, y: y + (chosenOne ? -8 : 18),
        "text-anchor": right ? "start" : "end" }, words));
    });
    return root;
  }

  // Offered requests and the serving replicas' capacity within the SLO, a minute at a time (every fifth minute
  // drawn), on linear axes, the shed minutes marked under the axis.
  function dayChart(day, FMT, width) {
    var rows = day.json.timeline, W = Math.max(300, Math.round(width)), H = 220;
    var box = { left: 64, right: W - 16, top: 24, bottom: H - 44 };
    var most = Math.max.apply(null, rows.map(function (m) { return Math.max(m.offered, m.capacity); })) || 1;
    var X = function (i) { return box.left + i / Math.max(rows.length - 1, 1) * (box.right - box.left); };
    var Y = function (v) { return box.bottom - Math.min(v, most) / most * (box.bottom - box.top); };
    var root = svg("svg", { "class": "gpu-calc__roof gpu-fleet__day", viewBox: "0 0 " + W + " " + H, role: "img",
      "aria-label": "The day, minute by minute: requests offered and the capacity within the SLO; "
        + day.json.slo_violation_minutes + " minutes over the SLO" });
    [0, 0.5, 1].forEach(function (f) {
      root.appendChild(svg("line", { "class": "grid", x1: box.left, x2: box.right, y1: Y(f * most), y2: Y(f * most) }));
      root.appendChild(svg("text", { "class": "tick tick--y", x: box.left - 6, y: Y(f * most) + 4 }, FMT.count(Math.round(f * most))));
    });
    for (var h = 0; h <= 24; h += 6) {
      var x = X(Math.min(h * 60, rows.length - 1));
      root.appendChild(svg("text", { "class": "tick tick--x", x: x, y: box.bottom + 16 }, h + " h"));
    }
    var line = function (key, cls) {
      var pts = [];
      for (var i = 0; i < rows.length; i += 5) pts.push(X(i).toFixed(1) + "," + Y(rows[i][key]).toFixed(1));
      root.appendChild(svg("polyline", { "class": cls, points: pts.join(" ") }));
    };
    line("capacity", "capacity");
    line("offered", "roof");
    rows.forEach(function (m, i) {
      if (m.late) root.appendChild(svg("rect", { "class": "late", x: X(i), y: box.bottom + 2, width: Math.max(1, X(1) - X(0)), height: 4 }));
    });
    root.appendChild(svg("text", { "class": "title title--x", x: box.right, y: box.bottom + 34 }, "hour of the day"));
    root.appendChild(svg("text", { "class": "title", x: 4, y: 14 }, "requests per minute"));
    return root;
  }

  // The panel keeps to class names of its own (gpu-fleet__*), so the napkin's form and its checks see only the
  // napkin's results and messages; its figures use the calculator's result grid.
  function note(box, words) {
    box.textContent = "";
    box.appendChild(U.el("p", { "class": "gpu-fleet__note", text: words }));
  }

  function section(title) {
    var out = U.el("div", { "class": "gpu-fleet__out" });
    return { box: U.el("section", { "class": "gpu-fleet__part", "aria-label": title }, [U.el("h3", { text: title }), out]),
      out: out };
  }

  function panel(host, cat) {
    var FMT = U.formats(cat), memo = new Map(), generation = 0, timer = null, input = null, plan = null;
    var planning = false;  // a plan is waiting or being simulated: it runs the day, with the policy chosen by then
    var status = U.el("p", { "class": "gpu-fleet__status", role: "status", "aria-live": "polite" });
    var sim = section("The answer: simulated at peak, beside the napkin"), shapes = section("The shape search");
    var extra = section("Disaggregated pools and speculative decoding");
    var policy = U.el("select", { id: "gpu-fleet-policy", name: "policy" });
    F.POLICIES.forEach(function (p) { policy.appendChild(U.el("option", { value: p, text: p })); });
    var day = section("A day of traffic");
    day.box.insertBefore(U.el("div", { "class": "gpu-calc__field" }, [U.el("label", { "for": policy.id, text: "Scaling policy" }),
      policy]), day.out);
    var figure = U.el("div", { "class": "gpu-fleet__figure" }), dayFigure = U.el("div", { "class": "gpu-fleet__figure" });
    shapes.box.appendChild(figure);
    day.box.appendChild(dayFigure);
    var root = U.el("div", { "class": "gpu-fleet" }, [status, sim.box, shapes.box, extra.box, day.box]);
    host.appendChild(root);
    // While it works, the figures shown are the last inputs': aria-busy says so (and the stylesheet dims them).
    var busy = function (yes) { if (yes) root.setAttribute("aria-busy", "true"); else root.removeAttribute("aria-busy"); };

    // A run's statistics from the cache, or made now while the slice has time; else PENDING.
    function runner(started) {
      return function (c, q) {
        var key = JSON.stringify(q);
        if (memo.has(key)) return memo.get(key);
        if (performance.now() - started > SLICE_MS) throw PENDING;
        var stats = F.run(c, q);
        memo.set(key, stats);
        return stats;
      };
    }

    // Runs `work(runner)` to the end in slices, then `done(result)`, unless a newer job started.
    function sliced(job, work, done) {
      function slice() {
        if (job !== generation) return;
        var result;
        try {
          result = work(runner(performance.now()));
        } catch (e) {
          if (e === PENDING) { status.textContent = "Simulating: " + memo.size + " runs made…"; setTimeout(slice, 0); return; }
          if (!(e instanceof F.InputError)) throw e;
          done(null, e.message);
          return;
        }
        done(result, null);
      }
      setTimeout(slice, 0);
    }

    function showPlan(r, error) {
      if (error !== null) { note(sim.out, error); note(shapes.out, error); return; }
      plan = r;
      var j = r.json, s = r.simulated, napkin = r.napkin;
      if (j.feasible && j.answer_from === "simulation") {
        var binding = j.simulated_binding.replace(/_p(\d+)_s$/, " p$1").replace(/_s$/, " mean").toUpperCase()
          .replace(" P", " p").replace(" MEAN", " mean");
        U.results(sim.out, FMT, [["gpus", "GPUs: the answer", j.gpus, "count"], ["replicas", "Replicas", j.replicas, "count"],
          ["gpus_per_replica", "GPUs per replica", j.gpus_per_replica, "count"],
          ["cost_per_day", "Cost per day", j.cost_per_day === null ? { none: "no price on record" } : j.cost_per_day, "usd"],
          ["napkin_gpus", "GPUs, napkin (first order)", napkin.gpus, "count"], ["simulated_binding", "Target that sets it", binding, "text"],
          ["ttft_p95_s", "TTFT p95 at peak", j.ttft_p95_s, "ms"], ["tpot_p95_s", "TPOT p95 at peak", j.tpot_p95_s, "ms"],
          ["live_concurrency_per_replica", "Live concurrency per replica (Little)", j.live_concurrency_per_replica, "num"],
          ["napkin_slo_batch", "SLO batch, napkin", napkin.slo_batch, "count"],
          ["simulated_requests_per_s_per_replica", "Requests/s per replica", j.simulated_requests_per_s_per_replica, "num"],
          ["simulations", "Runs simulated", j.simulations, "count"]]);
      } else if (j.answer_from === "disaggregated-pools") {
        note(sim.out, j.feasible ? "The answer is the two pools below: " + FMT.count(j.gpus) + " GPUs in all."
          : "No pools meet the targets (below, which one fails).");
      } else {
        var why = j.simulated_infeasible_because;
        var words = why === "one-request-at-a-time" ? "one replica serving one request at a time already misses "
          + s.evidence.misses.map(function (t) { return t.key.replace(/_s$/, "").replace("_", " "); }).join(" and ")
          : why === "engine-refused" ? s.detail : WHY_NOT[why];
        note(sim.out, "No simulated count: " + words + ".");
      }
      var o = r.options.shapes, chosen = o.chosen, runner = o.runner_up;
      var lost = runner === null ? null : o.tied ? "within 1 % of the chosen per GPU: the narrower replica wins the tie"
        : FMT.pct(1 - runner.best.output_tokens_per_s_per_gpu / chosen.best.output_tokens_per_s_per_gpu)
          + " fewer tokens/s per GPU within the mean targets";
      if (chosen === null) note(shapes.out, "No candidate shape meets the mean targets at any concurrency.");
      else {
        U.results(shapes.out, FMT, [["shape_search_best", "Shape search's best (closed loop)", j.shape_search_best, "text"],
          ["shape_search_best_output_tokens_per_s_per_gpu", "Its tokens/s per GPU", j.shape_search_best_output_tokens_per_s_per_gpu, "tps"],
          ["chosen_tokens_per_s_per_user", "At tokens/s per user", chosen.best.tokens_per_s_per_user, "tps"],
          ["shape_search_runner_up", "Its runner-up", j.shape_search_runner_up, "text"],
          ["shape_search_runner_up_output_tokens_per_s_per_gpu", "Its tokens/s per GPU", j.shape_search_runner_up_output_tokens_per_s_per_gpu, "tps"],
          ["runner_up_lost", "Why it lost", lost, "text"]]);
      }
      figure.textContent = "";
      var chart = paretoChart(o, FMT, figure.clientWidth || host.clientWidth);
      if (chart) figure.appendChild(chart);
      var rows = [];
      if (j.mode === "disaggregated") {
        rows.push(["disaggregated_gpus", "GPUs, disaggregated", j.disaggregated_gpus === null
          ? { none: "no pool meets a target" } : j.disaggregated_gpus, "count"],
        ["colocated_gpus", "GPUs, colocated (shape search)", j.colocated_gpus, "count"],
        ["prefill_pool", "Prefill pool", j.prefill_pool_replicas === null ? null
          : j.prefill_pool_replicas + " × " + j.prefill_gpus_per_replica + " GPUs", "text"],
        ["decode_pool", "Decode pool", j.decode_pool_replicas === null ? null
          : j.decode_pool_replicas + " × " + j.decode_gpus_per_replica + " GPUs", "text"],
        ["kv_transfer_s", "KV transfer per request", j.kv_transfer_s, "ms"], ["disaggregated_ttft_s", "Mean TTFT, disaggregated", j.disaggregated_ttft_s, "ms"]);
      }
      if (j.speculative_speedup !== null) {
        rows.push(["speculative_tokens_per_step", "Tokens per verify step", j.speculative_tokens_per_step, "num"],
          ["speculative_speedup", "Speed-up at the SLO batch", j.speculative_speedup, "num"],
          ["speculative_break_even_batch", "Stops paying at batch", j.speculative_break_even_batch === null
            ? { none: "pays at every batch scanned" } : j.speculative_break_even_batch, "count"]);
      }
      if (rows.length) U.results(extra.out, FMT, rows);
      else note(extra.out, "Colocated, without speculation: choose the disaggregated mode, or give drafts per step and an acceptance.");
    }

    function showDay(r, error) {
      dayFigure.textContent = "";
      if (error !== null) { note(day.out, error); return; }
      var j = r.json;
      U.results(day.out, FMT, [["gpu_hours", "GPU-hours", j.gpu_hours, "num"],
        ["cost", "Cost of the day", j.cost === null ? { none: "no price on record" } : j.cost, "usd"],
        ["slo_violation_minutes", "Minutes over the SLO", j.slo_violation_minutes, "count"],
        ["offered_requests", "Requests offered", j.offered_requests, "count"], ["served_requests", "Served", j.served_requests, "count"],
        ["shed_requests", "Shed", j.shed_requests, "count"], ["cold_starts", "Cold starts", j.cold_starts, "count"],
        ["peak_replicas", "Most replicas serving", j.peak_replicas, "count"],
        ["cold_start_minutes", "One cold start, minutes", j.cold_start_minutes, "count"]]);
      dayFigure.appendChild(dayChart(r, FMT, dayFigure.clientWidth || host.clientWidth));
      dayFigure.appendChild(U.el("p", { "class": "gpu-calc__legend", text: "Requests offered each minute (blue), the "
        + "serving replicas' capacity within the SLO (orange), and the minutes over the SLO (red marks), under the "
        + j.policy + " policy scaling on the queue." }));
    }

    function runDay(job) {
      busy(true);
      status.textContent = "Simulating the day of traffic…";
      sliced(job, function (run) { return F.autoscale(cat, input, policy.value, "queue", null, run); }, function (r, error) {
        showDay(r, error);
        busy(false);
        status.textContent = "Done: " + memo.size + " simulated runs in the cache.";
      });
    }

    function start() {
      var job = ++generation;
      // The cache is bounded between jobs, never inside one: a job restarts each slice from the runs already made,
      // so clearing them part-way through a job that needs more than the limit would start it over for ever.
      if (memo.size > MEMO_LIMIT) memo.clear();
      status.textContent = "Simulating at peak…";
      sliced(job, function (run) { return F.planAll(cat, input, run); }, function (r, error) {
        planning = false;
        showPlan(r, error);
        runDay(job);
      });
    }

    policy.addEventListener("change", function () { if (input !== null && plan !== null && !planning) runDay(++generation); });

    return {
      // A checked workload's fields (null: the form has an error): simulate after a pause in typing.
      update: function (next) {
        clearTimeout(timer);
        generation++;
        input = next;
        planning = next !== null;
        busy(true);
        if (next === null) {  // no figure of the last inputs stays beside a form that has an error
          [sim, shapes, extra, day].forEach(function (part) { part.out.textContent = ""; });
          figure.textContent = dayFigure.textContent = "";
          status.textContent = "The simulation waits for every field to hold a value it can take.";
          return;
        }
        status.textContent = "Waiting for a pause in typing…";
        timer = setTimeout(start, DEBOUNCE_MS);
      },
    };
  }

  window.GpuFleetPanel = panel;
})();
