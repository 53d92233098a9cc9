// Typeset the \( \) and \[ \] that pymdownx.arithmatex (generic mode) emits.
// Material's instant navigation swaps pages without a load event, so render on its document$
// observable; fall back to DOMContentLoaded where document$ is absent (e.g. a printed page).
(function () {
  function typeset(root) {
    if (typeof renderMathInElement !== "function") return;
    renderMathInElement(root, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false,
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(function (doc) { typeset(doc.body); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { typeset(document.body); });
  }
})();
