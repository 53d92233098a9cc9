// The practice widgets' loader, on every page: where the page has a mock round or a drill, it loads
// practice/bundle.js (the ES modules of practice/ joined into one classic script at build time by
// macros/site/practice_assets.py, since a page opened from disk may not load ES modules) and starts
// them. Nothing is fetched from another host, and nothing the reader types leaves the browser.
(function () {
  "use strict";
  var base = new URL("practice/", document.currentScript.src).href;
  var loading = null;

  function load() {
    if (!loading) loading = new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = base + "bundle.js";
      el.onload = resolve;
      el.onerror = function () { reject(new Error("could not load practice/bundle.js")); };
      document.body.appendChild(el);
    });
    return loading;
  }

  function start() {
    if (!document.querySelector(".mock-round, .drill")) return;
    load().then(function () { window.IfgPractice.startPractice(document); });
  }

  if (typeof document$ !== "undefined") document$.subscribe(start);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
