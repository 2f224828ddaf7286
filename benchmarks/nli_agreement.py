"""Agreement of the NLI judge and the embedding judge with gold labels, side by side, by category.

    python benchmarks/nli_agreement.py                                    # calibration test split + generated validation pairs
    python benchmarks/nli_agreement.py --labels ../wt-judge-eval/textleak/data/judge_eval.jsonl
    python benchmarks/nli_agreement.py --judges nli,nli:int8=0,nli:spans=2,embedding --sets calibration-test

Sets: ``calibration-test`` (the held-out split of textleak/data/judge_calibration.jsonl, 80 claims),
``handwritten-test`` (the held-out split of textleak/judges/training/handwritten.jsonl: written by
hand like the evaluation set, by other writers, from other cases; the adapter trains on its train split),
``chat-heldout`` (benchmarks/heldout/chat_writer_*.jsonl: chat requests, e-mails, forms, pasted logs and code,
hand-labelled by twelve writers who saw no judge code and no other labelled set; writers C to L joined on
2026-11-29, D, F, G, H, I, J, K and L never read by anyone tuning the judge), ``chat-heldout-unread`` (D, F, G, H, I,
J, K and L only: the honest figure for text the judge was never tuned on), ``chat-heldout-a`` ... ``chat-heldout-l``
(one writer's file), ``clinical-heldout`` (benchmarks/heldout/clinical_writer_m and _n: MedQA-style vignettes (M) and
clinical documents as clinicians write them, letters, handovers, notes (N), by two writers of 2026-11-29 who saw only
the rubric; never read by anyone tuning the judge), ``clinical-heldout-m`` ... ``clinical-heldout-p`` (one writer's
file; O, clinical documents of other kinds, and P, patients' and carers' health messages, were read while writing
rules .33),
``generated-val`` (the validation records' pairs of textleak.judges.training.pairs, same seed as the
shipped adapter: records the adapter never saw, but built by the same rules), and any labelled JSONL
(``--labels``; rows with ``claim``, ``document``, ``gold``, optional ``category`` and ``domain``).
Per judge: Spearman of ratings and of scores with gold, Cohen's kappa (plain, linear, quadratic),
accuracy, mean score; per category: accuracy; and the accuracy on negated or contradicted facts
(textleak.judges.agreement.CONTRADICTION_CATEGORIES). Writes
benchmarks/results/nli_agreement.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path



REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"


def make(spec: str):
    """``name`` or ``name:key=value;...`` -> a judge."""
    from textleak.config import parse_spec
    from textleak.judges import make_judge

    name, options = parse_spec(spec, "--judges")
    return make_judge(name, **options)


UNREAD_WRITERS = ("d", "f", "g", "h", "i", "j", "k", "l")  # benchmarks/heldout/: never read by anyone tuning the judge, only scored
UNREAD_CLINICAL_WRITERS = ("m", "n")  # the clinical writers nobody tuning the judge read; O and P were read (rules .33)


def load_set(name: str, seed: int):
    from textleak.judges.agreement import LabelledClaim, load_labelled_claims

    if name == "calibration-test":
        return load_labelled_claims(split="test")
    if name == "handwritten-test":
        from textleak.judges.agreement import HANDWRITTEN_SET

        return load_labelled_claims(HANDWRITTEN_SET, split="test")
    if name == "generated-val":
        from textleak.judges.training.pairs import build_pairs

        manifest = json.loads((REPO / "textleak" / "judges" / "weights" / "nli" / "manifest.json").read_text())
        hp = manifest["hyper_parameters"]
        pairs = build_pairs(REPO.parent / "shared" / "data", seed=manifest["seed"], per_claim=hp.get("per_claim", 4))
        return [LabelledClaim(p.claim, p.document, p.label, p.domain, f"gen-{k}", "val", p.category) for k, p in enumerate(pairs) if p.split == "val"]
    if name == "chat-heldout-unread":
        # the writers whose pairs nobody tuning the judge has read (only scored): the honest chat figure
        return [item for w in UNREAD_WRITERS for item in load_labelled_claims(REPO / "benchmarks" / "heldout" / f"chat_writer_{w}.jsonl")]
    if name.startswith("chat-heldout-"):  # one writer's file
        return load_labelled_claims(REPO / "benchmarks" / "heldout" / f"chat_writer_{name.removeprefix('chat-heldout-')}.jsonl")
    if name == "chat-heldout":
        # hand-labelled chat requests, e-mails, forms, pasted logs and code (benchmarks/heldout/, twelve writers who
        # never saw the judge code or another labelled set): held out from every adapter
        return [item for path in sorted((REPO / "benchmarks" / "heldout").glob("chat_writer_*.jsonl")) for item in load_labelled_claims(path)]
    if name == "clinical-heldout":
        # hand-labelled clinical vignettes and documents by two writers nobody tuning the judge has read (only scored)
        return [item for w in UNREAD_CLINICAL_WRITERS for item in load_labelled_claims(REPO / "benchmarks" / "heldout" / f"clinical_writer_{w}.jsonl")]
    if name.startswith("clinical-heldout-"):  # one writer's file
        return load_labelled_claims(REPO / "benchmarks" / "heldout" / f"clinical_writer_{name.removeprefix('clinical-heldout-')}.jsonl")
    if name == "eval":
        from textleak.judges.agreement import EVAL_SET

        return load_labelled_claims(EVAL_SET)
    return load_labelled_claims(name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judges", default="nli,embedding", help="comma-separated; options after ':' separated by ';' (nli:int8=0;spans=2)")
    ap.add_argument("--sets", default="calibration-test,generated-val")
    ap.add_argument("--labels", action="append", default=[], help="a labelled JSONL set (repeatable)")
    ap.add_argument("--out", default="nli_agreement")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--record", action="store_true", help="write the 'nli' judge's figures per set into the shipped adapter's manifest "
                    "(what NLIJudge.describe() reports as its calibration)")
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(args.threads)
    from textleak.judges.agreement import evaluate_judge

    sets = [s for s in args.sets.split(",") if s] + args.labels
    judges = [j for j in args.judges.split(",") if j]
    report = {"date": time.strftime("%Y-%m-%d"), "load_average": os.getloadavg(), "sets": {}}
    lines = [f"# Judge agreement by category ({report['date']})", ""]
    for set_name in sets:
        items = load_set(set_name, 0)
        results = {}
        for spec in judges:
            judge = make(spec)
            t = time.perf_counter()
            results[spec] = evaluate_judge(judge, items).to_dict() | {"seconds": time.perf_counter() - t}
        report["sets"][set_name] = results
        label = Path(set_name).name if set_name not in ("calibration-test", "generated-val", "eval") else set_name
        lines += [f"## {label} ({len(items)} claims)", "",
                  "| judge | Spearman (rating) | Spearman (score) | kappa | kappa linear | kappa quadratic | accuracy | negation/contradiction acc. | mean score / gold |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for spec, r in results.items():
            lines.append(f"| {spec} | {r['spearman']:.3f} | {r['spearman_score']:.3f} | {r['cohen_kappa']:.3f} | {r['cohen_kappa_linear']:.3f} | "
                         f"{r['cohen_kappa_quadratic']:.3f} | {r['accuracy']:.3f} | {r['contradiction_accuracy']:.3f} (n={r['n_contradiction']}) | "
                         f"{r['mean_score_judge']:.3f} / {r['mean_score_gold']:.3f} |")
        cats = sorted({c for r in results.values() for c in r["per_category"]})
        lines += ["", "| category | n | " + " | ".join(judges) + " |", "|---|---|" + "---|" * len(judges)]
        for c in cats:
            n = next(r["per_category"][c]["n"] for r in results.values() if c in r["per_category"])
            lines.append(f"| {c} | {n} | " + " | ".join(f"{results[j]['per_category'].get(c, {}).get('accuracy', float('nan')):.3f}" for j in judges) + " |")
        lines.append("")
        print("\n".join(lines[-(len(cats) + len(judges) + 8):]), flush=True)
    if args.record:
        from textleak.judges.nli import MANIFEST_FILE, WEIGHTS_DIR

        path = WEIGHTS_DIR / MANIFEST_FILE
        manifest = json.loads(path.read_text())
        keep = ("n", "spearman", "spearman_score", "cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic", "accuracy",
                "contradiction_accuracy", "n_contradiction", "mean_score_judge", "mean_score_gold")
        dtype = make("nli").dtype  # bfloat16 on a CPU with AMX, float32 elsewhere (textleak.encoders.auto_dtype)
        manifest["agreement"] = {name: {k: results_by_set["nli"][k] for k in keep} | {"date": report["date"], "dtype": dtype}
                                 for name, results_by_set in report["sets"].items() if "nli" in results_by_set}
        path.write_text(json.dumps(manifest, indent=1) + "\n")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    (RESULTS / f"{args.out}.json").write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    sys.exit(main())
