"""The only place a number becomes a string.

Decimal SI throughout (1 GB = 10^9 B); binary units only when asked for, and then labelled
(KiB, MiB, GiB). Rounding to significant figures happens here and nowhere else, so no page
shows faux precision or a raw float.
"""

from __future__ import annotations

import math

_SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))
_BINARY = ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))
_TIME = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def round_sig(x: float, sig: int = 3) -> float:
    """x rounded to `sig` significant figures."""
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, sig - 1 - math.floor(math.log10(abs(x))))


def num(x: float, sig: int = 3) -> str:
    """A plain number to at most `sig` significant figures, with thousands separators and
    no trailing zeros: 5382.4 -> "5,380", 0.14150 -> "0.142", 8.0 -> "8". Python ints
    are counts and keep every digit: 327680 -> "327,680"."""
    if isinstance(x, int):
        return f"{x:,}"
    r = round_sig(float(x), sig)
    if r == 0:
        return "0"
    decimals = max(0, sig - 1 - math.floor(math.log10(abs(r))))
    text = f"{r:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def count(x: float) -> str:
    """A whole count with thousands separators: 327680 -> "327,680"."""
    return f"{int(round(x)):,}"


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
    """A duration always in milliseconds: 0.00014150 -> "0.142 ms"."""
    return f"{num(x * 1e3, sig)} ms"


def usd(x: float, sig: int = 3) -> str:
    """US dollars: cents below 100, whole dollars above: 1.2 -> "$1.20", 2.5 -> "$2.50"."""
    r = round_sig(x, sig)
    return f"${r:,.2f}" if abs(r) < 100 else f"${r:,.0f}"


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
