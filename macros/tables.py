"""Macros for the reference pages (numbers sheet, KV tables, calculator, reality check)."""

from __future__ import annotations

from typing import Any


def register(env: Any) -> None:
    """Called by define_env(): register this module's macros and filters."""
