"""Multi-process work: shard a list across the processes of ``accelerate launch`` (or ``torchrun``),
gather the results, and give every process the whole list back in order.

    accelerate launch --multi_gpu --num_processes 2 my_eval.py   # no GPU: two CPU processes, gloo
    accelerate launch --multi_gpu --num_processes 4 my_eval.py   # GPUs: one process per GPU, nccl
    torchrun --nproc_per_node 2 my_eval.py                       # the same without accelerate

(``accelerate launch --cpu --num_processes 2`` starts ONE process in accelerate 1.x unless it is
given an MPI host file; ``--multi_gpu`` on a machine without GPUs starts plain CPU processes.)
Outside such a launch (no ``WORLD_SIZE`` > 1 in the environment) everything runs in the one process
and torch.distributed is not touched. Items are dealt round-robin (item ``k`` to rank ``k % world``), so the
shares stay balanced when the list is sorted by size; each item keeps its own seed, so the results
are those of a single process (exactly, for backends whose output for a prompt does not depend on
the other prompts in its batch: the llama.cpp and OpenAI backends, and ScriptedLM).

Every process must call :func:`shard_map` the same number of times with lists of the same length
(the leakage pipeline does: each process computes the same work list from the same data and cache).
"""

from __future__ import annotations

import atexit
import os
from typing import Any, Callable, Sequence


def world() -> tuple[int, int]:
    """(rank, number of processes) of this launch; (0, 1) outside a multi-process launch."""
    try:
        size = int(os.environ.get("WORLD_SIZE", "1"))
        rank = int(os.environ.get("RANK", "0"))
    except ValueError:
        return 0, 1
    return (rank, size) if size > 1 else (0, 1)


def is_main_process() -> bool:
    """True in the process that should write outputs (rank 0, or the only process)."""
    return world()[0] == 0


def local_device() -> str:
    """The device of this process: ``cuda:<LOCAL_RANK>`` when CUDA is available, else ``cpu``."""
    import torch

    if torch.cuda.is_available():
        return f"cuda:{int(os.environ.get('LOCAL_RANK', '0')) % torch.cuda.device_count()}"
    return "cpu"


def _init_process_group() -> None:
    """torch.distributed from the launcher's environment (``MASTER_ADDR``/``MASTER_PORT``/``RANK``/
    ``WORLD_SIZE``): nccl with one GPU per process, gloo on CPUs; reused when already initialised
    (e.g. by accelerate's ``PartialState``)."""
    import torch
    import torch.distributed as dist

    if dist.is_initialized():
        return
    if torch.cuda.is_available():
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count())
        dist.init_process_group(backend="nccl")
    else:
        dist.init_process_group(backend="gloo")
    # the group textleak made, textleak ends: a gloo group left to interpreter shutdown can abort a process
    # ("terminate called without an active exception", seen once under load in the two-process test)
    atexit.register(_destroy_process_group)


def _destroy_process_group() -> None:
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()


def shard_map(fn: Callable[[list], list], items: Sequence[Any]) -> list:
    """``fn(items)`` computed in shares across the launch's processes; every process gets the full
    result list (same order as ``items``). ``fn`` maps a list to a list of the same length."""
    items = list(items)
    rank, size = world()
    if size == 1:
        return list(fn(items))
    _init_process_group()
    import torch.distributed as dist

    mine = list(fn(items[rank::size]))
    if len(mine) != len(items[rank::size]):
        raise RuntimeError(f"rank {rank}: got {len(mine)} results for {len(items[rank::size])} items")
    parts: list = [None] * size
    dist.all_gather_object(parts, (rank, len(items), mine))
    if sorted(r for r, _, _ in parts) != list(range(size)) or any(n != len(items) for _, n, _ in parts):
        raise RuntimeError(f"processes disagree on the work list: {[(r, n) for r, n, _ in parts]}")
    out: list = [None] * len(items)
    for r, _, part in parts:
        out[r::size] = part
    return out


def rate_sharded(judge: Any, claims: Sequence[Sequence[str]], documents: Sequence[str], seeds: Sequence[int]) -> list:
    """``judge.rate(claims, documents, seeds)`` with the records sharded across processes."""
    jobs = list(zip(claims, documents, seeds))

    def rate(share: list) -> list:
        if not share:
            return []
        return judge.rate([c for c, _, _ in share], [d for _, d, _ in share], [s for _, _, s in share])

    return shard_map(rate, jobs)
