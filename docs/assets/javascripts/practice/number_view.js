// The reader's key numbers in the round: one field each. While the clock runs a field says only how it
// was read, or why it cannot be (the page's values stay hidden with the worked answer). Once the round
// ends each is checked against the page's band: flagged when outside it, with the page's value, what the
// band accepts and why, and the derivation in the page's own words. What the reader typed goes in as text.
import { el, uid } from "./dom.js";
import { checkNumber, formatNumber, parseNumber, timesWords } from "./numbers.js";

// The page's side of one number: its value, its band, and how it is derived (open when `open`).
function pageSide(n, open) {
  const steps = el("ol", { class: "mock-round__derivation" }, n.derivation.map((line) => el("li", { text: line })));
  return [
    el("p", { class: "mock-round__number-page" }, el("strong", { text: "The page: " }), n.page),
    el("p", { class: "mock-round__number-band", text: n.band }),
    open ? el("div", {}, el("p", { class: "mock-round__how-title", text: "How the page gets it" }), steps)
      : el("details", { class: "mock-round__how" }, el("summary", { text: "How the page gets it" }), steps),
  ];
}

// What to say under a field, and the row's verdict: empty, unreadable, read (the clock is running),
// within or outside (the round is over).
export function numberVerdict(n, text, checked) {
  if (!String(text || "").trim()) return { verdict: "empty", parsed: null };
  const parsed = parseNumber(text, n.unit);
  if (!parsed.ok) return { verdict: "unreadable", parsed };
  if (!checked) return { verdict: "read", parsed };
  return { verdict: checkNumber(n, parsed.value).within ? "within" : "outside", parsed };
}

function feedback(n, text, checked) {
  const { verdict, parsed } = numberVerdict(n, text, checked);
  const read = parsed && parsed.ok ? `Read as ${formatNumber(parsed.value, n.unit)}` : "";
  if (verdict === "empty") {
    return { verdict, nodes: checked ? [el("p", { text: "Not entered." }), ...pageSide(n, true)] : [] };
  }
  if (verdict === "unreadable") {
    return { verdict, nodes: [el("p", { class: "mock-round__number-error", text: parsed.error })] };
  }
  if (verdict === "read") return { verdict, nodes: [el("p", { text: `${read}.` })] };
  if (verdict === "within") {
    const ok = el("strong", { class: "mock-round__ok", text: "within the page's band." });
    return { verdict, nodes: [el("p", {}, `${read}: `, ok), ...pageSide(n, false)] };
  }
  const c = checkNumber(n, parsed.value);
  return { verdict, nodes: [
    el("p", {}, `${read}: `, el("strong", { class: "mock-round__flag",
      text: `outside the page's band, ${timesWords(c.ratio)} the page's value.` })),
    ...pageSide(n, true)] };
}

function numberRow(n, entered, onChange, checked) {
  const id = uid(`mock-number-${n.key}`);
  // A plain text field, not a numeric one: a phone must offer the letters of "786 MB" and "400 ms".
  const input = el("input", { id, type: "text", autocomplete: "off", spellcheck: "false",
                              class: "mock-round__number-input", "data-number": n.key });
  input.value = entered[n.key] || "";
  const out = el("div", { class: "mock-round__number-out", "aria-live": "polite" });
  const row = el("div", { class: "mock-round__number", "data-number": n.key },
    el("label", { for: id, text: n.label }), input, out);
  const update = () => {
    const f = feedback(n, input.value, checked);
    row.dataset.verdict = f.verdict;
    out.replaceChildren(...f.nodes);
  };
  // While the clock runs, say how a number was read once the reader leaves the field (or presses Enter): a
  // number half typed is not yet an error. Once the round is over, each keystroke is checked again.
  input.addEventListener("input", () => { onChange(n.key, input.value); if (checked) update(); });
  input.addEventListener("change", update);
  update();
  return row;
}

// The numbers block for a round: `entered` maps a number's key to what the reader typed, `onChange(key,
// text)` keeps it, `checked` is whether the round is over.
export function numbersBlock(round, entered, onChange, checked) {
  if (!round.numbers || !round.numbers.length) return null;
  const hint = checked ? "Each is checked against the page's own figure, with the band it accepts and why."
    : "Write them as you would say them (1.6k, 786 MB, 400 ms). They stay in this browser and are checked "
      + "against the page's when the round ends.";
  return el("fieldset", { class: "mock-round__numbers" },
    el("legend", { text: checked ? "Your numbers against the page's" : "Your key numbers" }),
    el("p", { class: "mock-round__numbers-hint", text: hint }),
    round.numbers.map((n) => numberRow(n, entered, onChange, checked)));
}
