// A link to a heading inside a collapsed answer (a worked design's fold, a collapsed answer) opens the
// <details> around it first, so the table of contents and cross-links land on a visible heading.
// Chromium does this by itself on fragment navigation; other browsers may not.
(function () {
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) return;
    for (var d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    el.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  if (typeof document$ !== "undefined") document$.subscribe(openTarget);
  else document.addEventListener("DOMContentLoaded", openTarget);
})();
