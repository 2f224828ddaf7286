"""LLM sanitizers of seed 000: prompts, rounds and answer parsing. The ``sanitizers.llm`` classes are
thin configuration holders over the three functions here.

- :func:`iterative_anonymize`: Staab et al. (2024) as adapted by seed 000 (App. A.2, prompts C.3):
  an adversary infers eight attributes (C.3.1/C.3.2), an anonymizer rewrites the record given those
  inferences (C.3.3/C.3.4); R rounds (3), each round's output is the next round's input; T = 0.1.
- :func:`sanitize_and_paraphrase`: C.2.1 (sanitize, no inference) then C.2.2 (paraphrase).
- :func:`abstract_spans`: Dou et al. (2024): a span detector finds self-disclosure spans per sentence,
  an LLM proposes three more abstract rewrites of each span, the first replaces the span.

Answers of the anonymizing prompts are parsed after the ``#`` line (:func:`parse_after_hash`). A
failure never passes the original text through, and never turns into an empty "perfectly private"
record without saying so: it is written to the status column (:data:`FAILURE_STATUSES`).
Refusals, before or after the ``#`` line, are recognised by the shared classifier
(:mod:`textleak.llm.refusals`) and get status ``refusal``; no failed answer is cached, so a rerun
against a server that works again asks afresh.

``#`` parsing, paper vs code: the paper's prompts ask for "a single #" on a new line and the text
after it; the default parser takes the text after a line that starts with ``#``
(``hash_parsing="line"``); seed 000's code takes the text after the first ``#`` anywhere
(``hash_parsing="anywhere"``). When the ``#`` is missing, seed 000's released code yields the empty string and Staab et
al.'s code keeps the whole answer. Here the default (``on_missing_hash="fail"``) makes that record a
failure (text None, status ``missing_hash``); ``"empty"`` (released code) and ``"whole"`` (Staab)
are options, and both still carry the ``missing_hash`` status so downstream reports can count them.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Callable, Sequence

from textleak.llm.refusals import is_refusal
from textleak.prompts import fill, load_prompt
from textleak.sanitize.base import SanitizeResult
from textleak.text import sentence_spans
from textleak.text.seeds import derive_seed

logger = logging.getLogger(__name__)

DOMAINS = ("medqa", "wildchat")
MISSING_HASH_POLICIES = ("fail", "empty", "whole")

STATUS_OK = "ok"
STATUS_LLM_ERROR = "llm_error"  # the backend gave no answer (timeout, server error) after its retries
STATUS_MISSING_HASH = "missing_hash"
STATUS_EMPTY_OUTPUT = "empty_output"
STATUS_REFUSAL = "refusal"
STATUS_UNPARSED = "unparsed"  # span abstraction: no "span 1" in the answer
FAILURE_STATUSES = (STATUS_LLM_ERROR, STATUS_MISSING_HASH, STATUS_EMPTY_OUTPUT, STATUS_REFUSAL, STATUS_UNPARSED)

_HASH_LINE = re.compile(r"^[ \t]*#+[ \t]*$", re.MULTILINE)
_HASH_LINE_START = re.compile(r"^[ \t]*#+[ \t]*", re.MULTILINE)
HASH_PARSING = ("line", "anywhere")


def check_domain(domain: str) -> str:
    if domain not in DOMAINS:
        raise ValueError(f"unknown domain {domain!r}: use 'medqa' (records) or 'wildchat' (conversations)")
    return domain


# ---- parsing ---------------------------------------------------------------------------------------
def parse_after_hash(answer: str, anywhere: bool = False) -> str | None:
    """The text after the ``#`` line of an anonymizer's answer, or None when there is no ``#``.

    The prompt asks for "a single #" on a new line: a line holding only ``#`` marks the start; else a
    line starting with ``#`` ("# the text"), its text after the marks included. A ``#`` inside a line
    does not count: small models echo the instruction ("write a single # and then ..."), and taking
    the text after that ``#`` would pass an echo off as a sanitized record. ``anywhere=True`` is seed
    000's released code: the text after the first ``#`` wherever it is.
    """
    if anywhere:
        return answer.split("#", 1)[1].lstrip("#").strip() if "#" in answer else None
    match = _HASH_LINE.search(answer)
    if match:
        return answer[match.end():].strip()
    match = _HASH_LINE_START.search(answer)
    if match:
        return answer[match.end():].strip()
    return None


def resolve_hash_answer(answer: str | None, on_missing_hash: str = "fail", hash_anywhere: bool = False) -> SanitizeResult:
    """Turn one raw anonymizer answer into a result, applying the failure policy."""
    if answer is None:
        return SanitizeResult(None, STATUS_LLM_ERROR)
    if is_refusal(answer):
        return SanitizeResult(None, STATUS_REFUSAL)
    text = parse_after_hash(answer, anywhere=hash_anywhere)
    if text is None:
        if on_missing_hash == "empty":
            return SanitizeResult("", STATUS_MISSING_HASH)
        if on_missing_hash == "whole" and answer.strip():
            return SanitizeResult(answer.strip(), STATUS_MISSING_HASH)
        return SanitizeResult(None, STATUS_MISSING_HASH)
    if is_refusal(text):  # a refusal after the '#' line is still a refusal
        return SanitizeResult(None, STATUS_REFUSAL)
    if not text:
        return SanitizeResult(None, STATUS_EMPTY_OUTPUT)
    return SanitizeResult(text, STATUS_OK)


def resolve_paraphrase_answer(answer: str | None) -> SanitizeResult:
    """C.2.2 answers carry no ``#``: the released code removes every ``#`` and strips."""
    if answer is None:
        return SanitizeResult(None, STATUS_LLM_ERROR)
    text = answer.replace("#", "").strip()
    if is_refusal(text):
        return SanitizeResult(None, STATUS_REFUSAL)
    if not text:
        return SanitizeResult(None, STATUS_EMPTY_OUTPUT)
    return SanitizeResult(text, STATUS_OK)


def parse_generalized_span(answer: str | None) -> str | None:
    """"span 1" of a Dou-style JSON answer; falls back to the text between "span 1" and "span 2"
    (as Dou's released code) when the JSON does not parse. None when neither works."""
    if answer is None:
        return None
    start = answer.find("{")
    end = answer.find("}", start + 1)
    if start >= 0 and end > start:
        try:
            obj = json.loads(answer[start : end + 1])
            value = obj.get("span 1") if isinstance(obj, dict) else None
            if isinstance(value, str) and value.strip():
                return value.strip()
        except json.JSONDecodeError:
            pass
    m = re.search(r"span 1\"?\s*:\s*\"?(.*?)\"?\s*,?\s*\"?span 2", answer, re.DOTALL)
    if m and m.group(1).strip(' "'):
        return m.group(1).strip(' "')
    return None


# ---- prompts ---------------------------------------------------------------------------------------
def inference_messages(text: str, domain: str) -> list[dict[str, str]]:
    """Adversarial attribute inference (C.3.1 WildChat / C.3.2 MedQA)."""
    return [
        {"role": "system", "content": load_prompt("anonymize_investigator_system")},
        {"role": "user", "content": fill(load_prompt(f"anonymize_infer_{check_domain(domain)}"), document=text)},
    ]


def anonymize_messages(text: str, inference: str, domain: str) -> list[dict[str, str]]:
    """Anonymization given the inferences (C.3.3 WildChat / C.3.4 MedQA). As in seed 000's code,
    the inference follows the record, before the output instructions."""
    return [
        {"role": "system", "content": load_prompt("anonymize_system")},
        {"role": "user", "content": fill(load_prompt(f"anonymize_rewrite_{check_domain(domain)}"), document=text, inference=inference.strip())},
    ]


def sanitize_messages(text: str, domain: str) -> list[dict[str, str]]:
    """C.2.1: one user prompt, no inference."""
    return [{"role": "user", "content": fill(load_prompt(f"sanitize_{check_domain(domain)}"), document=text)}]


def paraphrase_messages(text: str) -> list[dict[str, str]]:
    """C.2.2 (the same for both domains: it speaks of "text")."""
    return [{"role": "user", "content": fill(load_prompt("sanitize_paraphrase"), document=text)}]


def span_messages(sentence: str, span: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": fill(load_prompt("sanitize_span_abstraction"), sentence=sentence, span=span)}]


# ---- the methods -----------------------------------------------------------------------------------
def _generate(lm: Any, prompts: list, seeds: list[int], temperature: float, max_new_tokens: int,
              usable: Callable[[str], bool] | None = None) -> list[str | None]:
    """One answer per prompt (None where the backend failed). Answers that are refusals, or that
    ``usable`` rejects (they would make the record fail), are returned but never cached: a rerun,
    e.g. against a server that works again, asks afresh instead of replaying the failure."""
    if not prompts:
        return []

    def accept(_i: int, samples: list) -> bool:
        return all(s is not None and not is_refusal(s) and (usable is None or usable(s)) for s in samples)

    outs = lm.generate(prompts, max_new_tokens=max_new_tokens, temperature=temperature, seed=seeds, on_error="none",
                       accept=accept)
    return [o[0] for o in outs]


def iterative_anonymize(
    lm: Any,
    texts: Sequence[str],
    seeds: Sequence[int],
    *,
    domain: str = "medqa",
    rounds: int = 3,
    temperature: float = 0.1,
    max_new_tokens: int = 1024,
    inference_max_new_tokens: int = 768,
    on_missing_hash: str = "fail",
    hash_anywhere: bool = False,
) -> list[tuple[SanitizeResult, list[str]]]:
    """Staab-style rounds for a batch. Returns, per record, the result and the inference of each
    round (for inspection). A record that fails in a round stops there with that round's status."""
    if rounds < 1:
        raise ValueError("rounds must be >= 1")
    current: list[str | None] = list(texts)
    results: list[SanitizeResult | None] = [None] * len(texts)
    inferences: list[list[str]] = [[] for _ in texts]
    for r in range(rounds):
        alive = [i for i in range(len(texts)) if results[i] is None or results[i].status == STATUS_OK]
        alive = [i for i in alive if current[i] is not None]
        if not alive:
            break
        inf = _generate(lm, [inference_messages(current[i], domain) for i in alive],
                        [derive_seed(seeds[i], r, 0) for i in alive], temperature, inference_max_new_tokens)
        ok = []
        for i, answer in zip(alive, inf):
            if answer is None:
                results[i], current[i] = SanitizeResult(None, STATUS_LLM_ERROR), None
            else:
                inferences[i].append(answer)
                ok.append(i)
        answers = _generate(lm, [anonymize_messages(current[i], inferences[i][-1], domain) for i in ok],
                            [derive_seed(seeds[i], r, 1) for i in ok], temperature, max_new_tokens,
                            usable=lambda a: resolve_hash_answer(a, on_missing_hash, hash_anywhere).status == STATUS_OK)
        for i, answer in zip(ok, answers):
            res = resolve_hash_answer(answer, on_missing_hash, hash_anywhere)
            results[i] = res
            current[i] = res.text if res.status == STATUS_OK else None
            if res.status != STATUS_OK:
                logger.debug("record %d failed in round %d: %s", i, r + 1, res.status)
    return [(res or SanitizeResult(None, STATUS_LLM_ERROR), inf) for res, inf in zip(results, inferences)]


def sanitize_and_paraphrase(
    lm: Any,
    texts: Sequence[str],
    seeds: Sequence[int],
    *,
    domain: str = "medqa",
    temperature: float = 0.1,
    max_new_tokens: int = 1024,
    on_missing_hash: str = "fail",
    hash_anywhere: bool = False,
) -> list[SanitizeResult]:
    """C.2.1 then C.2.2 for a batch; a record failing step 1 is not paraphrased."""
    first = _generate(lm, [sanitize_messages(t, domain) for t in texts], [derive_seed(s, 0) for s in seeds], temperature, max_new_tokens,
                      usable=lambda a: resolve_hash_answer(a, on_missing_hash, hash_anywhere).status == STATUS_OK)
    step1 = [resolve_hash_answer(a, on_missing_hash, hash_anywhere) for a in first]
    todo = [i for i, r in enumerate(step1) if r.text]  # "" (the 'empty' policy) is not paraphrased
    second = _generate(lm, [paraphrase_messages(step1[i].text) for i in todo], [derive_seed(seeds[i], 1) for i in todo], temperature,
                       max_new_tokens, usable=lambda a: resolve_paraphrase_answer(a).status == STATUS_OK)
    out = list(step1)
    for i, answer in zip(todo, second):
        res = resolve_paraphrase_answer(answer)
        # keep a step-1 warning status (missing_hash under 'whole') when step 2 succeeds
        out[i] = SanitizeResult(res.text, step1[i].status if res.status == STATUS_OK else res.status)
    return out


# ---- span abstraction ------------------------------------------------------------------------------
def merge_adjacent(spans: list[tuple[int, int, str]], sentence: str) -> list[tuple[int, int, str]]:
    """Merge spans of the same type separated only by whitespace (Dou's B-/I- grouping merges
    adjacent spans of one type); overlapping spans are merged whatever their types."""
    merged: list[tuple[int, int, str]] = []
    for s, e, t in sorted(spans):
        if merged:
            ps, pe, pt = merged[-1]
            if s < pe or (t == pt and not sentence[pe:s].strip()):
                merged[-1] = (ps, max(pe, e), pt)
                continue
        merged.append((s, e, t))
    return merged


def abstract_spans(
    lm: Any,
    detect: Callable[[list[str]], list[list[tuple[int, int, str]]]],
    texts: Sequence[str],
    seeds: Sequence[int],
    *,
    temperature: float = 0.7,
    max_new_tokens: int = 128,
) -> list[SanitizeResult]:
    """Detect spans per sentence with ``detect`` (sentences -> (start, end, type) per sentence),
    rewrite each span with the LLM, rebuild the record keeping its original whitespace."""
    sentence_ranges = [sentence_spans(t) for t in texts]
    flat = [(ri, a, b) for ri, ranges in enumerate(sentence_ranges) for a, b in ranges]
    detected = detect([texts[ri][a:b] for ri, a, b in flat]) if flat else []
    jobs = []  # (record, absolute start, absolute end, sentence, span text)
    for (ri, a, b), spans in zip(flat, detected):
        sentence = texts[ri][a:b]
        for s, e, _t in merge_adjacent(list(spans), sentence):
            jobs.append((ri, a + s, a + e, sentence, sentence[s:e]))
    span_no: dict[int, int] = {}
    job_seeds = []
    for ri, *_ in jobs:
        span_no[ri] = span_no.get(ri, -1) + 1
        job_seeds.append(derive_seed(seeds[ri], span_no[ri]))
    answers = _generate(lm, [span_messages(sent, span) for _, _, _, sent, span in jobs], job_seeds, temperature, max_new_tokens,
                        usable=lambda a: parse_generalized_span(a) is not None)
    status = [STATUS_OK] * len(texts)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for (ri, s, e, _sent, _span), answer in zip(jobs, answers):
        if answer is None:
            status[ri] = STATUS_LLM_ERROR
            continue
        if is_refusal(answer):
            status[ri] = STATUS_REFUSAL
            continue
        new = parse_generalized_span(answer)
        if new is None:
            if status[ri] == STATUS_OK:
                status[ri] = STATUS_UNPARSED
            continue
        edits.setdefault(ri, []).append((s, e, new))
    out = []
    for ri, text in enumerate(texts):
        if status[ri] != STATUS_OK:
            out.append(SanitizeResult(None, status[ri]))
            continue
        pieces, last = [], 0
        for s, e, new in sorted(edits.get(ri, [])):
            pieces.append(text[last:s])
            pieces.append(new)
            last = e
        pieces.append(text[last:])
        out.append(SanitizeResult("".join(pieces), STATUS_OK))
    return out


def presidio_span_detector(engine: Any) -> Callable[[list[str]], list[list[tuple[int, int, str]]]]:
    """Presidio spans as the offline stand-in for Dou's (gated) self-disclosure detector."""

    def detect(sentences: list[str]) -> list[list[tuple[int, int, str]]]:
        return [[(s.start, s.end, s.entity_type) for s in spans] for spans in engine.analyze(sentences)]

    return detect


def _trim_punctuation(sentence: str, start: int, end: int) -> tuple[int, int]:
    """Word-level labels cover punctuation glued to a word ("Leeds."): keep it out of the span."""
    while end > start and (sentence[end - 1] in ".,;:!?)]\"'" or sentence[end - 1].isspace()):
        end -= 1
    while start < end and (sentence[start] in "([\"'" or sentence[start].isspace()):
        start += 1
    return start, end


def hf_span_detector(model_id: str, aggregation_strategy: str = "first", device: int | str | None = None,
                     batch_size: int = 8) -> Callable[[list[str]], list[list[tuple[int, int, str]]]]:
    """Any Hugging Face token-classification model (e.g. Dou et al.'s
    ``douy/deberta-v3-large-self-disclosure-detection``, after accepting its gate): labels lose
    their B-/I- prefix, ``O`` is dropped. ``aggregation_strategy="first"`` predicts each word from its
    first sub-token, as Dou et al. (needs a fast tokenizer)."""
    from transformers import pipeline

    pipe = pipeline("token-classification", model=model_id, aggregation_strategy=aggregation_strategy, device=device)

    def detect(sentences: list[str]) -> list[list[tuple[int, int, str]]]:
        out = []
        for sentence, ents in zip(sentences, pipe(sentences, batch_size=batch_size)):
            spans = []
            for ent in ents:
                label = re.sub(r"^[BIES]-", "", str(ent.get("entity_group") or ent.get("entity", "")))
                if label and label != "O" and ent.get("start") is not None:
                    start, end = _trim_punctuation(sentence, int(ent["start"]), int(ent["end"]))
                    if end > start:
                        spans.append((start, end, label))
            out.append(spans)
        return out

    return detect
