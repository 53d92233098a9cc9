"""The only place a number becomes a string.

Decimal SI throughout (1 GB = 10^9 B); binary units only when asked for, and then labelled
(KiB, MiB, GiB). Rounding to significant figures happens here and nowhere else, so no page
shows faux precision or a raw float. The browser's forms format with the same rule
(docs/assets/javascripts/calculator/format.js, reading RULES from catalog.json's "format"), and
tests/vectors/format.json holds both to the same strings: round to the significant figures first,
then pick the unit from the rounded value (999.6e9 B is "1 TB", never "1,000 GB"), every tie away
from zero on the float's exact value.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

SIG = 3  # significant figures, unless a caller asks for more
_SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))
_BINARY = ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))
_TIME = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
USD_WHOLE_FROM = 100  # dollars and cents below, whole dollars from here
# What the browser's format.js reads (catalog.json "format"): the same steps and figures.
RULES = {"sig": SIG, "si": [list(p) for p in _SI], "time": [list(t) for t in _TIME], "usd_whole_from": USD_WHOLE_FROM}


def round_sig(x: float, sig: int = 3) -> float:
    """x rounded to `sig` significant figures, a tie away from zero (1.125 -> 1.13, as a reader rounds),
    on the float's exact value: the rule JavaScript's toPrecision follows, so the browser's forms
    (format.js) show what the pages show."""
    if x == 0 or not math.isfinite(x):
        return x
    exact = Decimal(x) if isinstance(x, int) else Decimal(float(x))
    rounded = float(exact.quantize(Decimal(1).scaleb(exact.adjusted() - sig + 1), rounding=ROUND_HALF_UP))
    return int(rounded) if isinstance(x, int) else rounded


def _fixed(x: float, decimals: int) -> str:
    """x with `decimals` decimals and thousands separators, a tie away from zero (JavaScript's toFixed);
    no sign on a zero."""
    exact = Decimal(x) if isinstance(x, int) else Decimal(float(x))
    rounded = exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{abs(rounded) if rounded == 0 else rounded:,.{decimals}f}"


def num(x: float, sig: int = SIG) -> str:
    """A plain number to at most `sig` significant figures, with thousands separators and
    no trailing zeros: 5382.4 -> "5,380", 0.14151 -> "0.142", 8.0 -> "8". Python ints
    are counts and keep every digit: 327680 -> "327,680"."""
    if isinstance(x, int):
        return f"{x:,}"
    r = round_sig(float(x), sig)
    if r == 0:
        return "0"
    text = _fixed(r, max(0, sig - 1 - math.floor(math.log10(abs(r)))))
    return text.rstrip("0").rstrip(".") if "." in text else text


def count(x: float) -> str:
    """A whole count with thousands separators: 327680 -> "327,680"; 2.5 -> "3"."""
    return _fixed(x, 0)


def si(x: float, unit: str, sig: int = 3) -> str:
    """Decimal SI prefix: si(1.342e9, "B") -> "1.34 GB"; si(3.35e12, "B/s") -> "3.35 TB/s"."""
    if x == 0:
        return f"0 {unit}"
    r = round_sig(abs(x), sig)
    for scale, prefix in _SI:
        if r >= scale:
            return f"{'-' if x < 0 else ''}{num(r / scale, sig)} {prefix}{unit}"
    return f"{num(x, sig)} {unit}"


def bytes_(x: float, sig: int = 3) -> str:
    return si(x, "B", sig)


def binary(x: float, sig: int = 3) -> str:
    """Binary prefix, labelled as such: 327680 -> "320 KiB"; 1342177280 -> "1.25 GiB"."""
    for scale, unit in _BINARY:
        if abs(x) >= scale:
            return f"{num(x / scale, sig)} {unit}"
    return f"{num(x, sig)} B"


def bytes_exact(x: float) -> str:
    """Exact bytes with the binary equivalent labelled: "327,680 B (320 KiB)"."""
    return f"{count(x)} B ({binary(x)})" if abs(x) >= 1024 else f"{count(x)} B"


def bandwidth(x: float, sig: int = 3) -> str:
    return si(x, "B/s", sig)


def flops(x: float, sig: int = 4) -> str:
    """A FLOP count: 1.4e11 -> "140 GFLOP"."""
    return si(x, "FLOP", sig)


def flops_rate(x: float, sig: int = 4) -> str:
    """A FLOP rate in TFLOP/s, as datasheets print it: 989.4e12 -> "989.4 TFLOP/s",
    1978.9e12 -> "1,979 TFLOP/s" (dense unless said otherwise)."""
    if 1e12 <= abs(x) < 1e16:
        return f"{num(x / 1e12, sig)} TFLOP/s"
    return si(x, "FLOP/s", sig)


def seconds(x: float, sig: int = 3) -> str:
    """A duration in the largest unit that keeps it at 1 or more: 0.0227 -> "22.7 ms"."""
    r = round_sig(x, sig)
    for scale, unit in _TIME:
        if abs(r) >= scale:
            return f"{num(r / scale, sig)} {unit}"
    return f"{num(x / 1e-9, sig)} ns"


def ms(x: float, sig: int = 3) -> str:
    """A duration always in milliseconds: 0.00014151 -> "0.142 ms"."""
    return f"{num(x * 1e3, sig)} ms"


def usd(x: float, sig: int = 3) -> str:
    """US dollars: to the cent below 100 (rounded once: 11.65 -> "$11.65", not "$11.60" by way of 11.6), whole
    dollars to `sig` figures above: 1.2 -> "$1.20", 1234.5 -> "$1,230"."""
    r = round_sig(x, sig)
    cents = abs(r) < USD_WHOLE_FROM
    shown = _fixed(abs(x) if cents else abs(r), 2 if cents else 0)
    return f"{'-' if r < 0 else ''}${shown}"


def pct(x: float, sig: int = 3) -> str:
    """A fraction as a percentage: 0.4 -> "40%"."""
    return f"{num(x * 100, sig)}%"


def times(x: float, sig: int = 3) -> str:
    """A ratio: 295.3 -> "295×"."""
    return f"{num(x, sig)}×"


def tokens_per_s(x: float, sig: int = 3) -> str:
    return f"{num(x, sig)} tokens/s"


def tokens(x: float) -> str:
    return f"{count(x)} tokens"


def watts(x: float) -> str:
    return f"{num(x, 4)} W"


def params(x: float, sig: int = 4) -> str:
    """A parameter count in napkin notation: 70e9 -> "70e9", 70_553_706_496 -> "70.55e9"."""
    if abs(x) < 1e9:
        return f"{num(x / 1e6, sig)}e6"
    return f"{num(x / 1e9, sig)}e9"


def billion(x: float, sig: int = 3) -> str:
    """A parameter count in words: 70_553_706_496 -> "70.6 billion"."""
    return f"{num(x / 1e9, sig)} billion"


def span(low: float, high: float | None, unit: str) -> str:
    """A value or a range in its unit: (1.5, 3, "×") -> "1.5–3×"; (0.45, 0.6, "%") -> "45–60%";
    (16, None, "tokens") -> "16 tokens"; (30, None, "s") -> "30 s"."""
    if unit == "%":
        low, high = low * 100, (None if high is None else high * 100)
    value = num(low) if high is None else f"{num(low)}–{num(high)}"
    return f"{value}{unit}" if unit in ("%", "×") else f"{value} {unit}"
