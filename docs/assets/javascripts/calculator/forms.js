// What the calculator's and the planner's forms share (calc-form.js, plan-form.js; loaded by ui.js after
// the engine bundle): fields built from a list, each read and checked by the rules of validation through
// the bundle (GpuMath.fromText, checkValue, checkAcross apply rules.toml; no rule is written here), its
// message beside it in the form's words (its label where the rule says {field}); the URL's query holding
// every field's state; and the results formatted by format.js (fmt.py's rule), shown only when every
// figure exists and is finite.
//
// A field: { name, label, rule: [set, field] (a number: its rule in catalog.rules), scale (what the
// typed value is multiplied by to give the rule's SI value), empty (what a blank means, shown as the
// placeholder: without it a blank is refused), options ([[value, text]]: a select) }.
(function () {
  "use strict";

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { e.appendChild(c); });
    return e;
  }

  function ruleOf(R, spec) { return R[spec.rule[0]].fields[spec.rule[1]]; }

  // The label, the input and the line for its message. A number is typed in a text input with a numeric
  // keyboard: <input type=number> hands a script "" for "1e" or "-", so a half-typed number would be
  // computed as a blank one.
  function field(R, formId, spec) {
    var id = formId + "-" + spec.name, input;
    if (spec.options) {
      input = el("select", { id: id, name: spec.name });
      spec.options.forEach(function (o) { input.appendChild(el("option", { value: o[0], text: o[1] })); });
    } else {
      input = el("input", { id: id, name: spec.name, type: "text", autocomplete: "off", spellcheck: "false",
        inputmode: ruleOf(R, spec).kind === "whole" ? "numeric" : "decimal" });
      if (spec.empty) input.placeholder = spec.empty;
    }
    input.setAttribute("aria-describedby", id + "-msg");
    return el("div", { "class": "gpu-calc__field", "data-field": spec.name },
      [el("label", { "for": id, text: spec.label }), input, el("p", { id: id + "-msg", "class": "gpu-calc__msg" })]);
  }

  function texts(form) {
    var out = {};
    Array.prototype.forEach.call(form.elements, function (e) { if (e.name) out[e.name] = e.value; });
    return out;
  }

  function setTexts(form, state) {
    Object.keys(state).forEach(function (k) {
      var e = form.elements[k];
      if (e === undefined) return;
      // A select keeps its value when the query names no option of it (a key from an older catalog).
      if (e.tagName === "SELECT" && !Array.prototype.some.call(e.options, function (o) { return o.value === String(state[k]); })) return;
      e.value = state[k];
    });
  }

  // Each field's value in its form units (null: blank where a blank means something), and the message
  // of each field that breaks its rule.
  function read(R, form, specs) {
    var values = {}, errors = {};
    specs.forEach(function (spec) {
      var text = form.elements[spec.name].value;
      if (spec.options) { values[spec.name] = text; return; }
      if (spec.empty && text.trim() === "") { values[spec.name] = null; return; }
      try {
        var v = GpuMath.fromText(R, spec.rule[0], spec.rule[1], text, spec.label);
        // In SI units it must stay finite too (1e300 billion parameters does not).
        if (spec.scale) GpuMath.checkValue(R, ruleOf(R, spec), v * spec.scale, spec.label, "'" + text + "'");
        values[spec.name] = v;
      } catch (e) {
        if (!(e instanceof GpuMath.RuleError)) throw e;
        errors[spec.name] = e.message;
      }
    });
    return { values: values, errors: errors };
  }

  // The rules of `set` that span fields, on the fields' values in form units (a check compares fields of
  // the same unit), named by their labels; the message goes beside the field the rule blames. `also`
  // holds values the set's checks read that are not fields of the form. They run once every field has
  // passed its own rule (a refused field has no value to compare).
  function across(R, set, specs, values, errors, also) {
    if (Object.keys(errors).length) return;
    var byRule = Object.assign({}, also || {}), names = {}, nameOf = {};
    specs.forEach(function (spec) {
      if (!spec.rule || spec.rule[0] !== set) return;
      byRule[spec.rule[1]] = values[spec.name]; names[spec.rule[1]] = spec.label; nameOf[spec.rule[1]] = spec.name;
    });
    try {
      GpuMath.checkAcross(R, set, byRule, names);
    } catch (e) {
      if (!(e instanceof GpuMath.RuleError)) throw e;
      errors[nameOf[e.field] || ""] = e.message;
    }
  }

  // The messages beside their fields, every other field's cleared (a hidden custom field's too); a
  // message for no field goes in `general`.
  function mark(form, errors, general) {
    Array.prototype.forEach.call(form.elements, function (input) {
      if (!input.name) return;
      var text = errors[input.name] || "";
      document.getElementById(input.id + "-msg").textContent = text;
      if (text) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
    });
    general.textContent = errors[""] || "";
  }

  // --- the URL's query: every field that differs from its default, a blank ("auto") included --------
  function readQuery() {
    var out = {};
    new URLSearchParams(location.search).forEach(function (v, k) { out[k] = v; });
    return out;
  }

  function writeQuery(state, defaults) {
    var q = new URLSearchParams();
    Object.keys(state).forEach(function (k) {
      if (String(state[k]) !== String(defaults[k] === undefined || defaults[k] === null ? "" : defaults[k])) q.set(k, state[k]);
    });
    var search = q.toString();
    history.replaceState(history.state, "", location.pathname + (search ? "?" + search : "") + location.hash);
  }

  // --- the results --------------------------------------------------------------------------------
  function formats(cat) {
    var F = cat.format, f = GpuMath.format;
    return {
      bytes: function (x) { return f.si(F, x, "B"); }, ms: function (x) { return f.ms(F, x); },
      count: function (x) { return f.count(F, x); }, num: function (x) { return f.num(F, x); },
      tps: function (x) { return f.tokensPerS(F, x); }, usd: function (x) { return f.usd(F, x); },
      pct: function (x) { return f.pct(F, x); }, flops: function (x) { return f.flopsRate(F, x); },
      text: function (x) { return String(x); },
    };
  }

  // A figure that cannot be shown: not finite, or a count below zero.
  function absurd(row) {
    var v = row[2];
    return row[3] !== "text" && typeof v === "number" && (!Number.isFinite(v) || (row[3] === "count" && v < 0));
  }

  // rows: [key, label, value, format]; a null value is left out; { none: "words" } says in words why a
  // figure does not exist, where it would be. Each figure (not words) carries its raw SI value in data-value.
  // Returns false, showing nothing, when a figure is not finite.
  function results(box, FMT, rows) {
    var bad = rows.filter(absurd);
    if (bad.length) {
      pending(box, "These inputs take " + bad.map(function (r) { return r[1].toLowerCase(); }).join(", ")
        + " out of range: no figure is shown.");
      return false;
    }
    var dl = el("dl", { "class": "gpu-calc__results" });
    rows.forEach(function (r) {
      if (r[2] === null || r[2] === undefined) return;
      var missing = typeof r[2] === "object";
      var dd = missing ? el("dd", { "data-key": r[0], "class": "gpu-calc__none", text: r[2].none })
        : el("dd", { "data-key": r[0], text: FMT[r[3]](r[2]) });
      if (!missing && r[3] !== "text") dd.setAttribute("data-value", String(r[2]));
      // Words longer than a tile holds take the row.
      var wide = r[3] === "text" && String(r[2]).length > 20;
      dl.appendChild(el("div", { "class": "gpu-calc__item" + (wide ? " gpu-calc__item--wide" : "") },
        [el("dt", { text: r[1] }), dd]));
    });
    box.innerHTML = "";
    box.appendChild(dl);
    return true;
  }

  // The results area when there is nothing to show: what to do instead.
  function pending(box, words) {
    box.innerHTML = "";
    box.appendChild(el("p", { "class": "gpu-calc__pending", text: words }));
  }

  function fixFirst(box, errors) {
    var n = Object.keys(errors).filter(function (k) { return k !== ""; }).length;
    pending(box, n ? "The inputs need fixing: " + n + (n === 1 ? " field is" : " fields are") + " marked. "
      + "No figure is shown until every field holds a value it can take." : "The inputs need fixing: see the message above.");
  }

  // The tool's frame: the form beside the results (one above the other on a narrow screen), the
  // charts under both (outside the pair, so the results, kept in view, stop above them).
  function frame(box, form, label) {
    var general = el("p", { "class": "gpu-calc__error", role: "alert" });
    var out = el("div", { "class": "gpu-calc__out", "aria-live": "polite" });
    var charts = el("div", { "class": "gpu-calc__charts" });
    var side = el("section", { "class": "gpu-calc__side", "aria-label": label }, [general, out]);
    box.innerHTML = "";
    box.appendChild(el("div", { "class": "gpu-calc__io" }, [form, side]));
    box.appendChild(charts);
    return { general: general, out: out, charts: charts };
  }

  window.GpuForms = { el: el, field: field, texts: texts, setTexts: setTexts, read: read, across: across, mark: mark,
    readQuery: readQuery, writeQuery: writeQuery, formats: formats, results: results, pending: pending,
    fixFirst: fixFirst, frame: frame };
})();
