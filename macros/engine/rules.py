"""The rules every input must pass (data/rules.toml), applied where an input enters the engine: the
spec loader, the workload reader, the config reader, the command line and scenario(). The browser's
twin (docs/assets/javascripts/calculator/rules.js) applies the same table from catalog.json, so the
two refuse the same inputs with the same words; tests/vectors/bad_inputs.json holds the cases.

    check_entry("model", raw, where)      # a table from a file: every field, then the checks across them
    from_text("scenario", "gpus", "0", name="--gpus")   # a value typed on a command line or in a form

A broken rule raises RuleError, whose text names the field in the reader's words ("kv_heads 7 must
divide query_heads 64: ..."); the caller puts the file and the entry in front of it.
"""

from __future__ import annotations

import functools
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from .formulas.memory import LAYOUTS
from .serving.names import ENGINES, FLEET_MODES

PATH = Path(__file__).resolve().parent.parent / "data" / "rules.toml"
COMPUTE_PEAKS = ("bf16", "fp8", "fp4")  # which dense peak a format's matmuls use: Gpu.<peak>_flops
SETS = ("gpu", "model", "precision", "price", "claim", "measurement", "scenario", "workload", "hf_config")
KINDS = ("number", "whole", "text", "flag", "texts", "table", "choice")
# A number as typed: digits with an optional point and exponent; inf and nan are read, then refused.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_NOT_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_SPACE = re.compile(r"^[ \t\r\n]+|[ \t\r\n]+$")


class RuleError(ValueError):
    """An input breaks a rule. `field` is the field it names; the text is one line in the reader's words."""

    def __init__(self, field: str, message: str, kind: str = "check") -> None:
        super().__init__(message)
        self.field, self.kind = field, kind


@functools.lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    """data/rules.toml, checked for its own shape (a typo in it would otherwise pass every input)."""
    with open(PATH, "rb") as fh:
        raw = tomllib.load(fh)
    for name in SETS:
        for field, rule in raw[name]["fields"].items():
            if rule.get("kind") not in KINDS or not set(rule) <= {"kind", "above", "min", "max", "required", "nonempty",
                                                                   "section", "flag", "scale", "values_from"}:
                raise RuleError(field, f"{PATH.name}: [{name}.fields] {field}: unknown kind or key in {rule!r}")
        for check in raw[name].get("checks", []):
            if check["check"] not in _CHECKS:
                raise RuleError(check["field"], f"{PATH.name}: [{name}.checks]: unknown check {check['check']!r}")
    return raw


def lists(precisions: Sequence[str] = ()) -> dict[str, Sequence[str]]:
    """The lists a `choice` field may name in values_from."""
    return {"layouts": LAYOUTS, "compute_peaks": COMPUTE_PEAKS, "precisions": tuple(precisions), "engines": ENGINES,
            "fleet_modes": FLEET_MODES}


# --- words ------------------------------------------------------------------------------------

def shown(value: Any) -> str:
    """A value as a message shows it, the same in Python and JavaScript: numbers plainly between 1e-4
    and 1e6 and in shortest exponent form outside (8e10, 1.35e15), inf and nan as such, text quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value == 0:
            return "0"
        if 1e-4 <= abs(value) < 1e6:
            text = repr(value) if isinstance(value, float) else str(value)
            return text[:-2] if text.endswith(".0") else text
        sign, digits, exponent = Decimal(repr(value) if isinstance(value, float) else value).normalize().as_tuple()
        mantissa = "".join(map(str, digits))
        mantissa = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
        return f"{'-' if sign else ''}{mantissa}e{exponent + len(digits) - 1}"
    if isinstance(value, str):
        return f"'{value}'"
    return {list: "a list", dict: "a table"}.get(type(value), f"a {type(value).__name__}")


def close_keys(key: str, keys: Sequence[str], most: int = 3) -> list[str]:
    """Keys a typo may have meant: within max(1, len(key) // 3) single-character edits, the closest first
    (then in the data's order). The browser's twin finds the same ones."""
    def edits(a: str, b: str) -> int:
        row = list(range(len(b) + 1))
        for i, ca in enumerate(a, 1):
            prev, row[0] = row[0], i
            for j, cb in enumerate(b, 1):
                prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        return row[-1]
    limit = max(1, len(key) // 3)
    scored = sorted((d, n, k) for n, k in enumerate(keys) if (d := edits(key, k)) <= limit)
    return [k for _, _, k in scored[:most]]


def _fill(template: str, **values: Any) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), m.group(0))), template)


def expected(rule: Mapping[str, Any]) -> str:
    """What a field must be, in words: "a positive whole number", "a number between 0 and 1"."""
    words, kind = table()["words"], rule["kind"]
    if kind == "text":
        return words["nonempty" if rule.get("nonempty") else "text"]
    if kind not in ("number", "whole"):
        return words[kind]
    noun = words[kind][2:]  # "a number" -> "number"
    above, low, high = rule.get("above"), rule.get("min"), rule.get("max")
    article = "an" if noun[0] in "aeiou" else "a"
    if high is None:
        if above == 0:
            return _fill(words["positive"], noun=noun)
        if low == 0:
            return _fill(words["zero_or_more"], noun=noun)
        if above is not None:
            return _fill(words["above"], article=article, noun=noun, bound=shown(above))
        if low is not None:
            return _fill(words["at_least"], article=article, noun=noun, bound=shown(low))
        return words[kind]
    if above is not None:
        return _fill(words["above_at_most"], article=article, noun=noun, low=shown(above), high=shown(high))
    if low is not None:
        return _fill(words["between"], article=article, noun=noun, low=shown(low), high=shown(high))
    return _fill(words["at_most"], article=article, noun=noun, bound=shown(high))


def _message(key: str, **values: Any) -> str:
    return _fill(table()["messages"][key], **values)


# --- one value --------------------------------------------------------------------------------

def rule_of(set_name: str, field: str) -> dict[str, Any]:
    return table()[set_name]["fields"][field]


def check_value(rule: Mapping[str, Any], value: Any, name: str, choices: Mapping[str, Sequence[str]] | None = None,
                got: str | None = None) -> Any:
    """The value, a whole number as an int; or RuleError naming `name`. `got` shows the value as typed."""
    kind, got = rule["kind"], shown(value) if got is None else got

    def wrong(message: str = "kind") -> RuleError:
        return RuleError(name, _message(message, field=name, expected=expected(rule), got=got), message)

    if kind in ("number", "whole"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise wrong()
        if not math.isfinite(value):
            raise wrong("finite")
        if kind == "whole":
            if value != int(value):
                raise wrong()
            value = int(value)
        above, low, high = rule.get("above"), rule.get("min"), rule.get("max")
        if (above is not None and not value > above) or (low is not None and value < low) or \
                (high is not None and value > high):
            raise wrong()
    elif kind == "text":
        if not isinstance(value, str) or (rule.get("nonempty") and not value):
            raise wrong()
    elif kind == "flag":
        if not isinstance(value, bool):
            raise wrong()
    elif kind == "texts":
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise wrong()
    elif kind == "table":
        if not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
            raise wrong()
    elif kind == "choice":
        values = (choices or lists())[rule["values_from"]]
        if not isinstance(value, str) or value not in values:
            raise RuleError(name, _message("choice", field=name, values=", ".join(values), got=got), "choice")
    return value


def parse_text(rule: Mapping[str, Any], text: str, name: str,
               choices: Mapping[str, Sequence[str]] | None = None) -> Any:
    """A value typed on a command line or in a form, read as its rule's kind and checked."""
    got, bare = f"'{text}'", _SPACE.sub("", text)
    if rule["kind"] in ("number", "whole"):
        if _NOT_FINITE.fullmatch(bare):
            return check_value(rule, float(bare), name, choices, got)
        value: Any = float(bare) if _NUMBER.fullmatch(bare) else text
        return check_value(rule, value, name, choices, got)
    return check_value(rule, text, name, choices, got)


def from_text(set_name: str, field: str, text: str, name: str | None = None,
              choices: Mapping[str, Sequence[str]] | None = None) -> Any:
    return parse_text(rule_of(set_name, field), text, name or field, choices)


# --- a table of fields ------------------------------------------------------------------------

def _given(value: Any) -> bool:
    return value is not None and value != 0 and value != ""


def _not_with(v: Any, others: list[Any]) -> bool:
    return not _given(v) or not any(_given(o) for o in others)


_CHECKS = {  # (the field's value, the other's or the others') -> whether the check holds
    "not_above": lambda v, o: v <= o, "below": lambda v, o: v < o, "not_below": lambda v, o: v >= o,
    "divides": lambda v, o: o % v == 0, "together": lambda v, o: _given(v) == _given(o),
    "needs": lambda v, o: not _given(v) or _given(o), "either": lambda v, o: _given(v) or _given(o),
    "not_with": _not_with, "or_all": lambda v, others: _given(v) or all(_given(o) for o in others),
    "or_any": lambda v, others: _given(v) or any(_given(o) for o in others),
    "within": lambda v, bounds: bounds[0] <= v <= bounds[1],
}
_ANY_GIVEN = ("together", "needs", "either", "not_with", "or_all", "or_any")  # checks about presence itself


def check_across(set_name: str, values: Mapping[str, Any], names: Mapping[str, str] | None = None) -> None:
    """The checks that span fields (absent fields read as None)."""
    names = names or {}
    for check in table()[set_name].get("checks", []):
        field = check["field"]
        if ("when" in check and not _given(values.get(check["when"]))) or _given(values.get(check.get("unless"))):
            continue
        others = check.get("others") or ([check["low"], check["high"]] if check["check"] == "within"
                                         else [check["other"]])
        v, o = values.get(field), [values.get(k) for k in others]
        if check["check"] not in _ANY_GIVEN and not (_given(v) and all(_given(x) for x in o)):
            continue
        arg = o if check["check"] in ("within", "not_with", "or_all", "or_any") else o[0]
        if _CHECKS[check["check"]](v, arg):
            continue
        slots = {"field": names.get(field, field), "value": shown(v),
                 "others": (" or " if check["check"] == "or_any" else " and ").join(names.get(k, k) for k in others)}
        for slot, key in (("other", check.get("other")), ("low", check.get("low")), ("high", check.get("high"))):
            if key is not None:
                slots[slot], slots[f"{slot}_value"] = names.get(key, key), shown(values.get(key))
        raise RuleError(field, _fill(check["message"], **slots))


def check_fields(set_name: str, raw: Mapping[str, Any], names: Mapping[str, str] | None = None,
                 choices: Mapping[str, Sequence[str]] | None = None, known: bool = True,
                 required: bool = True) -> dict[str, Any]:
    """Each field of `raw` against its rule, then the required ones; `known=False` lets fields the
    set does not list pass unchecked. Returns the values, whole numbers as ints."""
    fields, names = table()[set_name]["fields"], names or {}
    out = {}
    for field, value in raw.items():
        if field not in fields:
            if known:
                raise RuleError(field, _message("unknown", field=field, known=", ".join(sorted(fields))), "unknown")
            out[field] = value
            continue
        out[field] = check_value(fields[field], value, names.get(field, field), choices)
    for field, rule in fields.items():
        if required and rule.get("required") and field not in raw:
            raise RuleError(field, _message("missing", field=names.get(field, field)), "missing")
    return out


def check_entry(set_name: str, raw: Mapping[str, Any], names: Mapping[str, str] | None = None,
                choices: Mapping[str, Sequence[str]] | None = None) -> dict[str, Any]:
    """A whole entry: every field, then the checks across fields."""
    values = check_fields(set_name, raw, names, choices)
    check_across(set_name, values, names)
    return values


def check_object(set_name: str, values: Mapping[str, Any], choices: Mapping[str, Sequence[str]] | None = None) -> None:
    """An entry a program built rather than read from a file (a custom model or GPU, a model read
    from a config): the fields it gives (None: not given), then the checks across fields."""
    given = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items() if v is not None}
    check_across(set_name, check_fields(set_name, given, choices=choices, known=False, required=False))


def _prefixed(rule: Mapping[str, Any]) -> str:
    return f"[{rule['section']}] " if "section" in rule else ""


def check_sectioned(set_name: str, raw: Mapping[str, Any], tables: Sequence[str] = ()) -> dict[str, Any]:
    """A file whose fields sit at the top or in [section] tables (a workload file), as one flat table:
    every field checked and named with its section ("[traffic] prompt_tokens must be ..."), then the
    required ones, then the checks across fields. `tables` are other tables the file may hold."""
    fields = table()[set_name]["fields"]
    sections = {rule["section"] for rule in fields.values() if "section" in rule}
    top = [f for f, rule in fields.items() if "section" not in rule]
    flat: dict[str, Any] = {}
    for key, value in raw.items():
        if key in sections or key in tables:
            if not isinstance(value, dict):
                raise RuleError(key, _message("not_a_table", field=f"[{key}]", got=shown(value)), "kind")
            if key in tables:
                continue
            known = [f for f, rule in fields.items() if rule.get("section") == key]
            for name, item in value.items():
                if name not in known:
                    raise RuleError(name, f"[{key}] " + _message("unknown", field=name, known=", ".join(known)),
                                    "unknown")
                flat[name] = check_value(fields[name], item, f"[{key}] {name}")
        elif key in top:
            flat[key] = check_value(fields[key], value, key)
        else:
            known = ", ".join([*top, *sorted(sections), *tables])
            raise RuleError(key, _message("unknown", field=key, known=known), "unknown")
    for field, rule in fields.items():
        if rule.get("required") and field not in flat:
            raise RuleError(field, _prefixed(rule) + _message("missing", field=field), "missing")
    try:
        check_across(set_name, flat)
    except RuleError as exc:
        raise RuleError(exc.field, _prefixed(fields[exc.field]) + str(exc)) from None
    return flat


def table_json(precisions: Sequence[str]) -> dict[str, Any]:
    """The table as catalog.json carries it: rules.toml as read, and the lists `values_from` names."""
    return {**table(), "lists": {k: list(v) for k, v in lists(precisions).items()}}
