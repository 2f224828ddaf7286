"""When to show progress bars, and the one bar every long stage uses.

Policy (one place): ``progress=True`` / ``False`` force bars on or off. ``None`` (the default of
:class:`~textleak.leakage.LeakageConfig`, the ``semantic_leakage`` metric, ``textleak evaluate`` and the
Trainer callback) means *a person is probably watching*: bars show when standard error is a terminal,
unless ``CI`` is set. The environment variable ``TEXTLEAK_PROGRESS=1`` (or ``0``) overrides the guess
either way, e.g. to see bars in a notebook or to silence them under a terminal multiplexer. A log file
or a CI job therefore never receives bar redraws unless asked for.

Bars are ``tqdm.auto`` bars (a widget in notebooks) with the item count, the rate and the estimate
left, and ``leave=False``: they vanish when their stage ends, and the log lines stay.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Sequence

__all__ = ["resolve_progress", "progress_bar", "map_chunks"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def resolve_progress(progress: bool | None = None) -> bool:
    """Whether to draw progress bars: ``progress`` when it is a bool, else the environment's guess
    (``TEXTLEAK_PROGRESS``, then: standard error is a terminal and ``CI`` is unset)."""
    if progress is not None:
        return bool(progress)
    env = os.environ.get("TEXTLEAK_PROGRESS", "").strip().lower()
    if env in _TRUE:
        return True
    if env in _FALSE:
        return False
    if os.environ.get("CI"):
        return False
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # a closed or replaced stderr
        return False


def progress_bar(total: int | None = None, desc: str = "", unit: str = "it", progress: bool | None = False, **kwargs: Any):
    """A ``tqdm.auto`` bar (count, rate, time left) that vanishes when done; a no-op bar when off."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc or None, unit=unit, disable=not resolve_progress(progress), leave=False,
                dynamic_ncols=True, **kwargs)


def map_chunks(fn: Callable[[int, int], Sequence[Any]], n: int, *, chunk_size: int = 32, progress: bool | None = False,
               desc: str = "", unit: str = "it") -> list[Any]:
    """``fn(start, stop)`` over ``[0, n)`` in chunks, concatenated, with a bar: for one long call over a
    list (an LLM's ``generate``) that would otherwise run silently. ``fn`` must return one value per item."""
    out: list[Any] = []
    with progress_bar(n, desc, unit, progress) as bar:
        for start in range(0, n, max(1, chunk_size)):
            stop = min(n, start + max(1, chunk_size))
            values = list(fn(start, stop))
            if len(values) != stop - start:
                raise RuntimeError(f"{desc or 'map_chunks'}: {len(values)} values for {stop - start} items")
            out.extend(values)
            bar.update(stop - start)
    return out
