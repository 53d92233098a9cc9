"""The KV cache as engines page it: a pool of fixed-size blocks, taken as sequences grow and given back
when they finish or are preempted.

The pool is what the replica's memory leaves: g * M * (the engine's memory fraction) minus the weights it
holds. A block holds `block_tokens` tokens of one sequence in every layer and every copy the layout keeps
(a windowed layer is counted in full: engines that page it separately hold less, so this errs towards
preempting early).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .replica import Replica


def pool_blocks(r: Replica, memory_fraction: float, block_tokens: int) -> int:
    """Blocks the replica's KV pool holds: (g * M * fraction - weights held) / bytes per block."""
    budget = r.gpus * r.memory_bytes * memory_fraction - r.weight_bytes_held
    per_block = block_tokens * r.layers * r.kv_bytes_per_token_layer * r.kv_copies
    return max(0, int(budget // per_block))


@dataclass
class KvPool:
    blocks: int  # in the pool
    block_tokens: int
    used: int = 0

    def blocks_for(self, tokens: int) -> int:
        """Blocks a sequence of `tokens` cached tokens holds: ceil(tokens / block_tokens)."""
        return math.ceil(tokens / self.block_tokens)

    @property
    def free(self) -> int:
        return self.blocks - self.used

    def take(self, n: int) -> bool:
        """Take n blocks if they are free; False (and nothing taken) if not."""
        if n > self.free:
            return False
        self.used += n
        return True

    def give_back(self, n: int) -> None:
        self.used -= n

    @property
    def occupancy(self) -> float:
        return self.used / self.blocks if self.blocks else 0.0
