"""Dataclasses of numbers as one of arrays, an entry per object: the closed loop's equilibrium and the fit run
elementwise over many configurations at once (fleet/shapes.py, calibration/)."""

from __future__ import annotations

import dataclasses

import numpy as np


def stacked(objs: list) -> object:
    """One object of the objects' class whose every field is the array of theirs."""
    cls = type(objs[0])
    return cls(**{f.name: np.array([getattr(o, f.name) for o in objs]) for f in dataclasses.fields(cls)})
