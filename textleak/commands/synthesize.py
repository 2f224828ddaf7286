"""``textleak synthesize``: fine-tune a causal LM on private records (optionally with DP-SGD) and
write a synthetic dataset.

    textleak synthesize --input ../shared/data/medqa/sampled_50.jsonl --format medqa \\
        --model embedded --epsilon 8 --output out/synthetic-eps8
    accelerate launch -m textleak synthesize --input train.jsonl --model gpt2-large \\
        --control-code release --epsilon 3 --output out/eps3          # several GPUs, same code

The output folder is a ``datasets`` folder (``load_from_disk``; column ``text`` plus the control
code, source record, status) with ``synthesis.json`` beside it: the privacy report (accountant,
final epsilon, delta, noise multiplier, steps, sampling rate), training and sampling settings, and
the count of failed generations. ``--epsilon inf`` (the default) trains without DP.
"""

from __future__ import annotations

import argparse
import json
import logging
import math

logger = logging.getLogger(__name__)


def _epsilon(value: str) -> float | None:
    if value.lower() in ("inf", "infinity", "none"):
        return None
    eps = float(value)
    if eps <= 0:
        raise argparse.ArgumentTypeError("epsilon must be positive (or 'inf' for no DP)")
    return eps


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", required=True, help="private records: .jsonl/.json/.csv/.parquet, or a save_to_disk folder")
    parser.add_argument("--format", choices=("records", "medqa"), default="records",
                        help="'medqa': raw MedQA lines (question with vignette, options, answer), split into "
                             "profile (text), question and answer; 'records': rows already in the project schema")
    parser.add_argument("--output", required=True, help="folder for the synthetic dataset and synthesis.json")
    add_synthesizer_arguments(parser)
    parser.add_argument("--num-records", type=int, default=None, help="synthetic records (default: one per private record)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N private records")
    parser.add_argument("--save-model", action="store_true", help="also save the adapter / model under OUTPUT/model")


def add_synthesizer_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``SyntheticData`` flags, shared by ``textleak synthesize`` and ``textleak audit``."""
    parser.add_argument("--model", default="embedded", help="embedded (Gemma 3 270M), a Hub id or a local folder")
    parser.add_argument("--control-code", default="paper",
                        help="paper ('Question: {question} | Answer: {answer}'), release (tab form), none, or a {field} template")
    parser.add_argument("--text-column", default="text", help="the private text (default: text)")
    parser.add_argument("--epsilon", type=_epsilon, default=None, help="DP target epsilon, or inf for no DP (default)")
    parser.add_argument("--delta", type=float, default=None, help="DP delta (default 1/N)")
    parser.add_argument("--accountant", choices=("rdp", "prv", "gdp"), default="rdp")
    parser.add_argument("--max-grad-norm", type=float, default=1.0, help="per-record clipping norm")
    parser.add_argument("--epochs", type=float, default=3.0)
    parser.add_argument("--max-steps", type=int, default=None, help="optimizer steps (overrides --epochs)")
    parser.add_argument("--batch-size", type=int, default=8, help="records per step (expected, under DP)")
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--lora-r", type=int, default=8, help="LoRA rank; 0 for full fine-tuning")
    parser.add_argument("--max-length", type=int, default=256, help="training tokens per record (code + text)")
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--top-p", type=float, default=1.0)
    parser.add_argument("--top-k", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0, help="training seed; generation seeds derive from it per record")
    parser.add_argument("--secure-mode", action="store_true", help="opacus secure RNG for noise and sampling (a release)")
    parser.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32",
                        help="base model dtype; bfloat16 is several times faster on GPUs and CPUs with bf16 units (adapters stay float32)")
    parser.add_argument("--lora-layers", default=None,
                        help="comma-separated transformer blocks that get LoRA adapters, negative from the top (write --lora-layers=-6,-5,-4,-3,-2,-1); default all")
    parser.add_argument("--lora-target-modules", default=None, help="comma-separated module names (default: peft's per-model choice)")


def read_records(path: str, fmt: str = "records") -> list[dict]:
    """Private records from a file or a ``save_to_disk`` folder; ``fmt="medqa"`` parses raw MedQA."""
    from pathlib import Path

    if fmt == "medqa":
        from textleak.data.medqa import read_medqa_jsonl

        return list(read_medqa_jsonl(path))
    if Path(path).is_dir():
        import datasets

        return [dict(r) for r in datasets.load_from_disk(path)]
    from textleak.commands.sanitize import read_table

    return [dict(r) for r in read_table(path)]


def run(args: argparse.Namespace) -> int:
    from accelerate import Accelerator

    records = read_records(args.input, args.format)
    if args.limit is not None:
        records = records[: args.limit]
    if not records:
        logger.error("no records in %s", args.input)
        return 2
    synth = build_synthesizer(args)
    accelerator = Accelerator()
    synth.fit(records, accelerator=accelerator)
    if not accelerator.is_main_process:  # one process writes; the others only trained
        return 0
    synthetic = synth.generate(num_records=args.num_records, seed=args.seed)
    synth.save(synthetic, args.output, save_model=args.save_model)
    report = synth.privacy_report()
    meta = json.loads(synthetic.info.description)["generation"]
    eps = report["epsilon"]
    logger.info("wrote %d synthetic records to %s (%d failed); epsilon %s (%s), delta %s, noise %s, %s steps",
                len(synthetic), args.output, meta["failed_records"],
                "inf" if math.isinf(eps) else f"{eps:.3f}", report.get("accountant", "no DP"),
                report.get("delta"), report.get("noise_multiplier"), report.get("steps"))
    if meta["failed_records"]:
        logger.warning("%d records generated empty text (status 'empty', text null): they are in the output, counted",
                       meta["failed_records"])
    return 0


def build_synthesizer(args: argparse.Namespace):
    """A ``SyntheticData`` from the flags of :func:`add_synthesizer_arguments`."""
    from textleak.synthesis.synthesizer import SyntheticData

    return SyntheticData(
        model=args.model, control_code=args.control_code, epsilon=args.epsilon, delta=args.delta,
        epochs=args.epochs, max_steps=args.max_steps, lora_r=args.lora_r or None, learning_rate=args.learning_rate,
        batch_size=args.batch_size, max_length=args.max_length, max_grad_norm=args.max_grad_norm,
        accountant=args.accountant, text_field=args.text_column, max_new_tokens=args.max_new_tokens,
        temperature=args.temperature, top_p=args.top_p, top_k=args.top_k, seed=args.seed, secure_mode=args.secure_mode,
        dtype=args.dtype, lora_layers=[int(x) for x in args.lora_layers.split(",")] if args.lora_layers else None,
        lora_target_modules=args.lora_target_modules.split(",") if args.lora_target_modules else None,
    )
