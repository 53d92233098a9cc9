"""What every gpu_math.py command shares: one-line argument errors, JSON that any parser reads, the
workload file a command names, and the simulate command's argument types."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any, NoReturn

from ..engine.lookup import InputError


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not argparse's usage block
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def json_text(value: Any) -> str:
    """JSON that any parser reads: a figure that does not exist (an infinite or undefined float) is null."""
    def finite(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: finite(x) for k, x in v.items()}
        return [finite(x) for x in v] if isinstance(v, (list, tuple)) else v
    return json.dumps(finite(value), indent=2, allow_nan=False)


def workload_parser(prog: str, description: str, example: str) -> Parser:
    """A command's parser that reads one workload file (FILE, --variant, --json), for the command to add its
    own flags to."""
    p = Parser(prog=prog, allow_abbrev=False, description=description)
    p.add_argument("file", help=f"a workload TOML file, e.g. macros/data/designs/{example}.toml")
    p.add_argument("--variant", help="one of the file's [variants.<name>] tables")
    return p


def workload(args: argparse.Namespace):
    """The workload file's workload, or its --variant."""
    from pathlib import Path

    from ..engine.fleet.workload_file import load_workload_file

    workload, variants = load_workload_file(Path(args.file))
    if args.variant is None:
        return workload
    if args.variant not in variants:
        raise InputError(f"{args.file}: no [variants.{args.variant}] (has: {', '.join(variants) or 'none'})")
    return variants[args.variant]


# The simulate command's argument types, argparse's way (rules.toml holds the fields the calculator's forms
# share; these flags are the command line's alone, and a seed runs to 2^64 - 1, past what a form's number
# holds). tools/gpu_math.mjs mirrors them (SIMULATE_TYPES), and tests/js/test_simulate_twin.py holds the two
# to the same one-line refusals.
def number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return value


def positive(text: str) -> float:
    value = number(text)
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def ratio(text: str) -> float:
    value = number(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}")
    return value


def share(text: str) -> float:
    value = number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number between 0 and 1, got {text!r}")
    return value


def seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2^64 - 1, got {text!r}") from None
    if not 0 <= value < 2 ** 64:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2^64 - 1, got {text!r}")
    return value
