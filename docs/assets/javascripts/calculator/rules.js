// The rules every input must pass (macros/data/rules.toml, which the build exports in catalog.json as
// `rules`), applied as macros/engine/rules.py applies them: the same verdict and the same words for a
// value typed in a form or on the Node twin's command line, a custom model or GPU, a workload.
// tests/vectors/bad_inputs.json holds the cases both must refuse. `R` below is catalog.rules.
//
//   fromText(R, "scenario", "gpus", "0", "GPUs per replica")  // throws RuleError: "GPUs per replica must
//                                                             //   be a positive whole number, got '0'"
//   checkObject(R, "model", customModel)                      // the checks a models.toml entry passes

export class InputError extends Error {}

// An input breaks a rule: `field` names it, the message is one line in the reader's words.
export class RuleError extends InputError {
  constructor(field, message, kind = "check") { super(message); this.field = field; this.kind = kind; }
}

const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const NOT_FINITE_TEXT = /^[+-]?(?:inf|infinity|nan)$/i;
const EDGE_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

// A value as a message shows it (rules.shown): numbers plainly between 1e-4 and 1e6 and in shortest
// exponent form outside, inf and nan as such, text quoted.
export function shown(value) {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "nan";
    if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
    if (value === 0) return "0";
    if (Math.abs(value) >= 1e-4 && Math.abs(value) < 1e6) return String(value);
    return value.toExponential().replace("e+", "e");
  }
  if (typeof value === "string") return `'${value}'`;
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "a list";
  if (value.$toml) return `a ${value.$toml}`;  // a TOML date or time (macros/engine/export.py tags them)
  return "a table";
}

// Keys a typo may have meant (rules.close_keys): within max(1, floor(len / 3)) single-character edits,
// the closest first, then in the data's order, at most three.
export function closeKeys(key, keys, most = 3) {
  const edits = (a, b) => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0]; row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const next = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] !== b[j - 1] ? 1 : 0));
        prev = row[j]; row[j] = next;
      }
    }
    return row[b.length];
  };
  const limit = Math.max(1, Math.floor(key.length / 3));
  return keys.map((k, n) => [edits(key, k), n, k]).filter((s) => s[0] <= limit)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]).slice(0, most).map((s) => s[2]);
}

function fillSlots(template, values) {
  return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
}

// What a field must be, in words: "a positive whole number", "a number between 0 and 1".
export function expected(R, rule) {
  const words = R.words, kind = rule.kind;
  if (kind === "text") return words[rule.nonempty ? "nonempty" : "text"];
  if (kind !== "number" && kind !== "whole") return words[kind];
  const noun = words[kind].slice(2), article = "aeiou".includes(noun[0]) ? "an" : "a";
  const above = rule.above ?? null, low = rule.min ?? null, high = rule.max ?? null;
  if (high === null) {
    if (above === 0) return fillSlots(words.positive, { noun });
    if (low === 0) return fillSlots(words.zero_or_more, { noun });
    if (above !== null) return fillSlots(words.above, { article, noun, bound: shown(above) });
    if (low !== null) return fillSlots(words.at_least, { article, noun, bound: shown(low) });
    return words[kind];
  }
  if (above !== null) return fillSlots(words.above_at_most, { article, noun, low: shown(above), high: shown(high) });
  if (low !== null) return fillSlots(words.between, { article, noun, low: shown(low), high: shown(high) });
  return fillSlots(words.at_most, { article, noun, bound: shown(high) });
}

const ruleMessage = (R, key, values) => fillSlots(R.messages[key], values);

export function ruleOf(R, set, field) { return R[set].fields[field]; }

// The value, or RuleError naming `name`; `got` shows the value as typed.
export function checkValue(R, rule, value, name, got = shown(value)) {
  const wrong = (key = "kind") => new RuleError(name, ruleMessage(R, key, { field: name, expected: expected(R, rule), got }), key);
  const kind = rule.kind;
  if (kind === "number" || kind === "whole") {
    if (typeof value !== "number") throw wrong();
    if (!Number.isFinite(value)) throw wrong("finite");
    if (kind === "whole" && !Number.isInteger(value)) throw wrong();
    if ((rule.above !== undefined && !(value > rule.above)) || (rule.min !== undefined && value < rule.min)
      || (rule.max !== undefined && value > rule.max)) throw wrong();
  } else if (kind === "text") {
    if (typeof value !== "string" || (rule.nonempty && !value)) throw wrong();
  } else if (kind === "flag") {
    if (typeof value !== "boolean") throw wrong();
  } else if (kind === "texts") {
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw wrong();
  } else if (kind === "table") {
    if (!isTable(value) || !Object.values(value).every((v) => typeof v === "string")) throw wrong();
  } else if (kind === "choice") {
    const values = R.lists[rule.values_from];
    if (typeof value !== "string" || !values.includes(value)) {
      throw new RuleError(name, ruleMessage(R, "choice", { field: name, values: values.join(", "), got }), "choice");
    }
  }
  return value;
}

const isTable = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !v.$toml;

// A value typed in a form or on a command line, read as its rule's kind and checked.
export function parseText(R, rule, text, name) {
  const got = `'${text}'`, bare = text.replace(EDGE_SPACE, "");
  if (rule.kind === "number" || rule.kind === "whole") {
    if (NOT_FINITE_TEXT.test(bare)) return checkValue(R, rule, NaN, name, got);
    return checkValue(R, rule, NUMBER_TEXT.test(bare) ? Number(bare) : text, name, got);
  }
  return checkValue(R, rule, text, name, got);
}

export function fromText(R, set, field, text, name = field) { return parseText(R, ruleOf(R, set, field), text, name); }

const given = (v) => v !== undefined && v !== null && v !== 0 && v !== "" && v !== false;

const CHECKS = {  // (the field's value, the other's or the others') -> whether the check holds
  not_above: (v, o) => v <= o, below: (v, o) => v < o, not_below: (v, o) => v >= o, divides: (v, o) => o % v === 0,
  together: (v, o) => given(v) === given(o), needs: (v, o) => !given(v) || given(o), either: (v, o) => given(v) || given(o),
  not_with: (v, others) => !given(v) || !others.some(given), or_all: (v, others) => given(v) || others.every(given),
  or_any: (v, others) => given(v) || others.some(given),
  within: (v, bounds) => bounds[0] <= v && v <= bounds[1],
};
const ANY_GIVEN = ["together", "needs", "either", "not_with", "or_all", "or_any"];  // checks about presence itself

// The checks that span fields (absent fields read as null).
export function checkAcross(R, set, values, names = {}) {
  const nameOf = (k) => names[k] ?? k;
  for (const check of R[set].checks || []) {
    const field = check.field;
    if ((check.when !== undefined && !given(values[check.when])) || given(values[check.unless])) continue;
    const others = check.others || (check.check === "within" ? [check.low, check.high] : [check.other]);
    const v = values[field], o = others.map((k) => values[k]);
    if (!ANY_GIVEN.includes(check.check) && !(given(v) && o.every(given))) continue;
    const arg = ["within", "not_with", "or_all", "or_any"].includes(check.check) ? o : o[0];
    if (CHECKS[check.check](v, arg)) continue;
    const slots = { field: nameOf(field), value: shown(v), others: others.map(nameOf).join(check.check === "or_any" ? " or " : " and ") };
    for (const slot of ["other", "low", "high"]) {
      if (check[slot] !== undefined) { slots[slot] = nameOf(check[slot]); slots[`${slot}_value`] = shown(values[check[slot]]); }
    }
    throw new RuleError(field, fillSlots(check.message, slots));
  }
}

// Each field of `raw` against its rule, then the required ones; known: false lets fields the set does
// not list pass unchecked.
export function checkFields(R, set, raw, { names = {}, known = true, required = true } = {}) {
  const fields = R[set].fields;
  for (const [field, value] of Object.entries(raw)) {
    if (!(field in fields)) {
      if (known) throw new RuleError(field, ruleMessage(R, "unknown", { field, known: Object.keys(fields).sort().join(", ") }), "unknown");
      continue;
    }
    checkValue(R, fields[field], value, names[field] ?? field);
  }
  for (const [field, rule] of Object.entries(fields)) {
    if (required && rule.required && !(field in raw)) {
      throw new RuleError(field, ruleMessage(R, "missing", { field: names[field] ?? field }), "missing");
    }
  }
  return raw;
}

export function checkEntry(R, set, raw, names = {}) {
  checkFields(R, set, raw, { names });
  checkAcross(R, set, raw, names);
  return raw;
}

// An entry a program built (a custom model or GPU): the fields it gives, then the checks across them.
export function checkObject(R, set, values) {
  const givenFields = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined));
  checkAcross(R, set, checkFields(R, set, givenFields, { known: false, required: false }));
}

const sectionOf = (rule) => (rule.section !== undefined ? `[${rule.section}] ` : "");

// A file whose fields sit at the top or in [section] tables (a workload file), as one flat object
// (rules.check_sectioned); `tables` are other tables the file may hold.
export function checkSectioned(R, set, raw, tables = []) {
  const fields = R[set].fields, names = Object.keys(fields);
  const sections = [...new Set(names.filter((f) => fields[f].section !== undefined).map((f) => fields[f].section))];
  const top = names.filter((f) => fields[f].section === undefined);
  const flat = {};
  for (const [key, value] of Object.entries(raw)) {
    if (sections.includes(key) || tables.includes(key)) {
      if (!isTable(value)) throw new RuleError(key, ruleMessage(R, "not_a_table", { field: `[${key}]`, got: shown(value) }), "kind");
      if (tables.includes(key)) continue;
      const known = names.filter((f) => fields[f].section === key);
      for (const [name, item] of Object.entries(value)) {
        if (!known.includes(name)) {
          throw new RuleError(name, `[${key}] ` + ruleMessage(R, "unknown", { field: name, known: known.join(", ") }), "unknown");
        }
        flat[name] = checkValue(R, fields[name], item, `[${key}] ${name}`);
      }
    } else if (top.includes(key)) {
      flat[key] = checkValue(R, fields[key], value, key);
    } else {
      const known = [...top, ...sections.sort(), ...tables].join(", ");
      throw new RuleError(key, ruleMessage(R, "unknown", { field: key, known }), "unknown");
    }
  }
  for (const [field, rule] of Object.entries(fields)) {
    if (rule.required && !(field in flat)) throw new RuleError(field, sectionOf(rule) + ruleMessage(R, "missing", { field }), "missing");
  }
  try {
    checkAcross(R, set, flat);
  } catch (e) {
    if (!(e instanceof RuleError)) throw e;
    throw new RuleError(e.field, sectionOf(fields[e.field]) + e.message);
  }
  return flat;
}
