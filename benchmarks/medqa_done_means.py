"""The semantic-leakage done-means figures on ../shared/data/medqa/sampled_50.jsonl with the offline
defaults: identity, every number and age perturbed (the test's perturbation), and remove-all.
`python benchmarks/medqa_done_means.py` (the same checks are tests in tests/test_leakage_medqa.py)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from test_leakage_medqa import perturb_numbers  # noqa: E402

from textleak.data.medqa import read_medqa_jsonl  # noqa: E402
from textleak.leakage import evaluate_leakage  # noqa: E402

records = list(read_medqa_jsonl(REPO.parent / "shared" / "data" / "medqa" / "sampled_50.jsonl"))
originals = [r["text"] for r in records]
for name, sanitized in [("identity", originals), ("numbers and ages perturbed", [perturb_numbers(t) for t in originals]),
                        ("remove_all", [""] * len(originals))]:
    r = evaluate_leakage(originals, sanitized, alignment="index", empty_originals="skip", bootstrap=1000)
    lo, hi = r.ci95["semantic_privacy"]
    print(f"{name:28s} semantic {r.semantic_privacy:.3f} [{lo:.3f}, {hi:.3f}]  lexical {r.lexical_privacy:.3f}  "
          f"linkage {r.linkage_rate:.3f}  skipped {r.n_skipped}")
