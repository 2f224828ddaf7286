"""Judge throughput side by side, in one run, on 2 threads: the NLI judge (and its speed-up variants),
the embedding judge (batch 16 and the former batch 128), and the raw limit (one MiniLM encode of the
claims and the documents' sentences with sentence-transformers, batch 16).

    python benchmarks/bench_judges_speed.py                        # writes benchmarks/results/judges_speed.{md,json}
    python benchmarks/bench_judges_speed.py --records 200 --repeat 2
    python benchmarks/bench_judges_speed.py --old-rev 1dd80a3 --records 40 --rounds 3   # span finder: today's vs that revision's

``--old-rev REV`` times instead the default judge (NLI) and the embedding judge with today's span finder
(``EmbeddingJudge.match``, ``textleak/encoders.py``) against the span finder at REV (loaded from ``git
show``; the NLI judge is today's, its matcher swapped), in interleaved rounds (each round runs every
variant once, in turn; the fastest round is kept), with the span finder's document cache emptied before
every run. Per variant: claims/s, and the time spent inside the encoders' forward passes (hooks on both
MiniLM encoders) beside the time outside them (Python, tokenising, splitting) per claim; and whether
the ratings are identical. Writes ``benchmarks/results/judges_speed_span_finder.{md,json}``.

Workload: synthetic MedQA-style records (``textleak.data.vignettes``, seed 7, so nothing private) with the
rule atomizer's claims, each rated against three sanitized versions of its record, as a study would:
the record itself (identity), the record with every number changed, and another record (own record
absent). Judges are called in chunks of 64 records, as ``evaluate_leakage`` does. Models are loaded
before timing. Reported per variant: wall seconds, claims per second (wall), CPU seconds of the process
(all threads) and claims per CPU-second (it does not grow when other jobs share the machine), plus the
machine load. Timings on a shared machine are indicative; rerun on a quiet one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from sanitizers.record import change_numbers

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"


def workload(n: int):
    from textleak.atomizers.rules import RuleAtomizer
    from textleak.data.medqa import medqa_record
    from textleak.data.vignettes import generate_vignettes

    texts = [medqa_record(r, i)["text"] for i, r in enumerate(generate_vignettes(n, seed=7))]
    claims = RuleAtomizer().atomize(texts)
    docs, cl = [], []
    for i, t in enumerate(texts):
        for d in (t, change_numbers(t), texts[(i + 1) % len(texts)]):
            docs.append(d)
            cl.append(claims[i])
    return cl, docs


def timed(fn):
    started, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - started, time.process_time() - cpu


def run_judge(judge, claims, docs, chunk=64):
    for s in range(0, len(docs), chunk):
        judge.rate(claims[s : s + chunk], docs[s : s + chunk])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=1, help="repeat each variant, keep the fastest")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default="", help="comma-separated variant names")
    ap.add_argument("--weights", default=None, help="NLI weights folder (default: the shipped adapter)")
    ap.add_argument("--old-rev", default=None, help="compare today's span finder with the one at this git revision")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of --old-rev")
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(args.threads)
    if args.old_rev:
        return compare_span_finders(args)
    from textleak.text import split_sentences
    from textleak.encoders import load_sentence_encoder
    from textleak.judges import embedding
    from textleak.judges.embedding import EmbeddingJudge
    from textleak.judges.nli import NLIJudge, load_nli_model

    claims, docs = workload(args.records)
    n_claims = sum(len(c) for c in claims)
    model = load_sentence_encoder()
    if not args.only or "nli" in args.only:
        load_nli_model(args.weights, True)
        load_nli_model(args.weights, False)
    sentences = [s for d in docs for s in split_sentences(d)]

    def raw():
        # each distinct text once, as the judges encode them (a record's claims meet three documents)
        texts = list(dict.fromkeys([c for cs in claims for c in cs] + sentences))
        model.encode(texts, batch_size=16, convert_to_numpy=True, normalize_embeddings=True)

    variants = {
        "raw limit: one MiniLM encode of the distinct claims + sentences (batch 16)": raw,
        "embedding (batch 16, the default)": lambda: run_judge(EmbeddingJudge(batch_size=16), claims, docs),
        "embedding (batch 128, the former default)": lambda: run_judge(EmbeddingJudge(batch_size=128), claims, docs),
        "nli (default: fp32, cascade, verbatim shortcut, 1 span)": lambda: run_judge(NLIJudge(weights=args.weights), claims, docs),
        "nli without the reader's view and written values (before issue 25)": lambda: run_judge(
            NLIJudge(weights=args.weights, values=False, reader_view=False, non_english="judge"), claims, docs),
        "nli int8": lambda: run_judge(NLIJudge(weights=args.weights, int8=True), claims, docs),
        "nli without shortcut or cascade": lambda: run_judge(NLIJudge(weights=args.weights, verbatim=False, cascade=None), claims, docs),
        "nli int8 without shortcut or cascade": lambda: run_judge(NLIJudge(weights=args.weights, verbatim=False, cascade=None, int8=True), claims, docs),
        "nli, 2 spans": lambda: run_judge(NLIJudge(weights=args.weights, spans=2), claims, docs),
    }
    if args.only:
        keep = [v.strip() for v in args.only.split(",")]
        variants = {k: v for k, v in variants.items() if any(k.startswith(x) for x in keep)}
    run_judge(EmbeddingJudge(batch_size=16), claims[:4], docs[:4])  # warm-up
    if not args.only or "nli" in args.only:
        run_judge(NLIJudge(weights=args.weights, verbatim=False, cascade=None), claims[:4], docs[:4])
    load_before = os.getloadavg()
    rows = []
    for name, fn in variants.items():
        best = None
        for _ in range(args.repeat):
            embedding._SPANS.clear()  # the span finder's document cache: every variant encodes its documents itself
            wall, cpu = timed(fn)
            if best is None or wall < best[0]:
                best = (wall, cpu)
        rows.append({"variant": name, "wall_s": best[0], "claims_per_s": n_claims / best[0], "cpu_s": best[1], "claims_per_cpu_s": n_claims / best[1]})
        print(f"{name:70s} {best[0]:7.1f} s  {n_claims / best[0]:7.1f} claims/s  cpu {best[1]:7.1f} s  {n_claims / best[1]:7.1f} claims/cpu-s", flush=True)
    load_after = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    date = time.strftime("%Y-%m-%d")
    lines = [f"# Judge throughput ({date})", "",
             f"{len(docs)} (claims, document) pairs: {args.records} synthetic MedQA-style records x (identity, numbers changed, another record); "
             f"{n_claims} claims, {len(sentences)} document sentences; chunks of 64 records; {args.threads} threads; "
             f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({os.cpu_count()} cores).", "",
             "| variant | wall s | claims/s | CPU s | claims per CPU-second |", "|---|---|---|---|---|"]
    lines += [f"| {r['variant']} | {r['wall_s']:.1f} | {r['claims_per_s']:.1f} | {r['cpu_s']:.1f} | {r['claims_per_cpu_s']:.1f} |" for r in rows]
    (RESULTS / "judges_speed.md").write_text("\n".join(lines) + "\n")
    (RESULTS / "judges_speed.json").write_text(json.dumps({"date": date, "records": args.records, "claims": n_claims, "pairs": len(docs),
                                                           "threads": args.threads, "load_before": load_before, "load_after": load_after,
                                                           "platform": platform.platform(), "rows": rows}, indent=1))
    print("\n".join(lines))


class ForwardClock:
    """Wall and process CPU time spent inside the forward passes of the given BERT models: hooks on their
    embeddings and encoder stacks (sentence-transformers calls the model's ``forward`` directly, past
    its own hooks). CPU time does not grow while other jobs hold the cores; wall time does."""

    def __init__(self, models):
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self._started: list[tuple[float, float]] = []
        for m in [part for model in models for part in (model.embeddings, model.encoder)]:
            m.register_forward_pre_hook(lambda *_: self._started.append((time.perf_counter(), time.process_time())))
            m.register_forward_hook(lambda *_: self._stop())

    def _stop(self):
        wall, cpu = self._started.pop()
        self.seconds += time.perf_counter() - wall
        self.cpu_seconds += time.process_time() - cpu


def compare_span_finders(args) -> None:
    """Today's span finder against the one at ``args.old_rev``, side by side in interleaved rounds."""
    from _revision import load_at_revision

    from textleak.encoders import load_sentence_encoder
    from textleak.judges import embedding
    from textleak.judges.nli import NLIJudge, load_nli_model

    old = load_at_revision(args.old_rev, "textleak/judges/embedding.py", {"textleak.encoders": "textleak/encoders.py"})
    old_encoders = next(m for name, m in sys.modules.items() if name.startswith("_at_") and name.endswith("textleak_encoders"))
    claims, docs = workload(args.records)
    n_claims = sum(len(c) for c in claims)

    def nli(matcher_cls):
        judge = NLIJudge(weights=args.weights)
        judge.matcher = matcher_cls(batch_size=16, number_guard=False)
        return judge

    variants = {
        "nli (default), today's span finder": lambda: nli(embedding.EmbeddingJudge),
        f"nli (default), span finder at {args.old_rev}": lambda: nli(old.EmbeddingJudge),
        "embedding (default), today's": lambda: embedding.EmbeddingJudge(),
        f"embedding (default), at {args.old_rev}": lambda: old.EmbeddingJudge(),
    }
    # load every model before timing, then hook the forward passes of all of them
    bert = [load_sentence_encoder()[0].auto_model, old_encoders.load_sentence_encoder()[0].auto_model, load_nli_model(args.weights).model]
    clock = ForwardClock(bert)
    for make in variants.values():
        run_judge(make(), claims[:4], docs[:4])
    best: dict[str, tuple[float, float, float, float]] = {}
    ratings: dict[str, list] = {}
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for name, make in variants.items():
            embedding._SPANS.clear()
            judge, out = make(), []
            forward_before, forward_cpu_before, started, cpu = clock.seconds, clock.cpu_seconds, time.perf_counter(), time.process_time()
            for s in range(0, len(docs), 64):
                out += judge.rate(claims[s : s + 64], docs[s : s + 64])
            wall, cpu, forward = time.perf_counter() - started, time.process_time() - cpu, clock.seconds - forward_before
            forward_cpu = clock.cpu_seconds - forward_cpu_before
            ratings[name] = [(r.rating, r.score) for rs in out for r in rs]
            if name not in best or wall < best[name][0]:
                best[name] = (wall, forward, cpu, forward_cpu)
            print(f"{name:60s} {wall:7.2f} s  forward {forward:7.2f} s  outside {1e3 * (wall - forward) / n_claims:6.2f} ms/claim  "
                  f"CPU outside {1e3 * (cpu - forward_cpu) / n_claims:6.2f} ms/claim", flush=True)
    load_after = os.getloadavg()
    names = list(variants)
    same = {names[0]: ratings[names[0]] == ratings[names[1]], names[2]: ratings[names[2]] == ratings[names[3]]}
    diff = {k: max(abs((a[1] or 0) - (b[1] or 0)) for a, b in zip(ratings[k], ratings[o])) for k, o in ((names[0], names[1]), (names[2], names[3]))}
    rows = [{"variant": k, "wall_s": w, "claims_per_s": n_claims / w, "forward_s": f, "outside_forward_ms_per_claim": 1e3 * (w - f) / n_claims,
             "forward_ms_per_claim": 1e3 * f / n_claims, "cpu_s": c, "forward_cpu_s": fc, "cpu_outside_forward_ms_per_claim": 1e3 * (c - fc) / n_claims,
             "claims_per_cpu_s": n_claims / c} for k, (w, f, c, fc) in best.items()]
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = f"python benchmarks/bench_judges_speed.py --old-rev {args.old_rev} --records {args.records} --rounds {args.rounds} --threads {args.threads}"
    lines = [f"# Span finder: today's vs {args.old_rev} ({date})", "", f"`{command}`", "",
             f"{len(docs)} (claims, document) pairs: {args.records} synthetic MedQA-style records x (identity, numbers changed, another record); "
             f"{n_claims} claims; chunks of 64 records; {args.threads} threads; fastest of {args.rounds} interleaved rounds; document cache emptied "
             f"before every run; load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({os.cpu_count()} cores, shared).", "",
             "| variant | wall s | claims/s | forward ms/claim (wall) | outside forward ms/claim (wall) | claims per CPU-second | outside forward ms/claim (CPU) |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['variant']} | {r['wall_s']:.2f} | {r['claims_per_s']:.1f} | {r['forward_ms_per_claim']:.2f} | {r['outside_forward_ms_per_claim']:.3f} | "
              f"{r['claims_per_cpu_s']:.1f} | {r['cpu_outside_forward_ms_per_claim']:.3f} |" for r in rows]
    lines += ["", "Forward: time inside the MiniLM forward passes (the bi-encoder's and the cross-encoder's); outside: the rest "
              "(Python, tokenising, sentence splitting, the judge's rules). Wall times grow with the machine's load; process CPU "
              "times (threads=1 makes them per core) do not, so the CPU columns are the ones to compare on a shared machine.",
              f"Ratings and scores identical to {args.old_rev}'s: NLI {same[names[0]]} (largest score difference {diff[names[0]]:.2e}), "
              f"embedding {same[names[2]]} (largest {diff[names[2]]:.2e})."]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "judges_speed_span_finder.md").write_text("\n".join(lines) + "\n")
    (RESULTS / "judges_speed_span_finder.json").write_text(json.dumps({"date": date, "command": command, "records": args.records, "claims": n_claims,
                                                                       "load_average": [load_before[0], load_after[0]], "platform": platform.platform(),
                                                                       "identical_ratings": same, "largest_score_difference": diff, "rows": rows}, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
