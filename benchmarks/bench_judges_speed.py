"""Judge throughput side by side, in one run, on 2 threads: the NLI judge (and its speed-up variants),
the embedding judge (batch 16 and the former batch 128), and the raw limit (one MiniLM encode of the
claims and the documents' sentences with sentence-transformers, batch 16).

    python benchmarks/bench_judges_speed.py                        # writes benchmarks/results/judges_speed.{md,json}
    python benchmarks/bench_judges_speed.py --records 200 --repeat 2
    python benchmarks/bench_judges_speed.py --old-rev 1dd80a3 --records 40 --rounds 3   # span finder: today's vs that revision's
    OMP_NUM_THREADS=1 python benchmarks/bench_judges_speed.py --backends --records 300 --threads 1   # torch vs ONNX Runtime

``--old-rev REV`` times instead the default judge (NLI) and the embedding judge with today's span finder
(``EmbeddingJudge.match``, ``textleak/encoders.py``) against the span finder at REV (loaded from ``git
show``; the NLI judge is today's, its matcher swapped), in interleaved rounds (each round runs every
variant once, in turn; the fastest round is kept), with the span finder's document cache emptied before
every run. Per variant: claims/s, and the time spent inside the encoders' forward passes (hooks on both
MiniLM encoders) beside the time outside them (Python, tokenising, splitting) per claim; and whether
the ratings are identical. Writes ``benchmarks/results/judges_speed_span_finder.{md,json}``.

``--old-rev REV --whole-judge`` times instead the whole default NLI judge of today's working tree against
the whole judge at REV (every textleak module as it was: ``git archive`` into a temporary folder, imported
by a worker process, ``benchmarks/_judge_worker.py``), on the same claims, in interleaved rounds (who goes
first alternates; the fastest CPU round is kept), every run cold (fresh judge, textleak's per-text caches
and the document cache emptied). Per side: claims per CPU-second, forward and outside-forward CPU
ms/claim (the same hooks on both encoders), and whether every rating and score is identical.
``--judge-dtype`` gives both judges one dtype. Writes ``benchmarks/results/judges_speed_whole_judge.{md,json}``.

``--backends`` times the default judge (NLI) with its two MiniLM encoders' forward passes run by
PyTorch eager (today), by ONNX Runtime in fp32, and with int8 (torch's ``int8=True`` option; ONNX
Runtime's dynamic quantisation), in interleaved rounds (``--rounds``), each against the torch run's
ratings: agreement, mean score, largest score difference. Forward time is the CPU time inside the
encoders' ``forward`` (either back end). Needs ``onnxruntime`` and ``onnx``
(``benchmarks/_onnx_backend.py``). Writes ``benchmarks/results/judges_speed_backends.{md,json}``.

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

from _judge_worker import ForwardClock, run_once
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


def pairs_line(records: int, pairs: int) -> str:
    """The workload, as every report of this benchmark opens its description."""
    return f"{pairs} (claims, document) pairs: {records} synthetic MedQA-style records x (identity, numbers changed, another record)"


def write_results(stem: str, lines: list[str], payload: dict) -> None:
    """``benchmarks/results/{stem}.md`` (the report's lines) and ``{stem}.json`` (its figures)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{stem}.md").write_text("\n".join(lines) + "\n")
    (RESULTS / f"{stem}.json").write_text(json.dumps(payload, indent=1, default=str))


def speed_row(variant: str, res: dict, n_claims: int) -> dict:
    """One report row from a :func:`_judge_worker.run_once` result: rates, and forward and outside-forward time per claim."""
    wall, cpu, forward, forward_cpu = res["wall_s"], res["cpu_s"], res["forward_s"], res["forward_cpu_s"]
    return {"variant": variant, "wall_s": wall, "claims_per_s": n_claims / wall, "cpu_s": cpu, "claims_per_cpu_s": n_claims / cpu,
            "forward_s": forward, "forward_cpu_s": forward_cpu, "forward_ms_per_claim": 1e3 * forward / n_claims,
            "forward_wall_ms_per_claim": 1e3 * forward / n_claims, "outside_forward_ms_per_claim": 1e3 * (wall - forward) / n_claims,
            "forward_cpu_ms_per_claim": 1e3 * forward_cpu / n_claims, "cpu_outside_forward_ms_per_claim": 1e3 * (cpu - forward_cpu) / n_claims}


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
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of --old-rev or --backends")
    ap.add_argument("--whole-judge", action="store_true", help="with --old-rev: the whole default NLI judge at that revision (a worker process), not only its span finder")
    ap.add_argument("--judge-dtype", default=None, help="with --whole-judge: the dtype both judges are given (default: each revision's default)")
    ap.add_argument("--backends", action="store_true", help="the default NLI judge on torch vs ONNX Runtime, fp32 and int8")
    ap.add_argument("--dtypes", action="store_true", help="the default NLI judge (auto dtype: bfloat16 where the CPU multiplies it) vs float32")
    ap.add_argument("--variants", default="", help="with --backends: comma-separated variant keys (torch,onnx,onnx-ce,torch-int8,onnx-int8-ce,onnx-int8,onnx-int8-bi,onnx-int8pc,onnx-int8pc-bi)")
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(args.threads)
    if args.old_rev and args.whole_judge:
        return compare_whole_judges(args)
    if args.old_rev:
        return compare_span_finders(args)
    if args.backends:
        return compare_backends(args)
    if args.dtypes:
        return compare_dtypes(args)
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
        load_nli_model(args.weights, False, None, "float32")
    sentences = [s for d in docs for s in split_sentences(d)]

    def raw():
        # each distinct text once, as the judges encode them (a record's claims meet three documents)
        texts = list(dict.fromkeys([c for cs in claims for c in cs] + sentences))
        model.encode(texts, batch_size=16, convert_to_numpy=True, normalize_embeddings=True)

    variants = {
        "raw limit: one MiniLM encode of the distinct claims + sentences (batch 16)": raw,
        "embedding (batch 16, the default)": lambda: run_judge(EmbeddingJudge(batch_size=16), claims, docs),
        "embedding (batch 128, the former default)": lambda: run_judge(EmbeddingJudge(batch_size=128), claims, docs),
        "nli (default: cascade, verbatim shortcut, value spans; bfloat16 on a CPU with AMX, else fp32)": lambda: run_judge(NLIJudge(weights=args.weights), claims, docs),
        "nli:dtype=float32": lambda: run_judge(NLIJudge(weights=args.weights, dtype="float32"), claims, docs),
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
             f"{pairs_line(args.records, len(docs))}; "
             f"{n_claims} claims, {len(sentences)} document sentences; chunks of 64 records; {args.threads} threads; "
             f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({os.cpu_count()} cores).", "",
             "| variant | wall s | claims/s | CPU s | claims per CPU-second |", "|---|---|---|---|---|"]
    lines += [f"| {r['variant']} | {r['wall_s']:.1f} | {r['claims_per_s']:.1f} | {r['cpu_s']:.1f} | {r['claims_per_cpu_s']:.1f} |" for r in rows]
    write_results("judges_speed", lines, {"date": date, "records": args.records, "claims": n_claims, "pairs": len(docs),
                                          "threads": args.threads, "load_before": load_before, "load_after": load_after,
                                          "platform": platform.platform(), "rows": rows})
    print("\n".join(lines))


def compare_whole_judges(args) -> None:
    """Today's default NLI judge against the whole judge at ``args.old_rev`` (every module of textleak as it
    was, imported in a worker process from ``git archive``), side by side in interleaved rounds: per run,
    CPU time inside the encoders' forward passes and outside them, claims per CPU-second, and whether
    every rating and score is identical. Each run starts cold (a fresh judge, textleak's per-text caches
    and the document cache emptied: :func:`_judge_worker.clear_caches`)."""
    import shutil
    import subprocess
    import tempfile

    from _judge_worker import loaded_encoders

    from textleak.judges.nli import NLIJudge

    claims, docs = workload(args.records)  # today's atomizer: both judges rate the same claims
    n_claims = sum(len(c) for c in claims)
    kwargs = {"weights": args.weights, **({"dtype": args.judge_dtype} if args.judge_dtype else {})}
    rev = subprocess.run(["git", "rev-parse", "--short", args.old_rev], cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()
    tree = Path(tempfile.mkdtemp(prefix=f"textleak_at_{rev}_"))
    worker = None
    try:
        archive = subprocess.run(["git", "archive", rev, "textleak"], cwd=REPO, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        payload = tree / "payload.json"
        payload.write_text(json.dumps({"claims": claims, "docs": docs, "kwargs": kwargs, "threads": args.threads}))
        worker = subprocess.Popen([sys.executable, str(REPO / "benchmarks" / "_judge_worker.py"), str(tree), str(payload)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=str(tree))

        def answer() -> dict:
            for line in worker.stdout:
                if line.startswith("@@"):
                    return json.loads(line[2:])
            raise RuntimeError(f"the worker at {rev} stopped (exit {worker.wait()})")

        print(f"worker at {rev}: {answer()['textleak']}", flush=True)
        NLIJudge(**kwargs).rate(claims[:4], docs[:4])  # loads today's models
        clock = ForwardClock(loaded_encoders())
        names = {"today": "nli (default), today's working tree", "old": f"nli (default) at {rev}"}

        def run(key: str) -> dict:
            if key == "today":
                return run_once(lambda: NLIJudge(**kwargs), claims, docs, clock)
            worker.stdin.write("run\n")
            worker.stdin.flush()
            return answer()

        best: dict[str, dict] = {}
        ratings: dict[str, list] = {}
        load_before = os.getloadavg()
        for r in range(args.rounds):
            for key in (("today", "old") if r % 2 == 0 else ("old", "today")):  # alternate who goes first
                res = run(key)
                ratings[key] = [tuple(x) for x in res.pop("ratings")]
                if key not in best or res["cpu_s"] < best[key]["cpu_s"]:
                    best[key] = res
                print(f"{names[key]:45s} wall {res['wall_s']:6.2f} s  CPU {res['cpu_s']:6.2f} s  {n_claims / res['cpu_s']:6.1f} claims/CPU-s  "
                      f"forward CPU {1e3 * res['forward_cpu_s'] / n_claims:5.2f} ms/claim  outside forward CPU "
                      f"{1e3 * (res['cpu_s'] - res['forward_cpu_s']) / n_claims:5.3f} ms/claim", flush=True)
        load_after = os.getloadavg()
    finally:
        if worker is not None:
            worker.stdin.close()
            worker.wait()
        shutil.rmtree(tree, ignore_errors=True)
    same = ratings["today"] == ratings["old"]
    differ = sum(a != b for a, b in zip(ratings["today"], ratings["old"]))
    largest = max(abs((a[1] or 0) - (b[1] or 0)) for a, b in zip(ratings["today"], ratings["old"]))
    rows = [speed_row(names[k], b, n_claims) for k, b in best.items()]
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = (f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '')} python benchmarks/bench_judges_speed.py --old-rev {args.old_rev} --whole-judge "
               f"--records {args.records} --rounds {args.rounds} --threads {args.threads}" + (f" --judge-dtype {args.judge_dtype}" if args.judge_dtype else ""))
    lines = [f"# The NLI judge: today's working tree vs {rev}, whole judge ({date})", "", f"`{command}`", "",
             f"{pairs_line(args.records, len(docs))}; "
             f"{n_claims} claims (today's rule atomizer, for both); chunks of 64 records; {args.threads} thread(s); fastest (CPU) of {args.rounds} "
             f"interleaved round(s); {rev}'s textleak runs in a worker process (git archive); every run cold (fresh judge, textleak's per-text "
             f"caches and the document cache emptied); judge arguments {kwargs}; load average before {load_before[0]:.1f}, after {load_after[0]:.1f} "
             f"({os.cpu_count()} cores, shared).", "",
             "| variant | wall s | claims/s | CPU s | claims per CPU-second | forward CPU ms/claim | outside forward CPU ms/claim | outside forward wall ms/claim |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['variant']} | {r['wall_s']:.2f} | {r['claims_per_s']:.1f} | {r['cpu_s']:.2f} | {r['claims_per_cpu_s']:.1f} | {r['forward_cpu_ms_per_claim']:.3f} | "
              f"{r['cpu_outside_forward_ms_per_claim']:.3f} | {r['outside_forward_ms_per_claim']:.3f} |" for r in rows]
    lines += ["", "Forward: process CPU time inside the two MiniLM encoders' forward passes (hooks on their embeddings and encoder stacks: the "
              "bi-encoder span finder's and the cross-encoder's); outside: the rest of the run (Python, tokenising, padding, sentence splitting, "
              "the judge's rules). CPU times do not grow while other jobs hold the cores (threads=1 makes them per core); wall times do.",
              f"Ratings and scores identical to {rev}'s: {same} ({differ} of {len(ratings['today'])} claims differ; largest score difference {largest:.2e})."]
    write_results("judges_speed_whole_judge", lines, {"date": date, "command": command, "old_rev": rev, "records": args.records,
                                                                       "claims": n_claims, "threads": args.threads, "judge_kwargs": kwargs,
                                                                       "load_average": [load_before[0], load_after[0]], "platform": platform.platform(),
                                                                       "identical_ratings": same, "claims_differing": differ,
                                                                       "largest_score_difference": largest, "rows": rows})
    print("\n".join(lines))


def compare_span_finders(args) -> None:
    """Today's span finder against the one at ``args.old_rev``, side by side in interleaved rounds."""
    import inspect

    from _judge_worker import loaded_encoders
    from _revision import load_at_revision

    from textleak.judges import embedding
    from textleak.judges.nli import NLIJudge

    old = load_at_revision(args.old_rev, "textleak/judges/embedding.py", {"textleak.encoders": "textleak/encoders.py"})
    old_encoders = next(m for name, m in sys.modules.items() if name.startswith("_at_") and name.endswith("textleak_encoders"))
    claims, docs = workload(args.records)
    n_claims = sum(len(c) for c in claims)

    def nli(matcher_cls):
        """The default NLI judge with this span finder, in the judge's own batch size and dtype where the class takes one."""
        judge = NLIJudge(weights=args.weights)
        options = {"batch_size": judge.matcher.batch_size, "number_guard": False, "dtype": judge.dtype}
        accepted = inspect.signature(matcher_cls).parameters
        judge.matcher = matcher_cls(**{k: v for k, v in options.items() if k in accepted})
        return judge

    def cold(make):
        """run_once empties textleak's caches; the old revision's module keeps its own document cache."""
        def fresh():
            if hasattr(old, "_SPANS"):
                old._SPANS.clear()
            return make()
        return fresh

    variants = {
        "nli (default), today's span finder": lambda: nli(embedding.EmbeddingJudge),
        f"nli (default), span finder at {args.old_rev}": lambda: nli(old.EmbeddingJudge),
        "embedding (default), today's": lambda: embedding.EmbeddingJudge(),
        f"embedding (default), at {args.old_rev}": lambda: old.EmbeddingJudge(),
    }
    for make in variants.values():  # load every model before timing, then hook the forward passes of all of them
        run_judge(make(), claims[:4], docs[:4])
    clock = ForwardClock(loaded_encoders() + [m[0].auto_model for m in old_encoders._LOADED.values()])
    best: dict[str, dict] = {}
    ratings: dict[str, list] = {}
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for name, make in variants.items():
            res = run_once(cold(make), claims, docs, clock)
            ratings[name] = res["ratings"]
            if name not in best or res["wall_s"] < best[name]["wall_s"]:
                best[name] = res
            row = speed_row(name, res, n_claims)
            print(f"{name:60s} {row['wall_s']:7.2f} s  forward {row['forward_s']:7.2f} s  outside {row['outside_forward_ms_per_claim']:6.2f} ms/claim  "
                  f"CPU outside {row['cpu_outside_forward_ms_per_claim']:6.2f} ms/claim", flush=True)
    load_after = os.getloadavg()
    names = list(variants)
    same = {names[0]: ratings[names[0]] == ratings[names[1]], names[2]: ratings[names[2]] == ratings[names[3]]}
    diff = {k: max(abs((a[1] or 0) - (b[1] or 0)) for a, b in zip(ratings[k], ratings[o])) for k, o in ((names[0], names[1]), (names[2], names[3]))}
    rows = [speed_row(k, res, n_claims) for k, res in best.items()]
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = f"python benchmarks/bench_judges_speed.py --old-rev {args.old_rev} --records {args.records} --rounds {args.rounds} --threads {args.threads}"
    lines = [f"# Span finder: today's vs {args.old_rev} ({date})", "", f"`{command}`", "",
             f"{pairs_line(args.records, len(docs))}; "
             f"{n_claims} claims; chunks of 64 records; {args.threads} threads; fastest of {args.rounds} interleaved rounds; every run cold (textleak's "
             f"per-text caches and both revisions' document caches emptied); the NLI variants' span finders in the judge's batch size and dtype; load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({os.cpu_count()} cores, shared).", "",
             "| variant | wall s | claims/s | forward ms/claim (wall) | outside forward ms/claim (wall) | claims per CPU-second | outside forward ms/claim (CPU) |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['variant']} | {r['wall_s']:.2f} | {r['claims_per_s']:.1f} | {r['forward_ms_per_claim']:.2f} | {r['outside_forward_ms_per_claim']:.3f} | "
              f"{r['claims_per_cpu_s']:.1f} | {r['cpu_outside_forward_ms_per_claim']:.3f} |" for r in rows]
    lines += ["", "Forward: time inside the MiniLM forward passes (the bi-encoder's and the cross-encoder's); outside: the rest "
              "(Python, tokenising, sentence splitting, the judge's rules). Wall times grow with the machine's load; process CPU "
              "times (threads=1 makes them per core) do not, so the CPU columns are the ones to compare on a shared machine.",
              f"Ratings and scores identical to {args.old_rev}'s: NLI {same[names[0]]} (largest score difference {diff[names[0]]:.2e}), "
              f"embedding {same[names[2]]} (largest {diff[names[2]]:.2e})."]
    write_results("judges_speed_span_finder", lines, {"date": date, "command": command, "records": args.records, "claims": n_claims,
                                                                       "load_average": [load_before[0], load_after[0]], "platform": platform.platform(),
                                                                       "identical_ratings": same, "largest_score_difference": diff, "rows": rows})
    print("\n".join(lines))


def compare_dtypes(args) -> None:
    """The NLI judge in float32 (the default before 2026-11-29, and still where the CPU has no bfloat16
    matrix unit) and with its default dtype (:func:`textleak.encoders.auto_dtype`), in interleaved rounds:
    claims/s, CPU, forward and outside-forward time, and the default's ratings against float32's."""
    import numpy as np
    import torch

    from _judge_worker import loaded_encoders

    from textleak.encoders import auto_dtype, cpu_multiplies_bf16
    from textleak.judges.nli import NLIJudge

    claims, docs = workload(args.records)
    n_claims = sum(len(c) for c in claims)
    dtypes = {"float32": "float32", "default": auto_dtype()}
    judges = {"float32": lambda: NLIJudge(weights=args.weights, dtype="float32"), "default": lambda: NLIJudge(weights=args.weights)}
    for make in judges.values():
        make().rate(claims[:4], docs[:4])  # loads the encoders of each dtype
    clock = ForwardClock(loaded_encoders())
    best: dict[str, tuple[float, float, float]] = {}
    ratings: dict[str, list] = {}
    load_before = os.getloadavg()
    for r in range(args.rounds):
        for key in (("float32", "default") if r % 2 == 0 else ("default", "float32")):  # alternate who goes first
            res = run_once(judges[key], claims, docs, clock)  # cold: per-text caches and the document cache emptied
            wall, cpu, forward = res["wall_s"], res["cpu_s"], res["forward_cpu_s"]
            ratings[key] = res["ratings"]
            if key not in best or cpu < best[key][1]:
                best[key] = (wall, cpu, forward)
            print(f"{key:8s} ({dtypes[key]:8s}) wall {wall:6.1f} s  CPU {cpu:6.1f} s  {n_claims / wall:6.1f} claims/s  {n_claims / cpu:6.1f} claims/CPU-s  "
                  f"outside forward {1e3 * (cpu - forward) / n_claims:.2f} ms/claim", flush=True)
    load_after = os.getloadavg()
    ref = ratings["float32"]
    rows = []
    for key, dt in dtypes.items():
        wall, cpu, forward = best[key]
        r, r0 = np.asarray([x[0] for x in ratings[key]], float), np.asarray([x[0] for x in ref], float)
        sc, sc0 = np.asarray([x[1] for x in ratings[key]], float), np.asarray([x[1] for x in ref], float)
        rows.append({"key": key, "dtype": dt, "wall_s": wall, "claims_per_s": n_claims / wall, "cpu_s": cpu, "claims_per_cpu_s": n_claims / cpu,
                     "speedup_wall": best["float32"][0] / wall, "speedup_cpu": best["float32"][1] / cpu, "forward_cpu_share": forward / cpu,
                     "cpu_outside_forward_ms_per_claim": 1e3 * (cpu - forward) / n_claims, "rating_agreement": float(np.mean(r == r0)),
                     "mean_score": float(sc.mean()), "mean_score_difference": float(sc.mean() - sc0.mean()),
                     "largest_score_difference": float(np.abs(sc - sc0).max())})
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = f"python benchmarks/bench_judges_speed.py --dtypes --records {args.records} --rounds {args.rounds} --threads {args.threads}"
    lines = [f"# The NLI judge: float32 vs its default dtype ({date})", "", f"`{command}`", "",
             f"{pairs_line(args.records, len(docs))}; "
             f"{n_claims} claims; chunks of 64 records; {args.threads} thread(s); fastest (CPU) of {args.rounds} interleaved round(s), every run cold "
             f"(textleak's per-text caches and the document cache emptied); load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({os.cpu_count()} cores); "
             f"CPU multiplies bfloat16 in hardware (AMX): {cpu_multiplies_bf16()}; torch {torch.__version__}.", "",
             "| variant | dtype | wall s | claims/s | claims per CPU-second | x float32 (wall / CPU) | forward share of CPU "
             "| CPU outside forward ms/claim | ratings = float32's | mean score (diff) | largest score diff |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {'nli (default)' if r['key'] == 'default' else 'nli:dtype=float32'} | {r['dtype']} | {r['wall_s']:.1f} | {r['claims_per_s']:.1f} | "
              f"{r['claims_per_cpu_s']:.1f} | {r['speedup_wall']:.2f} / {r['speedup_cpu']:.2f} | {100 * r['forward_cpu_share']:.0f}% | "
              f"{r['cpu_outside_forward_ms_per_claim']:.2f} | {r['rating_agreement']:.4f} | {r['mean_score']:.4f} ({r['mean_score_difference']:+.4f}) | "
              f"{r['largest_score_difference']:.1e} |" for r in rows]
    lines += ["", "Agreement with the labels in each dtype: `python benchmarks/nli_agreement.py --judges nli:dtype=float32,nli:dtype=bfloat16 "
              "--sets eval,handwritten-test,calibration-test,chat-heldout` (docs/judges.md, Speed)."]
    write_results("judges_speed_dtypes", lines, {"date": date, "command": command, "records": args.records, "claims": n_claims,
                                                                  "threads": args.threads, "load_average": [load_before[0], load_after[0]],
                                                                  "amx": cpu_multiplies_bf16(), "platform": platform.platform(), "rows": rows})
    print("\n".join(lines))


def sgemm_rate(n: int = 1024, repeat: int = 10) -> float:
    """GFLOP per CPU-second of one torch fp32 matrix product (2n x n x n) at torch's thread count."""
    import torch

    a, b = torch.randn(2 * n, n), torch.randn(n, n)
    a @ b
    cpu = time.process_time()
    for _ in range(repeat):
        a @ b
    return 2 * 2 * n * n * n * repeat / (time.process_time() - cpu) / 1e9


BACKENDS = {
    # key: (description, bi-encoder back end, cross-encoder back end, NLIJudge int8)
    "torch": ("nli (default), both encoders in torch fp32 (today)", "torch", "torch", False),
    "onnx": ("nli, both encoders in ONNX Runtime fp32", "onnx", "onnx", False),
    "onnx-ce": ("nli, cross-encoder in ONNX Runtime fp32, bi-encoder torch", "torch", "onnx", False),
    "torch-int8": ("nli int8=True (torch dynamic int8 cross-encoder, per sequence)", "torch", "torch", True),
    "onnx-int8-ce": ("nli, cross-encoder in ONNX Runtime dynamic int8, bi-encoder torch", "torch", "onnx-int8", False),
    "onnx-int8": ("nli, both encoders in ONNX Runtime dynamic int8", "onnx-int8", "onnx-int8", False),
    "onnx-int8-bi": ("nli, bi-encoder in ONNX Runtime dynamic int8, cross-encoder ONNX Runtime fp32", "onnx-int8", "onnx", False),
    "onnx-int8pc": ("nli, both encoders in ONNX Runtime dynamic int8, per-channel weights", "onnx-int8pc", "onnx-int8pc", False),
    "onnx-int8pc-bi": ("nli, bi-encoder in ONNX Runtime dynamic int8 (per-channel), cross-encoder ONNX Runtime fp32", "onnx-int8pc", "onnx", False),
}


def compare_backends(args) -> None:
    """The default NLI judge with its encoders' forward passes in torch and in ONNX Runtime (fp32, int8),
    side by side in interleaved rounds, each against the torch run's ratings."""
    import numpy as np
    from _onnx_backend import OnnxForward, onnx_available

    from textleak.encoders import load_sentence_encoder
    from textleak.judges import embedding
    from textleak.judges.nli import NLIJudge, load_nli_model

    keys = [k.strip() for k in args.variants.split(",") if k.strip()] or ["torch", "onnx", "torch-int8", "onnx-int8"]
    unknown = [k for k in keys if k not in BACKENDS]
    if unknown or keys[0] != "torch":
        raise SystemExit(f"--variants: known {sorted(BACKENDS)}, the first must be torch (the reference); got {keys}")
    if any(k.startswith("onnx") for k in keys) and not onnx_available():
        raise SystemExit("--backends needs onnxruntime and onnx: pip install onnxruntime onnx")
    claims, docs = workload(args.records)
    n_claims = sum(len(c) for c in claims)
    bi = load_sentence_encoder()[0].auto_model
    models = {"bi": bi, "ce": load_nli_model(args.weights).model, "ce-int8": load_nli_model(args.weights, True).model}
    forwards = {(m, "torch"): type(model).forward.__get__(model) for m, model in models.items()}
    for m in ("bi", "ce"):
        if any(BACKENDS[k][1 if m == "bi" else 2] == "onnx" for k in keys):
            forwards[(m, "onnx")] = OnnxForward(models[m], args.threads)
        if any(BACKENDS[k][1 if m == "bi" else 2] == "onnx-int8" for k in keys):
            forwards[(m, "onnx-int8")] = OnnxForward(models[m], args.threads, int8=True)
        if any(BACKENDS[k][1 if m == "bi" else 2] == "onnx-int8pc" for k in keys):
            forwards[(m, "onnx-int8pc")] = OnnxForward(models[m], args.threads, int8=True, per_channel=True)
    clock = {"cpu": 0.0, "flop": 0.0}

    def timed_forward(f, config):
        layers, h, inner = config.num_hidden_layers, config.hidden_size, config.intermediate_size

        def forward(*a, **k):
            ids = k.get("input_ids", a[0] if a else None)
            b, n = ids.shape
            # multiply-adds of the encoder stack, padding included: the linear layers and attention's two products
            clock["flop"] += 2 * b * n * layers * (4 * h * h + 2 * h * inner) + 4 * b * n * n * h * layers
            started = time.process_time()
            try:
                return f(*a, **k)
            finally:
                clock["cpu"] += time.process_time() - started
        return forward

    def install(key):
        _, b, c, int8 = BACKENDS[key]
        ce = "ce-int8" if int8 else "ce"
        models["bi"].forward = timed_forward(forwards[("bi", b)], models["bi"].config)
        models[ce].forward = timed_forward(forwards[(ce, c)], models[ce].config)

    def run(key):
        install(key)
        embedding._SPANS.clear()
        judge, out = NLIJudge(weights=args.weights, int8=BACKENDS[key][3]), []
        for s in range(0, len(docs), 64):
            out += judge.rate(claims[s : s + 64], docs[s : s + 64])
        return out

    for key in keys:  # warm-up (and the one-off exports) outside the timing
        install(key)
        NLIJudge(weights=args.weights, int8=BACKENDS[key][3]).rate(claims[:4], docs[:4])
    best: dict[str, tuple[float, float, float, float]] = {}
    ratings: dict[str, list] = {}
    peak = [sgemm_rate()]
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for key in keys:
            forward_before, flop_before, started, cpu = clock["cpu"], clock["flop"], time.perf_counter(), time.process_time()
            out = run(key)
            wall, cpu, forward = time.perf_counter() - started, time.process_time() - cpu, clock["cpu"] - forward_before
            flop = clock["flop"] - flop_before
            ratings[key] = [(r.rating, r.score) for rs in out for r in rs]
            if key not in best or cpu < best[key][1]:
                best[key] = (wall, cpu, forward, flop)
            print(f"{BACKENDS[key][0]:75s} wall {wall:7.1f} s  CPU {cpu:7.1f} s  {n_claims / cpu:6.1f} claims/CPU-s  "
                  f"CPU outside forward {1e3 * (cpu - forward) / n_claims:5.2f} ms/claim  forward {flop / forward / 1e9:5.1f} GFLOP/CPU-s", flush=True)
    load_after = os.getloadavg()
    peak.append(sgemm_rate())
    for m, model in models.items():
        model.__dict__.pop("forward", None)
    ref = ratings["torch"]
    rows = []
    for key in keys:
        wall, cpu, forward, flop = best[key]
        r, r0 = np.asarray([x[0] for x in ratings[key]], float), np.asarray([x[0] for x in ref], float)
        sc, sc0 = np.asarray([x[1] for x in ratings[key]], float), np.asarray([x[1] for x in ref], float)
        rows.append({"key": key, "variant": BACKENDS[key][0], "wall_s": wall, "claims_per_s": n_claims / wall, "cpu_s": cpu,
                     "claims_per_cpu_s": n_claims / cpu, "speedup_cpu": best["torch"][1] / cpu, "speedup_wall": best["torch"][0] / wall,
                     "forward_cpu_share": forward / cpu, "forward_gflop_per_cpu_s": flop / forward / 1e9, "cpu_outside_forward_ms_per_claim": 1e3 * (cpu - forward) / n_claims,
                     "rating_agreement": float(np.mean(r == r0)), "mean_score": float(sc.mean()), "mean_score_difference": float(sc.mean() - sc0.mean()),
                     "largest_score_difference": float(np.abs(sc - sc0).max())})
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = (f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '')} python benchmarks/bench_judges_speed.py --backends --records {args.records} "
               f"--rounds {args.rounds} --threads {args.threads}" + (f" --variants {args.variants}" if args.variants else ""))
    lines = [f"# The NLI judge's encoders: torch vs ONNX Runtime ({date})", "", f"`{command}`", "",
             f"{pairs_line(args.records, len(docs))}; "
             f"{n_claims} claims; chunks of 64 records; {args.threads} thread(s) (torch and ONNX Runtime intra-op); fastest (CPU) of {args.rounds} "
             f"interleaved round(s); span cache emptied before every run; load average before {load_before[0]:.1f}, after {load_after[0]:.1f} "
             f"({os.cpu_count()} cores, shared); {platform.processor() or platform.machine()}.", "",
             "| variant | wall s | claims/s | CPU s | claims per CPU-second | x today (CPU) | forward share of CPU | forward fp32-equivalent GFLOP per CPU-s "
             "| CPU outside forward ms/claim | ratings = today's | mean score (diff) | largest score diff |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['variant']} | {r['wall_s']:.1f} | {r['claims_per_s']:.1f} | {r['cpu_s']:.1f} | {r['claims_per_cpu_s']:.1f} | {r['speedup_cpu']:.2f} | "
              f"{100 * r['forward_cpu_share']:.0f}% | {r['forward_gflop_per_cpu_s']:.1f} | {r['cpu_outside_forward_ms_per_claim']:.2f} | {r['rating_agreement']:.4f} | "
              f"{r['mean_score']:.4f} ({r['mean_score_difference']:+.4f}) | {r['largest_score_difference']:.1e} |" for r in rows]
    lines += ["", "CPU: process time (time.process_time), which does not grow while other jobs hold the cores; wall does. Forward: CPU time "
              "inside the two MiniLM encoders' forward passes (the bi-encoder span finder's and the cross-encoder's), either back end. "
              "GFLOP per CPU-s: the encoder stacks' multiply-adds (x2, padding included) over that CPU time; the same torch fp32 matrix "
              f"product alone (2048 x 1024 x 1024, {args.threads} thread(s)) ran at {peak[0]:.1f} GFLOP per CPU-s before the rounds and "
              f"{peak[1]:.1f} after, which bounds what any fp32 back end can gain on this CPU. "
              "ONNX Runtime: the merged encoder exported once in fp32 (dynamic batch and sequence axes), graph optimisations on; its "
              "int8 is onnxruntime.quantization.quantize_dynamic (int8 weights, one activation scale per batch tensor)."]
    write_results("judges_speed_backends", lines, {"date": date, "command": command, "records": args.records, "claims": n_claims,
                                                                    "threads": args.threads, "load_average": [load_before[0], load_after[0]],
                                                                    "sgemm_gflop_per_cpu_s": peak,
                                                                    "platform": platform.platform(), "rows": rows})
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
