"""A deterministic backend for tests and dry runs: answers come from a Python function.

It goes through the same cache and parsing code as real backends, so prompt construction and answer
parsing can be tested exactly, offline and in milliseconds.
"""

from __future__ import annotations

import hashlib
from typing import Callable

from textleak.cache import DiskCache
from textleak.llm.base import GenerationParams, LanguageModel

Responder = Callable[[object, int, int], "str | None"]  # (prompt, sample index, seed) -> text


class ScriptedLM(LanguageModel):
    """``ScriptedLM(lambda prompt, i, seed: "...")``; ``scores`` optionally maps (prompt, choice) to a log-prob.

    ``name`` distinguishes scripts in the cache; by default the cache is disabled so a test never
    sees another test's answers.
    """

    backend = "scripted"

    def __init__(
        self,
        responder: Responder,
        scorer: Callable[[object, str], float] | None = None,
        name: str = "scripted",
        use_cache: bool = False,
    ):
        self.responder = responder
        self.scorer = scorer
        self.model_name = name
        self.cache = DiskCache("llm", enabled=use_cache)
        self.calls: list[object] = []

    def fingerprint(self) -> str:
        return hashlib.sha256(self.model_name.encode()).hexdigest()[:16]

    def _generate(self, prompts: list, params: GenerationParams, seeds: list[int]) -> list[list[str | None]]:
        out = []
        for p, s in zip(prompts, seeds):
            self.calls.append(p)
            out.append([self.responder(p, i, s) for i in range(params.n)])
        return out

    def _score(self, prompts: list, choices: list[list[str]]) -> list[list[float]]:
        if self.scorer is None:
            raise NotImplementedError("this ScriptedLM has no scorer")
        return [[float(self.scorer(p, c)) for c in cs] for p, cs in zip(prompts, choices)]

    @property
    def supports_scoring(self) -> bool:
        return self.scorer is not None
