"""``textleak generate``: controlled generation of private synthetic text (seed 004), with entity leakage.

    textleak generate --data tab --mode icl --num-records 20 --output synthetic.jsonl --evaluate
    textleak generate --data tab:echr_train.json --paragraphs 0 6 --mode prefix --epochs 3 --output s.jsonl
    textleak generate --data presidio_synth:synth_dataset_v2.json --limit 200 --mode icl --output s.jsonl
    textleak generate --data notes.jsonl --entities presidio --mode icl --output s.jsonl

``--data``: ``tab`` (the bundled fictional TAB-format fixture), ``tab:<file>`` (TAB/ECHR JSON),
``presidio_synth:<file>``, or a .jsonl/.json/.csv/.parquet file with ``text`` and (for
``--entities annotations``) ``entity_mentions`` columns. ``--evaluate`` adds PIPP, ELP and ROUGE
(ICL setting for ICL modes, fine-tuning setting for prefix mode) to ``<output>.metrics.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="tab | tab:<file> | presidio_synth:<file> | a data file")
    parser.add_argument("--output", required=True, help="where to write the synthetic records (.jsonl/.csv/.parquet)")
    parser.add_argument("--mode", choices=("icl", "baseline_icl", "prefix"), default="icl")
    parser.add_argument("--model", default="embedded", help="embedded | hf:<id or path> | openai:<model>@<url> (ICL only)")
    parser.add_argument("--entities", choices=("annotations", "presidio", "deid_markers"), default="annotations")
    parser.add_argument("--identifier-types", nargs="+", default=["DIRECT"], help="DIRECT (paper default) and/or QUASI")
    parser.add_argument("--split", default=None, help="TAB: keep documents of this dataset_type")
    parser.add_argument("--paragraphs", nargs=2, type=int, default=None, metavar=("FIRST", "LAST"),
                        help="TAB: keep paragraphs [FIRST, LAST) (seed 004: 0 6 and 6 12)")
    parser.add_argument("--limit", type=int, default=None, help="use the first N records")
    parser.add_argument("--num-records", type=int, default=None, help="synthetic records (default: one per private record)")
    parser.add_argument("--no-blocking", action="store_true", help="ICL: do not ban the contexts' private values")
    parser.add_argument("--max-regenerations", type=int, default=0, help="ICL: redraw a leaking generation up to N times")
    parser.add_argument("--context-selection", choices=("sample", "consecutive"), default="sample")
    parser.add_argument("--fictional-source", choices=("patterns", "faker"), default="patterns")
    parser.add_argument("--no-masking", action="store_true", help="prefix: plain prefix tuning (LM loss only)")
    parser.add_argument("--loss-weights", default="paper", help="paper (1,1,1) | released (1,4,1.6) | a,b,c")
    parser.add_argument("--kl-mask", choices=("public", "all"), default="public")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--gradient-accumulation-steps", type=int, default=4)
    parser.add_argument("--max-length", type=int, default=512)
    parser.add_argument("--max-new-tokens", type=int, default=400)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--top-p", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--evaluate", action="store_true", help="compute PIPP/ELP/ROUGE and write <output>.metrics.json")


def load_records(spec: str, split: str | None = None, paragraphs: Any = None, limit: int | None = None) -> list[dict]:
    """Records with ``text`` and ``entity_mentions`` from a ``--data`` spec."""
    if spec == "tab" or spec.startswith("tab:"):
        from textleak.data.tab import tab_records

        records = tab_records(spec[4:] or None if spec.startswith("tab:") else None, split=split,
                              paragraphs=tuple(paragraphs) if paragraphs else None)
    elif spec.startswith("presidio_synth:"):
        from textleak.data.presidio_synth import presidio_synth_records

        records = presidio_synth_records(spec.split(":", 1)[1])
    else:
        from textleak.commands.sanitize import read_table

        records = [dict(r) for r in read_table(spec)]
    return records[:limit] if limit is not None else records


def _weights(spec: str) -> Any:
    if spec in ("paper", "released"):
        return spec
    parts = [float(x) for x in spec.split(",")]
    if len(parts) != 3:
        raise ValueError(f"--loss-weights is paper, released or three numbers a,b,c; got {spec!r}")
    return tuple(parts)


def run(args: argparse.Namespace) -> int:
    from textleak.commands.sanitize import write_table
    from textleak.controlled.generator import ControlledGenerator

    records = load_records(args.data, args.split, args.paragraphs, args.limit)
    gen = ControlledGenerator(
        model=args.model, mode=args.mode, block_private_tokens=not args.no_blocking,
        identifier_types=args.identifier_types, context_selection=args.context_selection,
        max_regenerations=args.max_regenerations, fictional_source=args.fictional_source, masking=not args.no_masking,
        loss_weights=_weights(args.loss_weights), kl_mask=args.kl_mask, epochs=args.epochs,
        learning_rate=args.learning_rate, batch_size=args.batch_size,
        gradient_accumulation_steps=args.gradient_accumulation_steps, max_length=args.max_length,
        max_new_tokens=args.max_new_tokens, temperature=args.temperature, top_p=args.top_p, seed=args.seed,
    )
    synthetic = gen.fit(records, entities=args.entities).generate(num_records=args.num_records, seed=args.seed)
    write_table(synthetic, args.output)
    statuses = {s: synthetic["generation_status"].count(s) for s in set(synthetic["generation_status"])}
    logger.info("wrote %d synthetic records to %s (%s)", len(synthetic), args.output, statuses)
    if args.evaluate:
        from textleak.metrics.entity_leakage import EntityLeakage

        ok = [i for i, t in enumerate(synthetic["text"]) if t is not None]
        preds = [synthetic["text"][i] for i in ok]
        if args.mode == "prefix":
            result = EntityLeakage().compute(predictions=preds, references=gen.training_texts(),
                                             private_entities=gen.training_entities())
        else:
            result = EntityLeakage().compute(predictions=preds, references=[synthetic["references"][i] for i in ok],
                                             private_entities=[synthetic["private_entities"][i] for i in ok])
        result["failed_generations"] = len(synthetic) - len(ok)
        result["generation_status"] = statuses
        result["config"] = {k: v for k, v in gen.get_config().items() if k != "model" or isinstance(v, str)}
        out = Path(str(args.output) + ".metrics.json")
        out.write_text(json.dumps(result, indent=1, default=str, ensure_ascii=False))
        print(json.dumps({k: result[k] for k in ("pipp", "elp", "rouge2", "rougeL", "failed_generations")}, indent=1))
    return 0
