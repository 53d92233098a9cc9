"""The names the serving model's parameters are kept under (the engines it models and the GPU families it
fits), and how a fleet's pools are laid out. A leaf module, so that the rules of input (rules.py) can offer
them as choices."""

FAMILIES = ("hopper", "blackwell", "cdna3", "cdna4")
ENGINES = ("vllm", "sglang", "trt", "atom")
FLEET_MODES = ("colocated", "disaggregated")  # prefill and decode on the same replicas, or in pools of their own
