// The interactive calculator, planner and load explorer on the Calculator, "Plan a fleet" and Load explorer
// pages. Loaded on every page, it does nothing unless the page has a `.gpu-calc` element; then it loads the
// engine's twin (engine-bundle.js with catalog.js: scenario.js, planner.js, rules.js, format.js and what they
// import, bundled by esbuild as classic scripts, which also work from the offline copy on file://) and the forms (forms.js, shared; charts.js;
// calc-form.js, plan-form.js), the load explorer the serving model's twin (serving-bundle.js) and its form
// (load-form.js), and draws each tool. The state lives in the URL's query, so a
// configuration can be shared; every displayed figure carries its raw SI value in data-value.
(function () {
  "use strict";
  var base = new URL(".", document.currentScript.src).href;
  var loaded = {};  // script -> the promise of its load

  function load(src) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = base + src;
      el.onload = resolve;
      el.onerror = function () { reject(new Error("could not load " + src)); };
      document.body.appendChild(el);
    });
  }

  // Each tool's scripts, in order: each reads what the ones before it define.
  var SHARED = ["catalog.js", "engine-bundle.js", "forms.js"];
  var SCRIPTS = { calculator: SHARED.concat(["charts.js", "calc-form.js", "plan-form.js"]),
    load: SHARED.concat(["serving-bundle.js", "load-form.js"]) };
  // The planner page also simulates (fleet-bundle.js: the planner's twin) and
  // draws the simulated answer, the shape search and the day of traffic (fleet-form.js) under the napkin's.
  SCRIPTS.planner = SCRIPTS.calculator.concat(["fleet-bundle.js", "fleet-form.js"]);
  var DRAW = { calculator: "GpuCalculator", planner: "GpuPlanner", load: "GpuLoadExplorer" };

  function scripts(tool) {
    return SCRIPTS[tool].reduce(function (done, src) {
      return done.then(function () { return (loaded[src] = loaded[src] || load(src)); });
    }, Promise.resolve());
  }

  function start() {
    var boxes = document.querySelectorAll(".gpu-calc[data-tool]");
    if (!boxes.length) return;
    Array.prototype.forEach.call(boxes, function (box) {
      var tool = DRAW[box.dataset.tool] ? box.dataset.tool : "calculator";
      scripts(tool).then(function () { window[DRAW[tool]](box, window.GpuMathCatalog); });
    });
  }
  if (typeof document$ !== "undefined") document$.subscribe(start);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
