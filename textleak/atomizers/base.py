"""The atomizer contract: break records into atomic, independent claims (seed 000 §2.2, appendix C.1).

``atomizer.atomize(texts, seeds) -> list[list[str]]``; built-ins: ``rules`` (the offline default) and
``llm`` (the appendix C.1 prompt). A new atomizer is one file in this package and one
``@atomizers.register("name")``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Sequence


class Atomizer(ABC):
    """Configuration in ``__init__``; ``atomize`` does the work; ``describe`` goes into reports and
    into the claims cache key (change a setting, miss the cache)."""

    name: str = "atomizer"
    VERSION: str = "1"
    #: True when the atomizer takes an ``llm`` option (the pipeline passes its ``llm`` then).
    needs_llm: bool = False

    @abstractmethod
    def atomize(self, texts: Sequence[str], seeds: Sequence[int] | None = None) -> list[list[str]]:
        """One list of claims per text (an empty text has no claims)."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """Name, version, model and settings."""
