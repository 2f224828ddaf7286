"""``reconstruction_asr``: how often reconstruction attacks recover the sensitive words of text
sanitized by a word-level DP mechanism (Tong et al., "On the Vulnerability of Text Sanitization").

    asr = evaluate.load("reconstruction_asr")            # or ReconstructionASR() directly
    asr.compute(predictions=sanitized, references=originals, mechanism=san, shadow=shadow_texts)
    # cheap by default (context-free Bayes, embedding inversion, context-free bound); opt in to the
    # model-based ones: attacks=[..., "contextual_bayes", "inversion_bert", "mask_inference"],
    # bounds=["context_free", "contextual_k"] (minutes on a CPU, announced with an estimate)
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Sequence

import datasets
import evaluate
import numpy as np

from textleak.attacks.asr import pii_flags, run_attacks, select_targets
from textleak.attacks.base import AttackData
from textleak.dp import build_mechanism, count_words
from textleak.dp.base import WordMechanism
from textleak.word_embeddings import WordEmbeddings

logger = logging.getLogger(__name__)

_CITATION = """\
@inproceedings{tong2025vulnerability,
  title={On the Vulnerability of Text Sanitization},
  author={Tong, Meng and Chen, Kejiang and Yuan, Xiaojian and Liu, Jiayang and Zhang, Weiming and Yu, Nenghai and Zhang, Jie},
  booktitle={Proceedings of NAACL},
  year={2025}
}
"""

_DESCRIPTION = """\
Attack success rate (ASR) of reconstruction attacks against word-level differentially private text
sanitization (SANTEXT, SANTEXT+, CUSTEXT, CUSTEXT+): the share of sensitive original tokens an attack
recovers exactly from the sanitized text, plus the context-free ASR bound and the contextual K-ASR
bound, which use the oracle prior of the attacked originals and upper-bound their practical attacks.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): sanitized texts, position-aligned with the references (one output token per input token).
    references (list of str): the original texts.
    mechanism (str or object): "santext", "santext+", "custext" or "custext+" (built here with ``epsilon``,
        ``mechanism_options`` and the word counts of ``vocab`` or of references + shadow), or the fitted sanitizer
        (``sanitizers.SanTextPlus(...)``) or mechanism that produced the predictions (exact; preferred).
    epsilon (float): privacy parameter the predictions were sanitized with; required when ``mechanism`` is a name
        (there is no default: a guessed epsilon would attack the wrong mechanism).
    mechanism_options (dict): e.g. {"p": 0.3, "sensitive_fraction": 0.9} or {"top_k": 20, "strategy": "aggressive"}.
    vocab (list of [word, count]): corpus word counts the sanitizer was fitted on.
    shadow (list of str): the adversary's shadow originals (same or another distribution); never the references.
    shadow_copies (int): sanitizations per shadow text (paper: 100). Default 10.
    attacks (list of str): any of context_free_bayes, contextual_bayes, embedding_inversion, inversion_bert, mask_inference.
        Default: context_free_bayes and embedding_inversion (seconds). The other three run a model (the embedded
        Gemma 3 270M or a frozen MiniLM offline): minutes on a CPU, announced with an estimate.
    bounds (list of str): any of context_free (default), contextual_k (opt-in: a language-model pass, minutes on a CPU).
    attack_options (dict): per-attack constructor options, e.g. {"contextual_bayes": {"model": "bert-base-uncased", "k": 10}}.
    targets (str): "mechanism" (the mechanism's sensitive tokens) or "pii" (Presidio PERSON tokens).
    max_targets (int): a seeded sample of this many target tokens (paper: 1,000 or 3,000); all if None.
    seed (int): seeds the target sample and the shadow sanitizations.
    Predictions and references swapped are refused: where the mechanism says an output token cannot come from its
    input (Pr(prediction token | reference token) = 0, e.g. SANTEXT+ never outputs a frequent word other than the
    input) in the given direction but every such pair is possible the other way round.
Returns:
    asr (dict): attack -> ASR over all target tokens.
    asr_changed (dict): attack -> ASR over the targets the mechanism changed.
    asr_protected (dict): attack -> ASR over the targets the mechanism protected (Tong et al.'s population: sensitive
        words with a vector); ``asr`` also counts the passthrough targets, released verbatim, as recovered.
    bounds (dict), bounds_protected (dict), bounds_changed (dict): the same for the bounds.
    bounds_not_run (dict): each bound of the paper not asked for, with how to ask for it and its rough cost.
    n_tokens (int), n_changed (int), n_passthrough (int): the number of targets, of changed targets, and of targets
        released verbatim without protection (no vector or no output set, OOV policy "keep").
    mechanism (dict): the mechanism's settings; seconds (dict): wall time per attack.
Examples:
    >>> import numpy as np
    >>> from textleak.word_embeddings import WordEmbeddings
    >>> emb = WordEmbeddings(["a", "b", "c"], np.array([[0.0], [1.0], [3.0]]))
    >>> asr = ReconstructionASR(embeddings=emb)
    >>> r = asr.compute(predictions=["b"], references=["a"], mechanism="santext", epsilon=2.0,
    ...                 vocab=[["a", 5], ["b", 3], ["c", 2]], shadow=["a a a a a c c"],
    ...                 attacks=["context_free_bayes", "embedding_inversion"], bounds=["context_free"])
    >>> r["asr"], r["bounds"], r["n_tokens"], sorted(r["bounds_not_run"])
    ({'context_free_bayes': 1.0, 'embedding_inversion': 0.0}, {'context_free': 1.0}, 1, ['contextual_k'])
"""

_SHADOW_ATTACKS = {"context_free_bayes", "contextual_bayes", "inversion_bert"}
DIRECTION_SAMPLE = 300  # distinct token pairs whose probability is looked up per direction (one likelihood row each)


def _impossible(mech: WordMechanism, pairs: list[tuple[str, str]]) -> int:
    """How many (input, output) pairs the mechanism gives probability 0."""
    return sum(1 for x, y in pairs if mech.prob(y, x) == 0.0)


def check_direction(mech: WordMechanism, originals: Sequence[Sequence[str]], sanitized: Sequence[Sequence[str]],
                    seed: int = 0, swapped_mech: "Callable[[], WordMechanism] | None" = None) -> None:
    """Refuse predictions and references that are swapped: some aligned token pairs are impossible for the
    mechanism as (reference -> prediction) while every one is possible as (prediction -> reference).

    Only pairs of different in-vocabulary words that the mechanism samples are looked at (an
    out-of-vocabulary word may be replaced by any corpus word, a number shifted); a seeded sample of at most
    :data:`DIRECTION_SAMPLE` distinct pairs keeps it cheap. Impossible pairs in both directions mean the
    predictions did not come from this mechanism: warned, since the attacks' numbers are then off.
    ``swapped_mech`` builds the mechanism a swap would have meant (one fitted on the word counts of the
    predictions, for a mechanism built by name from the references' counts): when every pair is
    possible for it as prediction -> reference, the inputs are swapped."""
    pairs: set[tuple[str, str]] = set()
    for o_toks, s_toks in zip(originals, sanitized):
        for o, s in zip(o_toks, s_toks):
            if mech.key(o) != mech.key(s) and not any(c.isdigit() for c in o + s):  # numbers: CUSTEXT may shift them
                pairs.add((o, s))
    ids = {t: mech.word_id(t) for pair in pairs for t in pair}
    pairs_in = sorted(p for p in pairs if ids[p[0]] >= 0 and ids[p[1]] >= 0)
    if not pairs_in:
        return
    covered = mech.covers_id(np.asarray([ids[t] for p in pairs_in for t in p], dtype=np.int64)).reshape(-1, 2).all(axis=1)
    pairs_in = [p for p, c in zip(pairs_in, covered) if c]
    if len(pairs_in) > DIRECTION_SAMPLE:
        rng = np.random.default_rng(seed)
        pairs_in = [pairs_in[i] for i in sorted(rng.choice(len(pairs_in), DIRECTION_SAMPLE, replace=False))]
    forward = _impossible(mech, pairs_in)
    if not forward:
        return
    backward = _impossible(mech, [(s, o) for o, s in pairs_in])
    example = next((o, s) for o, s in pairs_in if mech.prob(s, o) == 0.0)
    if backward and swapped_mech is not None:
        backward = _impossible(swapped_mech(), [(s, o) for o, s in pairs_in])
    if backward == 0:
        raise ValueError(
            f"reconstruction_asr: predictions and references look swapped: {forward} of {len(pairs_in)} changed word pairs "
            f"cannot come from the mechanism ({mech.name}) as reference -> prediction (e.g. {example[0]!r} -> {example[1]!r}) "
            "but all can the other way; pass predictions=<sanitized texts>, references=<original texts>")
    logger.warning("reconstruction_asr: %d of %d changed word pairs cannot come from the mechanism (%s) in either direction "
                   "(e.g. %r -> %r): the predictions were not sanitized by this mechanism and the ASR is not its ASR; pass "
                   "the fitted sanitizer as mechanism=", forward, len(pairs_in), mech.name, example[0], example[1])


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ReconstructionASR(evaluate.Metric):
    def __init__(self, embeddings: "str | WordEmbeddings" = "default", **kwargs):
        super().__init__(**kwargs)
        self.embeddings = embeddings

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            codebase_urls=["https://github.com/mengtong0110/On-the-Vulnerability-of-Text-Sanitization"],
            reference_urls=["https://github.com/xiangyue9607/SanText", "https://github.com/sai4july/CusText"],
        )

    def _swapped(self, mechanism, epsilon, mechanism_options, vocab, corpus) -> "Callable[[], WordMechanism] | None":
        """For a mechanism built by name from the references' counts: how to build the one fitted on the
        predictions' counts instead (what a swap of the two would have meant), for :func:`check_direction`."""
        if isinstance(mechanism, WordMechanism) or hasattr(mechanism, "mechanism") or vocab is not None:
            return None
        return lambda: self._mechanism(mechanism, epsilon, mechanism_options, None, corpus)

    def _mechanism(self, mechanism, epsilon, mechanism_options, vocab, corpus) -> WordMechanism:
        if isinstance(mechanism, WordMechanism) or hasattr(mechanism, "mechanism"):
            mech = mechanism if isinstance(mechanism, WordMechanism) else mechanism.mechanism
            if epsilon is not None and float(epsilon) != float(getattr(mech, "epsilon", epsilon)):
                logger.warning("reconstruction_asr: epsilon=%s is ignored: the mechanism passed in was built with epsilon=%s",
                               epsilon, mech.epsilon)
            return mech
        if epsilon is None:
            raise ValueError(f"reconstruction_asr: mechanism={str(mechanism)!r} by name needs epsilon=<the epsilon the "
                             "predictions were sanitized with>, or pass the fitted sanitizer as mechanism=")
        emb = self.embeddings if isinstance(self.embeddings, WordEmbeddings) else WordEmbeddings.load(self.embeddings)
        counts = [(str(w), int(c)) for w, c in vocab] if vocab is not None else count_words(corpus)
        return build_mechanism(str(mechanism), emb, counts, epsilon, **(mechanism_options or {}))

    def _compute(self, predictions, references, mechanism="santext+", epsilon: float | None = None, mechanism_options=None,
                 vocab=None, shadow: Sequence[str] | None = None, shadow_copies: int = 10,
                 attacks=("context_free_bayes", "embedding_inversion"),
                 bounds=("context_free",), attack_options=None, targets: str = "mechanism",
                 max_targets: int | None = None, seed: int = 0) -> dict[str, Any]:
        shadow = list(shadow or [])
        mech = self._mechanism(mechanism, epsilon, mechanism_options, vocab, list(references) + shadow)
        needs_shadow = sorted(set(attacks) & _SHADOW_ATTACKS)
        if needs_shadow and not shadow:
            raise ValueError(f"attacks {needs_shadow} need shadow texts (shadow=[...]); an empty prior would understate ASR")
        originals, sanitized, spans = [], [], []
        for r, (ref, pred) in enumerate(zip(references, predictions)):
            o, sp = mech.tokenizer.tokens_and_spans(ref)
            s = mech.tokenizer.tokens(pred)
            if len(o) != len(s):
                raise ValueError(f"record {r}: {len(o)} original tokens but {len(s)} sanitized tokens; "
                                 "the prediction is not a token-for-token sanitization of the reference")
            originals.append(o)
            sanitized.append(s)
            spans.append(sp)
        check_direction(mech, originals, sanitized, seed,
                        self._swapped(mechanism, epsilon, mechanism_options, vocab, list(predictions) + shadow))
        if targets == "mechanism":
            flags = [[mech.is_sensitive(t) for t in toks] for toks in originals]
        elif targets == "pii":
            flags = pii_flags(list(references), spans)
        else:
            raise ValueError(f"targets must be 'mechanism' or 'pii', got {targets!r}")
        data = AttackData(mech, originals, sanitized, select_targets(flags, max_targets, seed),
                          shadow_original=[mech.tokenizer.tokens(t) for t in shadow], shadow_copies=shadow_copies, seed=seed)
        specs = list(attacks) + [f"{b}_bound" for b in bounds]
        result = run_attacks(data, specs, attack_options)
        result.pop("details", None)
        result["mechanism"] = mech.describe()
        return result
