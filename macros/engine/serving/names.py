"""The names the serving model's parameters are kept under: the engines it models and the GPU families it
fits. A leaf module, so that the rules of input (rules.py) can offer the engines as a choice."""

FAMILIES = ("hopper", "blackwell", "cdna3", "cdna4")
ENGINES = ("vllm", "sglang", "trt", "atom")
