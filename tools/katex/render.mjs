// Typesets the site's math at build time for macros/site/build/katex_html.py, which starts this once per
// build: each line on stdin is a JSON array of [tex, display] pairs (one page's formulas), answered
// by one line on stdout, a JSON array of {"html": ...} or {"error": ...} in the same order. One
// process for the whole build, since starting Node and loading KaTeX costs more than typesetting.
import { createInterface } from "node:readline";
import katex from "katex";

// The options auto-render gave KaTeX in the browser, except that an error is reported, not drawn.
function typeset([tex, display]) {
  try {
    return { html: katex.renderToString(tex, { displayMode: display, throwOnError: true }) };
  } catch (err) {
    return { error: err instanceof katex.ParseError ? err.message : String(err) };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim()) process.stdout.write(JSON.stringify(JSON.parse(line).map(typeset)) + "\n");
}
