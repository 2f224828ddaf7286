"""Garbage collection during long calls: the collector scans only the objects the call itself makes."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def old_objects_frozen() -> Iterator[None]:
    """Hide every object alive now from the cyclic garbage collector for the duration (``gc.freeze``), and
    give them back afterwards (``gc.unfreeze``); both are constant-time list splices.

    The loaded encoders, tokenizers and imported libraries are hundreds of thousands of tracked objects, and
    a judge call that allocates many small ones (sentences, values, spans) triggers full collections that
    walk all of them: on 2 cores that was about 0.06 ms per claim of the NLI judge's time outside the
    forward (issue 29; ``benchmarks/bench_judges_speed.py``). Objects made during the call are collected as
    usual; reference counting frees everything else at once, so nothing is kept longer than one call.
    Where objects are frozen already (a fork server's ``gc.freeze``), they are not ours to unfreeze and the
    call runs as it is."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
