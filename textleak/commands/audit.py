"""``textleak audit``: check a synthesizer's privacy promise with canaries (issue 30).

    textleak audit --data records.jsonl --epsilon 8 --canaries 500 --output out/audit-eps8
    accelerate launch -m textleak audit --data train.jsonl --model gpt2-large --epsilon 3 --output out/a3

Builds canaries from the records (a record's opening plus a seeded random suffix), inserts each with
probability 1/2, trains the synthesizer exactly as ``textleak synthesize`` does (same flags, same
code), generates from the records' own control codes, scores membership from the synthetic text
(n-gram overlap, an n-gram LM of the synthetic text) and, for reference, from the model's own loss,
and reports per score the membership AUC, the TPR at 1% FPR and the one-run lower bound on epsilon
(Steinke et al. 2023) next to the accountant's epsilon. Writes ``audit.json``, ``audit.md``,
``audit.png`` and ``scores.jsonl`` under ``--output`` (see :mod:`textleak.synthesis.audit`).

``--delta`` defaults to 1e-5 here (``synthesize`` uses 1/N): the one-run bound pays 2 m delta, and
at delta = 1/N a few hundred canaries cannot show anything.
"""

from __future__ import annotations

import argparse
import logging
import math

logger = logging.getLogger(__name__)

AUDIT_DELTA = 1e-5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from textleak.commands.synthesize import add_synthesizer_arguments
    from textleak.config import add_arguments as add_config_arguments
    from textleak.synthesis.audit import AuditConfig

    parser.add_argument("--data", required=True, nargs="+", help="private records: .jsonl/.json/.csv/.parquet or a save_to_disk folder (several are concatenated)")
    parser.add_argument("--format", choices=("records", "medqa"), default="records",
                        help="'medqa': raw MedQA lines, split into profile (text), question and answer")
    parser.add_argument("--output", default="audit", help="folder for audit.json, audit.md, audit.png, scores.jsonl (default: audit)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N private records")
    add_synthesizer_arguments(parser)
    parser.set_defaults(delta=AUDIT_DELTA)
    for action in parser._actions:
        if action.dest == "delta":
            action.help = f"DP delta (default {AUDIT_DELTA}: the one-run bound pays 2 * canaries * delta)"
    add_config_arguments(parser.add_argument_group("audit"), AuditConfig)


def run(args: argparse.Namespace) -> int:
    from accelerate import Accelerator

    from textleak.commands.synthesize import build_synthesizer, read_records
    from textleak.config import from_args
    from textleak.synthesis.audit import AuditConfig, run_audit

    records = []
    for path in args.data:
        records.extend(read_records(path, args.format))
    if args.limit is not None:
        records = records[: args.limit]
    empty = [i for i, r in enumerate(records) if not str(r.get(args.text_column) or "").strip()]
    if empty:  # nothing to build a canary from and nothing to train on; the audit's claim is about the canaries
        logger.warning("skipping %d record(s) with no text in %r (first: record %d)", len(empty), args.text_column, empty[0])
        records = [r for i, r in enumerate(records) if i not in set(empty)]
    if not records:
        raise ValueError(f"no records with text in {', '.join(args.data)}")
    config = from_args(AuditConfig, args)
    synth = build_synthesizer(args)
    result = run_audit(records, synth, config, accelerator=Accelerator(), output_dir=args.output)
    if result is None:  # not the main process
        return 0
    print(result.to_markdown())
    eps = result.privacy.get("epsilon", math.inf)
    logger.info("wrote the audit to %s (accountant epsilon %s)", args.output, "inf" if math.isinf(eps) else f"{eps:.3f}")
    return 0
