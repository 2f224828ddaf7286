"""Which sets the pairing test (``textleak.leakage.pairing``) takes for sanitized sets that lost rows.

    python benchmarks/pairing_calibration.py
    python benchmarks/pairing_calibration.py --synthetic medqa=PATH.jsonl --synthetic pupa=PATH.jsonl

``alignment="none"`` is refused for a set whose records pair one-to-one with originals by their wording
(issue 27). This prints, for each case, how many released records pair and whether the set is refused,
with the bigram test alone (as before the word test) and with both tests, the largest share of a
released record's words one original holds (against ``MIN_WORD_CONTAINMENT``) and, among records
where it reaches that, the smallest margin to the runner-up (against ``MIN_WORD_MARGIN``). Cases that must pair: MedQA profiles (``../shared/data/medqa/sampled_50.jsonl``)
and PUPA queries (``../shared/data/pupa/PUPA_TNB.csv``, the first 200, as table1.py) with every 2nd, 3rd
or 4th word masked, half the rows kept. Cases that must not: real synthetic generations of
``benchmarks/synthesis_table2.py`` (``synthetic.jsonl`` files; left out when absent) against the records
they were trained on, whole and halved, and template vignettes (``textleak.data.vignettes``) against
other vignettes. Writes ``benchmarks/results/pairing_calibration.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO / "benchmarks"))
HOME_WORK = Path.home() / ".cache" / "textleak" / "benchmarks" / "synthesis_table2"
DEFAULT_SYNTHETIC = [f"medqa eps3={HOME_WORK / '3-82dc117af0' / 'synthetic.jsonl'}",
                     f"medqa eps inf={HOME_WORK / 'inf-82dc117af0' / 'synthetic.jsonl'}",
                     "pupa eps3=/work/exp/s33/synth_work/3-47f4a2522e/synthetic.jsonl"]

logger = logging.getLogger("pairing_calibration")
ORDINAL = {2: "2nd", 3: "3rd", 4: "4th"}


def mask(text: str, k: int) -> str:
    """Every k-th space-separated word replaced by "[MASK]"."""
    return " ".join("[MASK]" if (i + 1) % k == 0 else w for i, w in enumerate(text.split(" ")))


def word_shares(originals: list[str], released: list[str]) -> tuple[float, float | None]:
    """(largest share of a record's words one original holds, smallest margin to the runner-up where that
    share reaches MIN_WORD_CONTAINMENT), over released records of MIN_WORDS or more words; by brute force."""
    from textleak.leakage.pairing import MIN_WORD_CONTAINMENT, MIN_WORDS, _words

    vocab = list({frozenset(_words(t)) for t in originals})
    top, margin = 0.0, None
    for text in released:
        words = _words(text)
        if len(words) < MIN_WORDS:
            continue
        first, second = (sorted((len(words & v) / len(words) for v in vocab), reverse=True) + [0.0, 0.0])[:2]
        top = max(top, first)
        if first >= MIN_WORD_CONTAINMENT:
            margin = first - second if margin is None else min(margin, first - second)
    return top, margin


def run_case(name: str, originals: list[str], released: list[str], must_pair: bool) -> dict:
    from textleak.leakage import pairing

    both = pairing.text_pairing(originals, released)
    saved = pairing.MIN_WORDS
    pairing.MIN_WORDS = float("inf")  # the bigram test alone
    try:
        bigram = pairing.text_pairing(originals, released)
    finally:
        pairing.MIN_WORDS = saved
    row = {"case": name, "originals": len(originals), "released": len(released), "must_pair": must_pair,
           "paired_bigram_only": bigram.paired, "refused_bigram_only": bigram.one_to_one,
           "paired": both.paired, "refused": both.one_to_one,
           }
    top, margin = word_shares(originals, released)
    row.update(max_word_share=round(top, 3), min_margin=None if margin is None else round(margin, 3))
    row["right"] = row["refused"] == must_pair
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--synthetic", action="append", default=None,
                   help="'NAME=PATH' of a synthetic.jsonl; NAME starting with medqa or pupa picks the originals")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from synthesis_table2 import load_records

    from textleak.data.medqa import medqa_record
    from textleak.data.vignettes import generate_vignettes
    from textleak.leakage import pairing

    medqa = [r["text"] for r in load_records([str(SHARED / "medqa" / "sampled_50.jsonl")])]
    pupa = [r["text"] for r in load_records([str(SHARED / "pupa" / "PUPA_TNB.csv")], limit=200)]
    rows = []
    for label, records in (("MedQA 8", medqa[:8]), ("MedQA 49", medqa), ("PUPA 200", pupa)):
        for k in (2, 3, 4):
            rows.append(run_case(f"{label}, every {ORDINAL[k]} word masked, half kept", records,
                                 [mask(t, k) for t in records][::2], True))
    for spec in args.synthetic or DEFAULT_SYNTHETIC:
        name, _, path = spec.partition("=")
        if not Path(path).is_file():
            logger.warning("%s: %s not found, left out", name, path)
            continue
        with open(path, encoding="utf-8") as f:
            synthetic = [json.loads(line)["text"] for line in f if line.strip()]
        records = pupa if name.startswith("pupa") else medqa
        rows.append(run_case(f"synthetic {name} ({Path(path).parent.name})", records, synthetic, False))
        rows.append(run_case(f"synthetic {name}, half kept", records, synthetic[::2], False))
    def vignettes(start: int, stop: int, seed: int = 0) -> list[str]:
        return [medqa_record(r, i)["text"] for i, r in enumerate(generate_vignettes(stop, seed))][start:stop]

    for n in (8, 48, 200, 500):
        for k in (2, 3):
            rows.append(run_case(f"vignettes {n}, every {ORDINAL[k]} word masked, half kept", vignettes(0, n),
                                 [mask(t, k) for t in vignettes(0, n)][::2], True))
    for n in (8, 48, 200, 500):
        rows.append(run_case(f"vignettes {n} against {n} others", vignettes(0, n), vignettes(n, 2 * n), False))
        rows.append(run_case(f"vignettes {n} against {n // 2} others", vignettes(0, n), vignettes(n, n + n // 2), False))
        rows.append(run_case(f"vignettes {n} against seed 1's first {n // 2}", vignettes(0, n), vignettes(0, n // 2, 1), False))
    thresholds = {k: getattr(pairing, k) for k in ("MIN_CONTAINMENT", "MIN_RATIO", "MIN_SHARE", "MIN_WORD_CONTAINMENT", "MIN_WORD_MARGIN", "MIN_WORDS")}
    out = REPO / "benchmarks" / "results" / "pairing_calibration"
    out.with_suffix(".json").write_text(json.dumps({"thresholds": thresholds, "rows": rows}, indent=1) + "\n")
    cols = ["case", "originals", "released", "paired_bigram_only", "refused_bigram_only", "paired", "refused",
            "max_word_share", "min_margin", "must_pair", "right"]
    lines = ["# Pairing test calibration (benchmarks/pairing_calibration.py)", "",
             "Thresholds: " + ", ".join(f"{k}={v}" for k, v in thresholds.items()), "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(r["right"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
