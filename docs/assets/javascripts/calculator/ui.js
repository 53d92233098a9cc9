// The interactive calculator and planner on the Calculator and "Plan a fleet" pages. Loaded on every page,
// it does nothing unless the page has a `.gpu-calc` element; then it loads the engine's twin
// (engine-bundle.js with catalog.js: engine.js, planner.js, rules.js and format.js as classic scripts,
// which also work from the offline copy on file://) and the forms (forms.js, shared; charts.js;
// calc-form.js, plan-form.js), and draws each tool. The state lives in the URL's query, so a
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

  // In order: each script reads what the ones before it define.
  var SCRIPTS = ["catalog.js", "engine-bundle.js", "forms.js", "charts.js", "calc-form.js", "plan-form.js"];

  function scripts() {
    if (window.GpuCalculator && window.GpuPlanner) return Promise.resolve();
    if (!loading) {
      loading = SCRIPTS.reduce(function (done, src) { return done.then(function () { return load(src); }); }, Promise.resolve());
    }
    return loading;
  }

  function start() {
    var boxes = document.querySelectorAll(".gpu-calc[data-tool]");
    if (!boxes.length) return;
    scripts().then(function () {
      Array.prototype.forEach.call(boxes, function (box) {
        (box.dataset.tool === "planner" ? window.GpuPlanner : window.GpuCalculator)(box, window.GpuMathCatalog);
      });
    });
  }
  if (typeof document$ !== "undefined") document$.subscribe(start);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
