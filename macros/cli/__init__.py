"""gpu_math.py's commands beyond the calculator: each a parser and a main, over macros/ (engine and text)."""
