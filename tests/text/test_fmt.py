"""fmt.py: decimal SI, labelled binary, fixed significant figures, no raw floats."""

from __future__ import annotations

from macros.text import fmt


def test_significant_figures_and_separators():
    assert fmt.num(5382.135) == "5,380"
    assert fmt.num(0.14150090) == "0.142"
    assert fmt.num(295.343) == "295"
    assert fmt.num(8.0) == "8"  # no trailing zeros
    assert fmt.num(6710886400.000001) == "6,710,000,000"  # never a raw float
    assert fmt.num(327_680) == "327,680"  # a Python int is a count: every digit kept


def test_decimal_si():
    assert fmt.bytes_(1_342_177_280) == "1.34 GB"
    assert fmt.bytes_(164e9) == "164 GB"
    assert fmt.bandwidth(3.35e12) == "3.35 TB/s"
    assert fmt.flops_rate(989.4e12) == "989.4 TFLOP/s"
    assert fmt.flops_rate(1978.9e12) == "1,979 TFLOP/s"  # datasheets keep TFLOP/s above 1,000
    assert fmt.flops(140e9) == "140 GFLOP"
    assert fmt.bytes_(-64e9) == "-64 GB"
    assert fmt.bytes_(999.9e9) == "1 TB"  # rounding carries into the next prefix


def test_binary_is_labelled():
    assert fmt.binary(327_680) == "320 KiB"
    assert fmt.binary(1_342_177_280) == "1.25 GiB"
    assert fmt.bytes_exact(327_680) == "327,680 B (320 KiB)"


def test_durations_money_ratios():
    assert fmt.seconds(0.022667) == "22.7 ms"
    assert fmt.seconds(0.28300) == "283 ms"
    assert fmt.seconds(1.5e-4) == "150 µs"
    assert fmt.seconds(27.3) == "27.3 s"
    assert fmt.ms(0.14150e-3, 4) == "0.1415 ms"
    assert fmt.usd(1.2903) == "$1.29"
    # to the cent, rounded once: 11.65 is not 11.6 (three figures) shown as $11.60; 0.9649 is $0.96, not
    # 0.965 rounded again to $0.97
    assert fmt.usd(11.65) == "$11.65" and fmt.usd(0.9649) == "$0.96" and fmt.usd(99.994) == "$100"
    assert fmt.usd(10) == "$10.00"
    assert fmt.usd(1234.5) == "$1,230"
    assert fmt.pct(0.4) == "40%"
    assert fmt.times(295.34) == "295×"
    assert fmt.params(70e9) == "70e9"
    assert fmt.params(70_553_706_496) == "70.55e9"
    assert fmt.billion(70_553_706_496) == "70.6 billion"
