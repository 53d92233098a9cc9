// Keyboard and screen-reader access that Material's markup leaves out (checked by axe in the browser
// walk, tests/browser/walk.py):
// - whatever scrolls sideways (a wide table's wrapper, a displayed formula, a row of tabs on a phone)
//   takes focus while it scrolls, as a region named for what it holds, so a keyboard can scroll it;
//   it leaves the Tab order again when the page is wide enough for it;
// - the search dialog has a name;
// - cited figures (macros/site/markdown.py cite) are one Tab stop per table or paragraph, and so are the
//   glossary's abbreviations (macros/site/glossary.py): the first takes Tab, the arrow keys move between
//   the others of its kind (a "roving tabindex"); a tap focuses any of them, which opens its tooltip.
(function () {
  var SCROLLERS = [
    [".md-typeset__scrollwrap", "Table, scrolls sideways"],
    [".md-typeset div.arithmatex", "Formula, scrolls sideways"],
    [".md-typeset .tabbed-labels", "Tabs, scroll sideways"],
  ];
  var MARK = "data-a11y-scroll";  // set on what this script made focusable, and only on that

  function markScrollers() {
    SCROLLERS.forEach(function (pair) {
      document.querySelectorAll(pair[0]).forEach(function (el) {
        var scrolls = el.scrollWidth > el.clientWidth + 1;
        if (scrolls && !el.hasAttribute("tabindex")) {
          el.setAttribute("tabindex", "0");
          el.setAttribute("role", "region");
          el.setAttribute("aria-label", pair[1]);
          el.setAttribute(MARK, "");
        } else if (!scrolls && el.hasAttribute(MARK)) {
          ["tabindex", "role", "aria-label", MARK].forEach(function (a) { el.removeAttribute(a); });
        }
      });
    });
  }

  // What carries a tooltip in the content, each kind roving on its own: so a table's cited figures stay
  // one Tab stop, whatever abbreviations its header holds.
  var TIPS = [".cite", "abbr"];

  function tipGroup(tip) {
    return tip.closest("table, p, li, dd, dt, .admonition, details") || document.body;
  }

  function rovingTips() {
    TIPS.forEach(function (kind) {
      var seen = new Set();
      document.querySelectorAll(".md-typeset " + kind).forEach(function (tip) {
        var group = tipGroup(tip);
        tip.setAttribute("tabindex", seen.has(group) ? "-1" : "0");
        seen.add(group);
      });
    });
  }

  var KEYS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  document.addEventListener("keydown", function (event) {
    if (!(event.key in KEYS) || !event.target.closest) return;
    var kind = TIPS.filter(function (k) { return event.target.closest(".md-typeset " + k); })[0];
    if (!kind) return;
    var tip = event.target.closest(".md-typeset " + kind);
    var all = Array.prototype.slice.call(tipGroup(tip).querySelectorAll(kind));
    var next = all[all.indexOf(tip) + KEYS[event.key]];
    if (!next) return;
    event.preventDefault();
    tip.setAttribute("tabindex", "-1");
    next.setAttribute("tabindex", "0");
    next.focus();
  });

  function page() {
    var search = document.querySelector(".md-search[role=dialog]");
    if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search");
    rovingTips();
    markScrollers();
  }

  // Again whenever the layout may have changed: a resize, or the page's content changing (KaTeX
  // typesetting a formula, Material wrapping a table), once per frame at most.
  var pending = false;
  function soon() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; markScrollers(); });
  }
  window.addEventListener("resize", markScrollers);
  new MutationObserver(soon).observe(document.documentElement, { childList: true, subtree: true });
  if (typeof document$ !== "undefined") document$.subscribe(page);
  else document.addEventListener("DOMContentLoaded", page);
})();
