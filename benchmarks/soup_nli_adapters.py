"""Weight-space interpolation of two NLI judge adapters (WiSE-FT: Wortsman et al., "Robust fine-tuning of
zero-shot models", CVPR 2022): the shipped adapter and a fine-tune of it, mixed so that the new domain's gain
is kept and the old domain's behaviour is not lost.

    python benchmarks/soup_nli_adapters.py OLD_DIR NEW_DIR OUT_DIR --alpha 0.5

Exact, no training: every LoRA target's update becomes ``(1 - alpha) * dW_old + alpha * dW_new``. The rank
factors are concatenated (``A = [A_old; A_new]``, ``B = [(1 - alpha) B_old, alpha B_new]``, so
``B A`` is the mix) with ``r`` and ``lora_alpha`` doubled (the same scale ``alpha / r``); the head's weight
and bias are mixed the same way. Both parents must share their base model, layers, targets, pooling and
features. ``OUT_DIR/manifest.json`` records both parents' manifests and hashes.

The shipped adapter of 2026-11-27 is ``alpha = 0.5`` between the adapter of 2026-11-25 (``git show
81a1282:textleak/judges/weights/nli/adapter.safetensors``) and round six's warm-start fine-tune of it
(docs/judges.md), chosen under a rule fixed before it was measured.
"""

from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path
from typing import Any

from textleak.judges.nli import ADAPTER_FILE, CONFIG_FILE, MANIFEST_FILE, adapter_hash

SHARED_CONFIG = ("layers", "lora_layers", "lora_targets", "max_length", "labels", "input", "max_span_words", "pooling",
                 "numeric_features", "feature_scale")


def soup_state(old: dict[str, Any], new: dict[str, Any], alpha: float) -> dict[str, Any]:
    """The mixed adapter state (peft names; LoRA rank doubled), in the parents' dtype."""
    import torch

    if set(old) != set(new):
        raise ValueError("the two adapters do not have the same weights")
    out = {}
    for key in old:
        a, b = old[key].float(), new[key].float()
        if key.startswith("head."):
            mixed = (1 - alpha) * a + alpha * b
        elif ".lora_A" in key:
            mixed = torch.cat([a, b], 0)
        elif ".lora_B" in key:
            mixed = torch.cat([(1 - alpha) * a, alpha * b], 1)
        else:
            raise ValueError(f"unexpected adapter weight {key}")
        out[key] = mixed.to(old[key].dtype).contiguous()
    return out


def soup(old_dir: Path, new_dir: Path, out_dir: Path, alpha: float) -> Path:
    from safetensors.torch import load_file, save_file

    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    configs = [json.loads((d / CONFIG_FILE).read_text(encoding="utf-8")) for d in (old_dir, new_dir)]
    differ = [k for k in SHARED_CONFIG if configs[0].get(k) != configs[1].get(k)]
    if differ or configs[0]["lora_alpha"] / configs[0]["lora_r"] != configs[1]["lora_alpha"] / configs[1]["lora_r"]:
        raise ValueError(f"the adapters differ in {differ or ['the LoRA scale']}: they cannot be mixed")
    state = soup_state(load_file(str(old_dir / ADAPTER_FILE)), load_file(str(new_dir / ADAPTER_FILE)), alpha)
    out_dir.mkdir(parents=True, exist_ok=True)
    save_file(state, str(out_dir / ADAPTER_FILE))
    config = dict(configs[0], lora_r=2 * configs[0]["lora_r"], lora_alpha=2 * configs[0]["lora_alpha"])
    config.pop("span_view", None)
    if configs[1].get("span_view", "as_written") != "as_written":  # the mix reads spans as the newer adapter was trained to
        config["span_view"] = configs[1]["span_view"]
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=1), encoding="utf-8")
    parents = [json.loads((d / MANIFEST_FILE).read_text(encoding="utf-8")) for d in (old_dir, new_dir)]
    newer = parents[1]
    manifest = {
        "date": datetime.date.today().isoformat(),
        "seed": newer.get("seed"),
        "data_sha256": newer.get("data_sha256"),
        "handwritten_sha256": newer.get("handwritten_sha256"),  # the fine-tune saw the older adapter's hand-labelled pairs and more
        "hyper_parameters": {"soup": "WiSE-FT weight-space interpolation", "alpha": alpha},
        "layers": config.get("layers"),
        "base_model": newer.get("base_model"),
        "parents": [{"weight": w, "adapter_sha256": adapter_hash(d), **{k: m[k] for k in m if k not in ("agreement", "history")}}
                    for w, d, m in ((1 - alpha, old_dir, parents[0]), (alpha, new_dir, parents[1]))],
    }
    (out_dir / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return out_dir


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--alpha", type=float, default=0.5, help="weight of the new adapter (0: the old one, 1: the new one)")
    args = ap.parse_args()
    print(soup(args.old, args.new, args.out, args.alpha))


if __name__ == "__main__":
    main()
