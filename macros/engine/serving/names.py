"""The names the serving model's parameters are kept under (the engines it models, the GPU families it
fits and the benchmarks whose prompt lengths it estimates), and how a fleet's pools are laid out. A leaf
module, so that the rules of input (rules.py) can offer them as choices."""

FAMILIES = ("hopper", "blackwell", "cdna3", "cdna4")
ENGINES = ("vllm", "sglang", "trt", "atom")
# MLPerf Inference's dense benchmarks, by the model each serves: their datasets' mean prompts are fitted beside the
# model's parameters, since MLCommons publishes none (calibration/mlperf.py)
BENCHMARKS = ("llama-2-70b", "llama-3.1-8b", "llama-3.1-405b")
FLEET_MODES = ("colocated", "disaggregated")  # prefill and decode on the same replicas, or in pools of their own
