// Typeset the \( \) and \[ \] that pymdownx.arithmatex (generic mode) emits, loading KaTeX (vendored
// under assets/katex, about 300 kB with its CSS) only when the page has math: a page without any
// downloads none of it.
// Material's instant navigation swaps pages without a load event, so check on its document$
// observable; fall back to DOMContentLoaded where document$ is absent (e.g. a printed page).
// KaTeX goes at the end of <body>, not in <head>: instant navigation removes every head element the
// next page's HTML does not have, which would drop the stylesheet after the first navigation.
(function () {
  var base = new URL("../katex/", document.currentScript.src).href;
  var loaded = null;

  function add(tag, attrs) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement(tag);
      for (var name in attrs) el[name] = attrs[name];
      el.onload = resolve;
      el.onerror = function () { reject(new Error("could not load " + (attrs.src || attrs.href))); };
      document.body.appendChild(el);
    });
  }

  function katex() {
    if (!loaded) {
      loaded = Promise.all([
        add("link", { rel: "stylesheet", href: base + "katex.min.css" }),
        // auto-render calls katex, so it loads after it.
        add("script", { src: base + "katex.min.js" }).then(function () {
          return add("script", { src: base + "auto-render.min.js" });
        }),
      ]);
    }
    return loaded;
  }

  function typeset(root) {
    if (!root.querySelector(".arithmatex")) return;
    katex().then(function () {
      renderMathInElement(root, {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true },
        ],
        throwOnError: false,
      });
    });
  }

  if (typeof document$ !== "undefined") {
    document$.subscribe(function (doc) { typeset(doc.body); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { typeset(document.body); });
  }
})();
