"""Does the prediction-powered interval hold? Coverage and error of the corrected semantic privacy.

    python benchmarks/ppi_coverage.py                      # score (once, cached), then 1,000 draws per set
    python benchmarks/ppi_coverage.py --draws 1000 --n 100 --threads 1

Each hand-labelled held-out pair is treated as one judged claim (score: the default NLI judge's
normalised score; label: the hand label, (gold - 1) / 2). The judge runs once per pair and its
scores are cached in ``benchmarks/results/ppi_judge_scores.jsonl`` (keyed by the judge's description
and the pair), so reruns are free. Then, ``--draws`` times per set, ``--n`` pairs are drawn as the
"labelled" sample and the rest are unlabelled; for each draw we record whether the 95% interval of
:func:`textleak.leakage.ppi.ppi_mean` (PPI++, power-tuned) covers the labels' mean over the whole set,
the corrected estimate's error, and the same for the judge-only figure (its mean over the set, with
the record-style normal interval over the unlabelled claims) and the labels-only classical interval.

Sets: the ``test`` split of textleak/judges/training/handwritten.jsonl, textleak/data/judge_eval.jsonl
(both held out from the shipped adapter's training), and every ``benchmarks/heldout/*.jsonl``.
Writes docs/ppi.md's table (benchmarks/results/ppi_coverage.{md,json}) and docs/ppi_coverage.png.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
SCORES = RESULTS / "ppi_judge_scores.jsonl"
logger = logging.getLogger("ppi_coverage")


def revision() -> str:
    """The commit measured, and whether the judge's files differ from it (the judge is what is measured)."""
    import subprocess

    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "textleak/judges"], capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("TEXTLEAK_REVISION", "unknown")
    return rev + (" (judge files modified)" if dirty else "")


def load_sets() -> dict[str, list]:
    """name -> labelled claims of every held-out set found."""
    from textleak.judges.agreement import EVAL_SET, HANDWRITTEN_SET, load_labelled_claims

    sets = {"handwritten-test": load_labelled_claims(HANDWRITTEN_SET, split="test"), "judge_eval": load_labelled_claims(EVAL_SET)}
    for path in sorted((REPO / "benchmarks" / "heldout").glob("*.jsonl")):
        try:
            sets[f"heldout/{path.stem}"] = load_labelled_claims(path)
        except ValueError as err:  # another writer's file in progress: say so, use the rest
            logger.warning("skipping %s: %s", path, err)
    return sets


def score_sets(sets: dict[str, list], threads: int) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """name -> (judge scores, judge ratings, label scores), the judge run only on pairs not cached."""
    from textleak.cache import content_hash
    from textleak.judges import make_judge
    from textleak.judges.agreement import rate_labelled_with_scores

    judge = make_judge("nli")
    # the judge as it rates (its settings and weights), not the agreement figures its manifest records
    judge_key = content_hash({k: v for k, v in judge.describe().items() if k != "calibration"})[:16]
    cache: dict[str, dict] = {}
    if SCORES.exists():
        for line in SCORES.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            cache[row["key"]] = row
    out = {}
    for name, items in sets.items():
        keys = [content_hash(judge_key, it.claim, it.document)[:24] for it in items]
        todo = [i for i, k in enumerate(keys) if k not in cache]
        if todo:
            import torch

            torch.set_num_threads(threads)
            t = time.perf_counter()
            ratings, scores = rate_labelled_with_scores(judge, [items[i] for i in todo])
            logger.info("%s: judged %d pairs in %.0fs", name, len(todo), time.perf_counter() - t)
            RESULTS.mkdir(parents=True, exist_ok=True)
            with open(SCORES, "a", encoding="utf-8") as fh:
                for i, r, s in zip(todo, ratings, scores):
                    cache[keys[i]] = row = {"key": keys[i], "rating": r, "score": s}
                    fh.write(json.dumps(row) + "\n")
        rows = [cache[k] for k in keys]
        # an unparsed pair counts as leaked (score 0), as the report's default policy does
        f = np.array([r["score"] if r["score"] is not None else 0.0 for r in rows], dtype=float)
        rating = np.array([r["rating"] if r["rating"] is not None else 1 for r in rows], dtype=int)
        y = np.array([(it.gold - 1) / 2 for it in items], dtype=float)
        out[name] = (f, rating, y)
    return out


def judge_only_ci(f: np.ndarray, alpha: float) -> tuple[float, float]:
    """The judge alone: its mean with a normal interval over the claims (what a report without labels prints)."""
    from scipy.stats import norm

    z = norm.ppf(1 - alpha / 2)
    half = z * f.std(ddof=1) / np.sqrt(f.size)
    return float(f.mean() - half), float(f.mean() + half)


def plan_width(f: np.ndarray, rating: np.ndarray, n: int, alpha: float) -> dict:
    """What ``textleak label --plan`` expects for ``n`` labels on this set (each pair a claim of its own
    record), to set beside the width the label command's draw gave."""
    from textleak.leakage.labels import JudgedClaim, plan

    claims = [JudgedClaim(str(i), i, str(i), 0, "", int(r), float(s), 1.0 / f.size, None, None) for i, (s, r) in enumerate(zip(f, rating))]
    (row,) = plan(claims, sizes=(n,), alpha=alpha)
    return {"labels": row["labels"], "width_typical": row["width_typical"], "width_worst": row["width_worst"]}


def simulate(f: np.ndarray, y: np.ndarray, rating: np.ndarray, n: int, draws: int, alpha: float, seed: int) -> dict:
    """``draws`` random labelled samples of size ``n``: coverage and error of PPI++, classical and judge-only."""
    from textleak.leakage.labels import allocate
    from textleak.leakage.ppi import classical_mean, ppi_mean, stratified_ppi_mean

    truth = float(y.mean())
    rng = np.random.default_rng(seed)
    rows = {k: {"cover": [], "err": [], "width": []} for k in ("ppi++", "ppi (lambda=1)", "stratified ppi++", "stratified ppi++ (label's draw)",
                                                              "labels only")}
    ratings, counts = np.unique(rating, return_counts=True)
    by_rating = {int(s): np.flatnonzero(rating == s) for s in ratings}
    for _ in range(draws):
        idx = rng.choice(y.size, size=n, replace=False)
        mask = np.zeros(y.size, dtype=bool)
        mask[idx] = True
        results = {
            "ppi++": ppi_mean(f[~mask], f[mask], y[mask], alpha=alpha),
            "ppi (lambda=1)": ppi_mean(f[~mask], f[mask], y[mask], alpha=alpha, power_tuning=False),
            "labels only": classical_mean(y[mask], alpha=alpha),
        }
        try:
            results["stratified ppi++"] = stratified_ppi_mean(f, rating, mask, y[mask], alpha=alpha)
        except ValueError:  # a rating with fewer than 2 labels in this draw (only with simple random draws)
            pass
        # the draw textleak label makes: within each judge rating (every claim weighs the same here)
        alloc = allocate({int(s): c / y.size for s, c in zip(ratings, counts)}, {int(s): int(c) for s, c in zip(ratings, counts)}, n)
        strat = np.zeros(y.size, dtype=bool)
        for s, k in alloc.items():
            strat[rng.choice(by_rating[s], size=k, replace=False)] = True
        results["stratified ppi++ (label's draw)"] = stratified_ppi_mean(f, rating, strat, y[strat], alpha=alpha)
        for k, r in results.items():
            rows[k]["cover"].append(r.ci[0] <= truth <= r.ci[1])
            rows[k]["err"].append(r.estimate - truth)
            rows[k]["width"].append(r.ci[1] - r.ci[0])
    lo, hi = judge_only_ci(f, alpha)
    # the spread of (label - judge score) within a judge rating: what `textleak label --plan` assumes
    residual_sd = float(np.sqrt(sum((rating == s).mean() * np.var((y - f)[rating == s]) for s in np.unique(rating))))
    out = {"truth": truth, "judge_mean": float(f.mean()), "n_claims": int(y.size), "residual_sd_within_rating": residual_sd, "methods": {},
           "plan": plan_width(f, rating, n, alpha)}
    for k, r in rows.items():
        if not r["cover"]:
            continue
        err = np.array(r["err"])
        out["methods"][k] = {"draws": len(r["cover"]), "coverage": float(np.mean(r["cover"])), "mean_error": float(err.mean()),
                             "mean_abs_error": float(np.abs(err).mean()), "mean_width": float(np.mean(r["width"]))}
    # the judge alone does not depend on the draw: one interval per set, which covers or misses
    out["methods"]["judge alone"] = {"draws": 1, "coverage": float(lo <= truth <= hi), "mean_error": float(f.mean() - truth),
                                     "mean_abs_error": float(abs(f.mean() - truth)), "mean_width": hi - lo}
    return out


def render(report: dict) -> str:
    lines = [f"Command: `{report['command']}` ({report['date']}; revision {report.get('revision', 'unknown')}; judge: {report['judge']})", "",
             f"{report['draws']} draws of n={report['n']} labelled claims per set; the rest unlabelled; target: the labels' mean over the "
             "whole set; nominal coverage 95%. The judge alone is its mean over every claim with a normal interval (what a "
             "report without labels prints): it does not depend on the draw, so it either covers or misses.", "",
             "| set | claims | labels' mean | judge's mean | method | coverage | mean error | mean abs error | mean width |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, s in report["sets"].items():
        for k, m in s["methods"].items():
            cov = f"{m['coverage']:.1%}" if m["draws"] > 1 else ("covers (one interval)" if m["coverage"] else "misses (one interval)")
            lines.append(f"| {name} | {s['n_claims']} | {s['truth']:.3f} | {s['judge_mean']:.3f} | {k} | {cov} | "
                         f"{m['mean_error']:+.4f} | {m['mean_abs_error']:.4f} | {m['mean_width']:.3f} |")
    lines += ["", "Spread of (label - judge score) within a judge rating (what `textleak label --plan` calls typical): " +
              ", ".join(f"{name} {s['residual_sd_within_rating']:.3f}" for name, s in report["sets"].items())]
    if all("plan" in s for s in report["sets"].values()):
        draw = "stratified ppi++ (label's draw)"
        lines += ["", f"`textleak label --plan`'s expected width for {report['n']} labels (typical / worst case) against the mean width "
                  "of the label command's draw: " + ", ".join(
                      f"{name} {s['plan']['width_typical']:.3f} / {s['plan']['width_worst']:.3f} vs {s['methods'][draw]['mean_width']:.3f}"
                      for name, s in report["sets"].items())]
    return "\n".join(lines) + "\n"


def plot(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(report["sets"])
    methods = ["judge alone", "labels only", "ppi (lambda=1)", "ppi++", "stratified ppi++", "stratified ppi++ (label's draw)"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    width = 0.8 / len(methods)
    for j, m in enumerate(methods):
        xs = [i + (j - len(methods) / 2 + 0.5) * width for i in range(len(names))]
        cov = [report["sets"][n]["methods"].get(m, {}).get("coverage", np.nan) for n in names]
        err = [report["sets"][n]["methods"].get(m, {}).get("mean_error", np.nan) for n in names]
        axes[0].bar(xs, cov, width, label=m)
        axes[1].bar(xs, err, width, label=m)
    axes[0].axhline(0.95, color="k", lw=0.8, ls="--")
    axes[0].axhline(0.93, color="r", lw=0.8, ls=":")
    axes[0].set_ylabel("coverage of the 95% interval")
    axes[1].axhline(0, color="k", lw=0.8)
    axes[1].axhspan(-0.01, 0.01, color="g", alpha=0.12)
    axes[1].set_ylabel("mean error (estimate - labels' mean)")
    for ax in axes:
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=15, fontsize=8)
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(f"Semantic privacy with n={report['n']} labels: PPI vs the judge alone ({report['draws']} draws)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100, help="labelled claims per draw")
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--score-only", action="store_true", help="only run the judge and fill the score cache")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sets = load_sets()
    scored = score_sets(sets, args.threads)
    if args.score_only:
        return
    from textleak.judges import make_judge

    report = {"command": "python benchmarks/ppi_coverage.py " + " ".join(
                  f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k != "score_only"),
              "date": time.strftime("%Y-%m-%d"), "revision": revision(), "judge": make_judge("nli").describe().get("name", "nli"),
              "n": args.n, "draws": args.draws, "alpha": args.alpha, "sets": {}}
    for k, (name, (f, rating, y)) in enumerate(scored.items()):
        report["sets"][name] = simulate(f, y, rating, args.n, args.draws, args.alpha, args.seed + k)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ppi_coverage.json").write_text(json.dumps(report, indent=1) + "\n")
    table = render(report)
    (RESULTS / "ppi_coverage.md").write_text(table)
    plot(report, REPO / "docs" / "ppi_coverage.png")
    print(table)


if __name__ == "__main__":
    main()
