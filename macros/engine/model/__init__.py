"""One model on one replica, through the formulas: what a model is (`geometry`, `hf_config` and `hf_params` for a
Hugging Face config.json, `adapters` for LoRA), how it is placed on a GPU group (`placement`), every figure of
the calculator (`scenario`), and the published runs set beside their floors (`measurements`)."""
