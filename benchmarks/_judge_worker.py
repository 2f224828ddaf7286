"""Time a judge run with hooks on its encoders' forward passes, here or in a worker process that imports
textleak as it was at an earlier revision (``bench_judges_speed.py --old-rev REV --whole-judge``).

    python benchmarks/_judge_worker.py TREE PAYLOAD.json     # the worker: textleak imported from TREE

The worker puts ``TREE`` (a folder holding ``textleak/`` at some revision, e.g. from ``git archive``)
first on ``sys.path``, checks that ``import textleak`` comes from there, builds the judge the payload
names, warms it up, and then answers each ``run`` line on stdin with one ``@@`` line of JSON on stdout:
the run's wall and process CPU seconds, the CPU and wall seconds inside the encoders' forward passes,
and every (rating, score). Nothing here imports textleak at module level, so the worker never sees
today's code. Nothing in textleak imports this.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence


class ForwardClock:
    """Wall and process CPU time spent inside the forward passes of the given BERT models: hooks on their
    embeddings and encoder stacks (sentence-transformers calls the model's ``forward`` directly, past
    its own hooks). CPU time does not grow while other jobs hold the cores; wall time does. What BertModel
    does between the two (the attention mask) counts as outside."""

    def __init__(self, models: Sequence[Any]):
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self._started: list[tuple[float, float]] = []
        for m in [part for model in models for part in (model.embeddings, model.encoder)]:
            m.register_forward_pre_hook(lambda *_: self._started.append((time.perf_counter(), time.process_time())))
            m.register_forward_hook(lambda *_: self._stop())

    def _stop(self) -> None:
        wall, cpu = self._started.pop()
        self.seconds += time.perf_counter() - wall
        self.cpu_seconds += time.process_time() - cpu


def loaded_encoders() -> list[Any]:
    """The BERT modules of every encoder textleak has loaded in this process (the span finder's
    sentence encoders and the NLI cross-encoders), whatever the revision's loader signatures."""
    from textleak import encoders
    from textleak.judges import nli

    return [m[0].auto_model for m in encoders._LOADED.values()] + [m.model for m in nli._LOADED.values()]


def clear_caches() -> None:
    """Empty textleak's per-text caches (every ``lru_cache`` holding more than one entry: loaders of word
    lists hold one and stay) and the span finder's document cache, so that each timed run starts cold,
    as a fresh process would, and no variant reuses what an earlier round computed."""
    for name, module in list(sys.modules.items()):
        if not (name == "textleak" or name.startswith("textleak.")) or module is None:
            continue
        for obj in list(vars(module).values()):
            info = getattr(obj, "cache_info", None)
            if callable(info) and callable(getattr(obj, "cache_clear", None)) and info().currsize > 1:
                obj.cache_clear()
    from textleak.judges import embedding

    embedding._SPANS.clear()


def run_once(make_judge: Callable[[], Any], claims: list, docs: list, clock: ForwardClock, chunk: int = 64) -> dict[str, Any]:
    """One cold run of a fresh judge over the pairs in chunks of ``chunk`` documents (as evaluate_leakage calls it)."""
    clear_caches()
    judge, out = make_judge(), []
    forward, forward_cpu, started, cpu = clock.seconds, clock.cpu_seconds, time.perf_counter(), time.process_time()
    for s in range(0, len(docs), chunk):
        out += judge.rate(claims[s : s + chunk], docs[s : s + chunk])
    return {"wall_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu, "forward_s": clock.seconds - forward,
            "forward_cpu_s": clock.cpu_seconds - forward_cpu, "ratings": [(r.rating, r.score) for rs in out for r in rs]}


def serve(tree: str, payload_path: str) -> None:
    """The worker loop (see the module docstring)."""
    sys.path.insert(0, str(Path(tree).resolve()))
    import torch

    import textleak

    if not str(Path(textleak.__file__).resolve()).startswith(str(Path(tree).resolve())):
        raise SystemExit(f"the worker imported textleak from {textleak.__file__}, not from {tree}")
    payload = json.loads(Path(payload_path).read_text())
    torch.set_num_threads(int(payload["threads"]))
    from textleak.judges.nli import NLIJudge

    claims, docs, kwargs = payload["claims"], payload["docs"], payload["kwargs"]
    NLIJudge(**kwargs).rate(claims[:4], docs[:4])  # loads the models
    clock = ForwardClock(loaded_encoders())
    print("@@" + json.dumps({"ready": True, "textleak": textleak.__file__}), flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            break
        print("@@" + json.dumps(run_once(lambda: NLIJudge(**kwargs), claims, docs, clock)), flush=True)


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
