"""The base of every sanitizer: a callable that ``datasets.map`` can batch, hash and parallelise.

A new sanitizer is one file and one registration (``@textleak.registry.sanitizers.register("name")``);
the built-ins live in the top-level ``sanitizers`` package, which registers them through the
``textleak.sanitizers`` entry point. Capabilities are class attributes: ``needs_llm`` (it takes an
``llm`` option), ``requires_fit`` (it must see the private corpus first).

Rules it enforces (see ``../shared/specs/hf-evaluate-datasets-conventions.md`` section 4):

- configuration in ``__init__``, no work there; models load lazily on first call;
- pickled state is the plain config plus ``VERSION`` and the package version, so ``Hasher.hash`` is
  stable across processes and changes when config or version changes;
- randomness is seeded per record from its index (``with_indices=True``) or, when no index is
  given, from the record's content, never from global RNG state;
- a failure is written to the status column, never hidden by passing the original text through.

Usage::

    ds = ds.map(Sanitizer(...), batched=True, input_columns="text", with_indices=True)
    sanitizer("one text")            # -> {"sanitized": "...", "sanitize_status": "ok"}
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from textleak._version import __version__
from textleak.text.seeds import record_seed

logger = logging.getLogger(__name__)

STATUS_OK = "ok"


@dataclass
class SanitizeResult:
    """One record's output. ``text`` is None when sanitization failed; ``status`` says why."""

    text: str | None
    status: str = STATUS_OK


#: Input policy shared by the record-level sanitizers (``screen_text``): an empty or whitespace-only
#: record is returned as "" with status ``empty_input`` and no model is called; a record longer than
#: the sanitizer's ``max_chars`` is not truncated silently: its output is None with status ``too_long``.
STATUS_EMPTY_INPUT = "empty_input"
STATUS_TOO_LONG = "too_long"


def screen_text(text: str, max_chars: int | None) -> "SanitizeResult | None":
    """The policy result for an empty or over-long record, or None when the record should be processed."""
    if not text.strip():
        return SanitizeResult("", STATUS_EMPTY_INPUT)
    if max_chars is not None and len(text) > max_chars:
        return SanitizeResult(None, STATUS_TOO_LONG)
    return None


class Sanitizer:
    """Subclasses set ``name`` and ``VERSION`` and implement :meth:`sanitize_batch`.

    Every constructor argument must be stored under the same attribute name (scikit-learn style), so
    :meth:`get_config` and the pickled state are exactly the configuration. Attributes whose names
    start with ``_`` are runtime state (models, clients) and are dropped when pickling.
    """

    name: str = "base"
    VERSION: str = "1"
    #: True when the sanitizer takes an ``llm`` option (``--llm`` reaches it).
    needs_llm: bool = False

    def __init__(self, output_column: str = "sanitized", status_column: str = "sanitize_status", seed: int = 0):
        self.output_column = output_column
        self.status_column = status_column
        self.seed = seed

    # ---- to implement ------------------------------------------------------------------------
    def sanitize_batch(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        raise NotImplementedError

    # ---- corpus statistics (most sanitizers need none) ---------------------------------------
    @property
    def requires_fit(self) -> bool:
        """True when :meth:`fit` must see the private corpus before the first call (SANTEXT's
        word frequencies); the CLI and the study then fit on the records being sanitized."""
        return False

    def fit(self, texts: Sequence[str]) -> "Sanitizer":
        """Learn corpus statistics; a no-op for record-level sanitizers. Returns self."""
        return self

    # ---- the map-facing call -----------------------------------------------------------------
    def __call__(self, texts: "str | Sequence[str]", indices: "int | Sequence[int] | None" = None) -> dict[str, Any]:
        if isinstance(texts, Mapping):  # ds.map(san) without input_columns passes the whole row or batch
            raise TypeError(_whole_batch_message(self.name, texts))
        single = isinstance(texts, str) or texts is None
        batch = [texts] if single else list(texts)
        if indices is None:
            idx: list[int | None] = [None] * len(batch)
        else:
            idx = [indices] if isinstance(indices, int) else list(indices)
            if len(idx) != len(batch):
                raise ValueError(f"{len(idx)} indices for {len(batch)} texts")
        for i, (t, j) in enumerate(zip(batch, idx)):
            if not isinstance(t, str):
                where = f"record {j}" if j is not None else f"batch position {i}"
                raise TypeError(f"{self.name}: {where} is {type(t).__name__}, expected a string")
        seeds = [record_seed(self.seed, j, t) for t, j in zip(batch, idx)]
        results = self.sanitize_batch(batch, seeds)
        if len(results) != len(batch):
            raise RuntimeError(f"{self.name} returned {len(results)} results for {len(batch)} texts")
        failed = sum(r.status != STATUS_OK for r in results)
        if failed:
            logger.warning("%s: %d of %d records failed (see column %r)", self.name, failed, len(batch), self.status_column)
        out = {self.output_column: [r.text for r in results], self.status_column: [r.status for r in results]}
        if single:
            return {k: v[0] for k, v in out.items()}
        return out

    # ---- config, hashing ---------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __getstate__(self) -> dict[str, Any]:
        return {
            "config": self.get_config(),
            "sanitizer": f"{type(self).__module__}.{type(self).__qualname__}",
            "version": self.VERSION,
            "textleak": __version__,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state["config"])

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


# ---- by name (used by `textleak sanitize`, `textleak evaluate --sanitizer` and the study) ---------------
def create_sanitizer(name: str, llm: "str | None" = None, **options: Any) -> Sanitizer:
    """A registered sanitizer by name (``textleak.registry.sanitizers``), configured by ``options``.

    ``llm`` goes to sanitizers that use one (``needs_llm``); giving it to one that does not is an error.
    """
    from textleak.registry import sanitizers

    if llm is not None and not getattr(sanitizers.get(name), "needs_llm", False):
        raise ValueError(f"sanitizer {name!r} does not use an LLM (--llm given)")
    return sanitizers.build(name, llm=llm, **options)


def _whole_batch_message(name: str, row: Mapping[str, Any]) -> str:
    """What to do when ``datasets.map`` handed the sanitizer a row (or batch) of columns instead of texts."""
    columns = list(row.keys())

    def is_text(value: Any) -> bool:
        return isinstance(value, str) or (isinstance(value, (list, tuple)) and bool(value) and isinstance(value[0], str))

    texty = [c for c in columns if is_text(row[c])]
    guess = "text" if "text" in texty else (texty[0] if texty else "<the text column>")
    return (f"{name} received a row of columns ({', '.join(map(str, columns))}), not texts: tell datasets.map which column to "
            f"sanitize, e.g. ds.map(san, batched=True, with_indices=True, input_columns={guess!r})"
            + (f" (text columns: {', '.join(map(str, texty))})" if len(texty) > 1 else ""))
