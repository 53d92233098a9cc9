// The practice widgets' loader, on every page: where the page has a mock round or a drill, it loads
// practice/bundle.js (the ES modules of practice/ joined into one classic script at build time by
// macros/site/build/practice_assets.py, since a page opened from disk may not load ES modules) and starts
// them. Nothing is fetched from another host, and nothing the reader types leaves the browser.
(function () {
  "use strict";
  var base = new URL("practice/", document.currentScript.src).href;
  var loading = null;

  function script(name) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = base + name;
      el.onload = resolve;
      el.onerror = function () { reject(new Error("could not load practice/" + name)); };
      document.body.appendChild(el);
    });
  }

  function load() {
    if (!loading) loading = script("bundle.js");
    return loading;
  }

  function start() {
    if (!document.querySelector(".mock-round, .drill, .review")) return;
    // The flashcard review also needs the cards (cards.js, written by the build with the Anki deck).
    var cards = document.querySelector(".review") && !window.IfgCards ? script("cards.js") : Promise.resolve();
    Promise.all([load(), cards]).then(function () { window.IfgPractice.startPractice(document); });
  }

  if (typeof document$ !== "undefined") document$.subscribe(start);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
