"""``textleak attack``: sanitize with a word-level DP mechanism over an epsilon grid and report the
ASR of each reconstruction attack and bound (seed 001, figure 4).

    textleak attack --data ../shared/data/sst2/dev.tsv --column sentence --mechanism custext+ \\
        --epsilons 1 2 4 8 --attacks context_free_bayes embedding_inversion --bounds context_free contextual_k
    textleak attack --data qnli.tsv --column sentence --shadow-data sst2.tsv --mechanism custext+ ...   # misaligned shadow
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
from pathlib import Path

logger = logging.getLogger(__name__)


def read_texts(path: str, column: str | None) -> list[str]:
    """Texts from .tsv/.csv (header row; ``column``), .jsonl (``column``, default "text") or one per line."""
    p = Path(path)
    if not p.exists():
        raise ValueError(f"no such file {path}")
    if p.suffix in (".tsv", ".csv"):
        with p.open(encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f, delimiter="\t" if p.suffix == ".tsv" else ",", quoting=csv.QUOTE_NONE)
            col = column or (reader.fieldnames or ["text"])[0]
            if col not in (reader.fieldnames or []):
                raise ValueError(f"{path} has no column {col!r} (columns: {reader.fieldnames})")
            return [row[col].strip() for row in reader if row.get(col)]
    if p.suffix == ".jsonl":
        col = column or "text"
        return [json.loads(line)[col] for line in p.open(encoding="utf-8") if line.strip()]
    return [line.strip() for line in p.open(encoding="utf-8") if line.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="private texts (.tsv/.csv/.jsonl/.txt)")
    parser.add_argument("--column", default=None, help="text column (tsv/csv/jsonl)")
    parser.add_argument("--shadow-data", default=None, help="shadow texts from another dataset (misaligned shadow); "
                                                           "default: a seeded split of --data")
    parser.add_argument("--shadow-column", default=None, help="text column of --shadow-data (default: --column)")
    parser.add_argument("--shadow-fraction", type=float, default=0.5, help="share of --data used as shadow when no --shadow-data")
    parser.add_argument("--limit", type=int, default=None, help="use only the first N private texts")
    parser.add_argument("--mechanism", default="santext+", choices=["santext", "santext+", "custext", "custext+"])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 2.0, 3.0])
    parser.add_argument("--mechanism-options", default="{}", help='JSON, e.g. \'{"p": 0.3, "sensitive_fraction": 0.9}\'')
    parser.add_argument("--embeddings", default="default", help="'default' (GloVe 6B 50d, offline), 'minilm', "
                        "'hf:<model>' or a word-vector file such as glove.840B.300d.txt")
    parser.add_argument("--attacks", nargs="*", default=["context_free_bayes", "embedding_inversion"],
                        help="cheap by default; contextual_bayes, inversion_bert and mask_inference run a model "
                             "(minutes on a CPU, announced with an estimate)")
    parser.add_argument("--bounds", nargs="*", default=["context_free"],
                        help="context_free (default, seconds) and contextual_k (opt-in: a language-model pass, minutes "
                             "on a CPU); the table shows both, the one not run with its estimate")
    parser.add_argument("--attack-options", default="{}", help='JSON per attack, e.g. \'{"contextual_bayes": {"model": "bert-base-uncased"}}\'')
    parser.add_argument("--targets", default="mechanism", choices=["mechanism", "pii"],
                        help="attack the mechanism's sensitive words, or Presidio PERSON tokens (seed 001 section 5.3)")
    parser.add_argument("--max-targets", type=int, default=1000)
    parser.add_argument("--shadow-copies", type=int, default=10)
    parser.add_argument("--tokenizer", default="regex", help="'regex', 'whitespace' or 'hf:<model>'")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the rows as JSON here (and a .md table beside it)")


def run(args: argparse.Namespace) -> int:
    from textleak.attacks.asr import private_shadow_split
    from textleak.attacks.sweep import asr_sweep, markdown_table
    from textleak.word_embeddings import WordEmbeddings

    texts = read_texts(args.data, args.column)
    if args.shadow_data:
        private, shadow = texts, read_texts(args.shadow_data, args.shadow_column or args.column)
    else:
        p_idx, s_idx = private_shadow_split(len(texts), args.shadow_fraction, args.seed)
        private, shadow = [texts[i] for i in p_idx], [texts[i] for i in s_idx]
    if args.limit:
        private = private[: args.limit]
    logger.info("%d private and %d shadow texts", len(private), len(shadow))
    rows = asr_sweep(private, shadow, args.mechanism, args.epsilons, WordEmbeddings.load(args.embeddings),
                     args.attacks, args.bounds, json.loads(args.mechanism_options), json.loads(args.attack_options),
                     max_targets=args.max_targets, shadow_copies=args.shadow_copies, tokenizer=args.tokenizer,
                     targets=args.targets, seed=args.seed)
    table = markdown_table(rows)
    print(f"ASR over sensitive tokens ({args.mechanism}, embeddings {args.embeddings}; tokens released verbatim "
          f"without protection count as recovered)\n\n{table}\n\n"
          f"ASR over the tokens the mechanism protected (the paper's population)\n\n{markdown_table(rows, 'asr_protected')}\n\n"
          f"ASR over changed tokens\n\n{markdown_table(rows, 'asr_changed')}")
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows, indent=2, default=float))
        out.with_suffix(".md").write_text(table + "\n")
    return 0
