"""The formula contract (stated for readers on docs/conventions.md): pure functions in SI base units, by subject.

Every argument and result is in bytes, seconds, FLOP, FLOP/s, bytes/s or USD. Each function takes
plain numbers or numpy arrays alike, so tables and charts reuse the same code; numpy is imported only
when an array is passed, which keeps the calculator's start-up fast. Nothing here rounds or formats:
that is macros/text/fmt.py's job. Callers use the flat namespace: `from macros.engine import formulas as f`.

Symbols: N total parameters, N_a active parameters per token, L layers, H_kv KV heads, d_h head dim,
w bytes per weight, k bytes per KV element, g GPUs in one tensor-parallel group, M memory per GPU,
B bandwidth per GPU, P dense peak FLOP/s per GPU, s tokens of context, b batch (concurrent
sequences), R reserve per GPU.
"""

from .agents import *  # noqa: F401,F403
from .batch import *  # noqa: F401,F403
from .capacity import *  # noqa: F401,F403
from .completion import *  # noqa: F401,F403
from .lora import *  # noqa: F401,F403
from .memory import *  # noqa: F401,F403
from .moe import *  # noqa: F401,F403
from .queueing import *  # noqa: F401,F403
from .rag import *  # noqa: F401,F403
from .roofline import *  # noqa: F401,F403
from .routing import *  # noqa: F401,F403
from .techniques import *  # noqa: F401,F403
