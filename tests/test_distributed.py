"""Multi-process judging: ``accelerate launch --multi_gpu --num_processes 2`` (two CPU processes on a
machine without GPUs; ``--cpu --num_processes 2`` starts one process in accelerate 1.x) shards the
judged records across two processes and gathers them; the numbers equal a single process's."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from textleak.distributed import rate_sharded, shard_map, world

SCRIPT = Path(__file__).resolve().parent / "mp_judge_script.py"
REPO = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run(args: list[str], out: Path, env_extra: dict | None = None) -> None:
    env = dict(os.environ, PYTHONPATH=f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", OMP_NUM_THREADS="1",
               TEXTLEAK_CACHE_DIR=str(out / "cache"), **(env_extra or {}))
    for var in ("WORLD_SIZE", "RANK", "LOCAL_RANK"):
        env.pop(var, None)
    proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]


def test_single_process_is_a_plain_call():
    assert world() == (0, 1)
    assert shard_map(lambda xs: [x * 2 for x in xs], [1, 2, 3]) == [2, 4, 6]

    class Judge:
        def rate(self, claims, docs, seeds):
            return [[(c, d, s) for c in cs] for cs, d, s in zip(claims, docs, seeds)]

    assert rate_sharded(Judge(), [["a"], ["b", "c"]], ["x", "y"], [1, 2]) == [[("a", "x", 1)], [("b", "y", 2), ("c", "y", 2)]]


@pytest.mark.parametrize("backend", ["scripted"])
def test_two_processes_give_the_single_process_numbers(tmp_path, backend):
    if shutil.which("accelerate") is None and not (Path(sys.executable).parent / "accelerate").exists():
        pytest.skip("accelerate's launcher is not installed")
    launcher = str(Path(sys.executable).parent / "accelerate") if (Path(sys.executable).parent / "accelerate").exists() else "accelerate"
    single, multi = tmp_path / "single", tmp_path / "multi"
    single.mkdir()
    multi.mkdir()
    _run([sys.executable, str(SCRIPT), str(single), backend], single)
    _run([launcher, "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no",
          "--dynamo_backend", "no", "--main_process_port", str(_free_port()), str(SCRIPT), str(multi), backend], multi,
         {"CUDA_VISIBLE_DEVICES": ""})  # two CPU processes even where a GPU is present
    one = json.loads((single / "result.json").read_text())
    two = json.loads((multi / "result.json").read_text())
    assert two == one and one["privacy"] is not None
    assert len({r for rec in one["records"] for r in [x[0] for x in rec]}) > 1  # the ratings are not all alike
    ranks = [json.loads((multi / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert [r["size"] for r in ranks] == [2, 2]
    assert all(r["work"] > 0 for r in ranks)  # both processes judged a share
    solo = json.loads((single / "rank0.json").read_text())["work"]
    assert sum(r["work"] for r in ranks) == solo  # and together exactly the single process's work
