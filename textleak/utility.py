"""The utility side of the privacy-utility trade-off (seed 000 section 3, appendices A.1, C.5, C.6).

A privacy number alone misleads: "remove everything" is perfectly private. Each measure here says
how much of a sanitized set's usefulness survived:

- :func:`medqa_accuracy`: an LLM answers each MedQA question from the *sanitized* profile (prompt
  C.6.1 with in-context demos shipped in ``prompts/medqa_demos.json``, never taken from the evaluated
  records); the answer letter is scored by log-probabilities where the backend allows, else generated
  and parsed. :func:`medqa_remove_all_baseline` is the "remove all information" floor.
- :func:`classify_tasks` + :func:`category_utility`: each conversation goes into one of the 21 WildChat
  task categories (prompt C.6.2); the chi-square distance between the sanitized set's category counts
  and the original's, normalised to [0, 1] against a random-category baseline (appendix A.1.1).
- :func:`coherence`: a 1-5 rating by an LLM judge (prompts C.5.1 MedQA, C.5.2 WildChat).
- :func:`classifier_utility`: TF-IDF + logistic regression trained on sanitized text, tested on clean
  text (the SST-2 / AG News / QNLI / Yelp sets of the word-level DP work).

Failures are counted and reported, never dropped in a way that flatters a sanitizer: an answer that
cannot be parsed is a wrong answer; a sanitized record that is missing (None) is a wrong answer and an
unclassifiable conversation is its own category.
"""

from __future__ import annotations

import json
import logging
import math
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from textleak.data.wildchat import WILDCHAT_CATEGORIES, category_short_name
from textleak.progress import map_chunks
from textleak.prompts import load_prompt, load_prompt_json

logger = logging.getLogger(__name__)

LETTERS = ("A", "B", "C", "D")
UNPARSED = "(unparsed)"


def _lm(llm: Any):
    from textleak.llm import load_llm

    return load_llm(llm)


# =====================================================================================================
# MedQA accuracy (appendix C.6.1)
# =====================================================================================================
def load_medqa_demos(path: str | Path | None = None) -> list[dict[str, Any]]:
    """In-context demos: ``profile``, ``question``, ``options`` {A..D}, ``answer_idx``. The shipped
    file holds invented cases written for textleak (the released code took the last 3 evaluated
    records, which leaks test data into the prompt; we never do)."""
    demos = json.loads(Path(path).read_text(encoding="utf-8")) if path else load_prompt_json("medqa_demos")
    for i, d in enumerate(demos):
        missing = {"profile", "question", "options", "answer_idx"} - set(d)
        if missing:
            raise ValueError(f"MedQA demo {i} lacks {sorted(missing)}")
        if d["answer_idx"] not in LETTERS or set(d["options"]) != set(LETTERS):
            raise ValueError(f"MedQA demo {i} needs options A-D and an answer_idx among them")
    return demos


def render_medqa_item(profile: str, question: str, options: Mapping[str, str], answer: str | None = None) -> str:
    """One item in the C.6.1 layout: "Question:\\n<profile> <question>\\nOptions:\\nA. ...\\n\\nAnswer:"."""
    body = f"{profile.strip()} {question.strip()}".strip() if profile else question.strip()
    missing = [k for k in LETTERS if k not in options]
    if missing:
        raise ValueError(f"options lack {missing}")
    return load_prompt("utility_medqa_item").format(
        question=body, **{k: options[k] for k in LETTERS}) + (f" {answer}" if answer else "")


def medqa_prompt(profile: str, question: str, options: Mapping[str, str], demos: Sequence[Mapping[str, Any]] = ()) -> str:
    """The whole prompt: the C.6.1 instruction, the answered demos, then the test item ending in "Answer:"."""
    parts = [load_prompt("utility_medqa")]
    parts += [render_medqa_item(d["profile"], d["question"], d["options"], d["answer_idx"]) for d in demos]
    parts.append(render_medqa_item(profile, question, options))
    return "\n\n".join(parts)


# a leading letter, unless it is the article "A" starting a sentence ("A patient ...")
_LEADING_LETTER = re.compile(r"^\W*\(?([ABCD])(?:[\).:,]|\s*$|\s+(?![a-z]))")
_ANSWER_IS = re.compile(r"answer(?:\s+is)?\s*[:\-]?\s*\(?([ABCD])\b", re.IGNORECASE)


def parse_answer_letter(reply: str | None) -> str | None:
    """The answer letter of a generated reply: a leading "C", "(C)", "C." or "C) ...", else "answer: C"
    / "the answer is C" anywhere; None when neither is found (the caller counts it wrong)."""
    if not reply:
        return None
    text = reply.strip()
    m = _LEADING_LETTER.match(text) or _ANSWER_IS.search(text)
    return m.group(1).upper() if m else None


def medqa_accuracy(
    llm: Any,
    profiles: Sequence[str | None],
    questions: Sequence[str],
    options: Sequence[Mapping[str, str]],
    answers: Sequence[str],
    demos: Sequence[Mapping[str, Any]] | str | None = "default",
    scoring: str = "auto",
    seed: int = 0,
    max_new_tokens: int = 8,
    progress: bool | None = False,
) -> dict[str, Any]:
    """Accuracy of ``llm`` answering each question from its (sanitized) profile (``progress``: a bar,
    see :mod:`textleak.progress`).

    ``scoring``: "logprob" compares the log-probabilities of " A".." D" after "Answer:" (ties go to
    the earliest letter); "generate" decodes greedily and parses the letter; "auto" uses logprob when
    ``llm.supports_scoring``. ``demos``: "default" (the shipped demos), None/() for zero-shot, or a
    list; a demo whose question is one of the evaluated questions is an error (test data in the prompt).
    A None profile (the sanitizer failed on that record) and an unparsed reply count as wrong and are
    reported in ``failed`` and ``unparsed``.
    """
    n = len(questions)
    if not (len(profiles) == len(options) == len(answers) == n):
        raise ValueError(f"lengths differ: {len(profiles)} profiles, {n} questions, {len(options)} options, {len(answers)} answers")
    if scoring not in ("auto", "logprob", "generate"):
        raise ValueError("scoring must be 'auto', 'logprob' or 'generate'")
    demo_list = load_medqa_demos() if demos == "default" else list(demos or [])
    # an item is its question with its options: question sentences alone ("What is the most likely
    # diagnosis?") repeat across unrelated records
    def item_key(question: str, opts: Mapping[str, str]) -> tuple:
        return (question.strip(), tuple(sorted((k, str(v).strip()) for k, v in opts.items())))

    evaluated = {item_key(q, o) for q, o in zip(questions, options)}
    for i, d in enumerate(demo_list):
        if item_key(d["question"], d["options"]) in evaluated:
            raise ValueError(f"demo {i} has the same question as an evaluated record: demos must never come from the evaluated set")
    for i, a in enumerate(answers):
        if a not in LETTERS:
            raise ValueError(f"record {i}: answer {a!r} is not one of A-D")
    lm = _lm(llm)
    method = scoring if scoring != "auto" else ("logprob" if lm.supports_scoring else "generate")
    if method == "logprob" and not lm.supports_scoring:
        raise ValueError(f"{lm.backend}:{lm.model_name} cannot score choices; use scoring='generate'")

    todo = [i for i in range(n) if profiles[i] is not None]
    prompts = [medqa_prompt(profiles[i], questions[i], options[i], demo_list) for i in todo]
    predictions: list[str | None] = [None] * n
    if todo and method == "logprob":
        scores = map_chunks(lambda a, b: lm.score(prompts[a:b], [" " + k for k in LETTERS]), len(todo),
                            progress=progress, desc="utility: MedQA answers", unit="rec")
        for i, row in zip(todo, scores):
            if all(math.isfinite(s) for s in row):
                predictions[i] = LETTERS[int(np.argmax(row))]
    elif todo:
        outs = map_chunks(lambda a, b: lm.generate([[{"role": "user", "content": p}] for p in prompts[a:b]],
                                                   max_new_tokens=max_new_tokens, temperature=0.0,
                                                   seed=[seed + i for i in todo[a:b]], on_error="none"),
                          len(todo), progress=progress, desc="utility: MedQA answers", unit="rec")
        for i, out in zip(todo, outs):
            predictions[i] = parse_answer_letter(out[0] if out else None)
    failed = n - len(todo)
    unparsed = sum(1 for i in todo if predictions[i] is None)
    correct = sum(1 for p, a in zip(predictions, answers) if p is not None and p == a)
    if unparsed:
        logger.warning("MedQA accuracy: %d of %d replies had no parsable answer letter (counted wrong)", unparsed, len(todo))
    return {
        "accuracy": correct / n if n else float("nan"),
        "n": n,
        "correct": correct,
        "unparsed": unparsed,
        "failed": failed,
        "method": method,
        "n_demos": len(demo_list),
        "predictions": predictions,
        "model": lm.describe(),
    }


def medqa_remove_all_baseline(llm: Any, questions: Sequence[str], options: Sequence[Mapping[str, str]],
                              answers: Sequence[str], **kwargs: Any) -> dict[str, Any]:
    """The "remove all information" baseline: the question and options with an empty profile
    (seed 000 reports 0.44 with its model). A sanitizer below this line destroyed all task utility."""
    return medqa_accuracy(llm, [""] * len(questions), questions, options, answers, **kwargs)


# =====================================================================================================
# WildChat task categories and the chi-square utility (appendices A.1.1, C.6.2)
# =====================================================================================================
def classification_prompt(conversation: str, max_chars: int = 5000) -> str:
    """Prompt C.6.2 for one conversation, truncated to its first ``max_chars`` characters (as the
    released code does)."""
    return load_prompt("utility_wildchat").format(context=conversation[:max_chars])


_TASK_PREFIX = re.compile(r"(?:\*\*task|\"task)", re.IGNORECASE)


def parse_category(reply: str | None, categories: Sequence[str] = WILDCHAT_CATEGORIES,
                   min_recall: float = 0.5) -> str | None:
    """The category a classifier reply names: lower-case it, keep what follows "**task" or '"task'
    and cut at "confidence" (the released code's clean-up), then pick the category whose short name
    (before "(") has the highest stemmed ROUGE-1 recall against the reply. Ties go to the earlier
    category. A best recall below ``min_recall`` gives None (unparsed): the released code takes the
    best category whatever its overlap (``min_recall=0``), so "no idea" became "brainstorming and
    generating ideas"."""
    if not reply or not reply.strip():
        return None
    from rouge_score import rouge_scorer

    text = reply.lower()
    m = _TASK_PREFIX.search(text)
    if m:
        text = text[m.end():]
    text = text.split("confidence")[0]
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    best, best_recall = None, 0.0
    for cat in categories:
        recall = scorer.score(category_short_name(cat), text)["rouge1"].recall
        if recall > best_recall:
            best, best_recall = cat, recall
    return best if best_recall > 0 and best_recall >= min_recall else None


def classify_tasks(llm: Any, texts: Sequence[str | None], seed: int = 0, max_chars: int = 5000,
                   max_new_tokens: int = 32, scoring: str = "generate",
                   categories: Sequence[str] = WILDCHAT_CATEGORIES, progress: bool | None = False) -> dict[str, Any]:
    """One of the 21 task categories per conversation. ``scoring="generate"`` (seed 000's way):
    greedy decoding of one chat turn, parsed by :func:`parse_category`; ``"logprob"``: the category
    whose short name has the highest log-probability after "Answer:" (for base models, which cannot
    follow the instruction but can be scored). A missing text (failed sanitization) or an unparsable
    reply becomes :data:`UNPARSED`, a category of its own."""
    if scoring not in ("generate", "logprob"):
        raise ValueError("scoring must be 'generate' or 'logprob'")
    lm = _lm(llm)
    todo = [i for i, t in enumerate(texts) if t is not None]
    out: list[str] = [UNPARSED] * len(texts)
    if todo and scoring == "logprob":
        if not lm.supports_scoring:
            raise ValueError(f"{lm.backend}:{lm.model_name} cannot score choices; use scoring='generate'")
        prompts = [classification_prompt(texts[i], max_chars) for i in todo]
        scores = map_chunks(lambda a, b: lm.score(prompts[a:b], [" " + category_short_name(c) for c in categories]),
                            len(todo), progress=progress, desc="utility: task categories", unit="rec")
        for i, row in zip(todo, scores):
            if all(math.isfinite(x) for x in row):
                out[i] = categories[int(np.argmax(row))]
    elif todo:
        prompts = [[{"role": "user", "content": classification_prompt(texts[i], max_chars)}] for i in todo]
        replies = map_chunks(lambda a, b: lm.generate(prompts[a:b], max_new_tokens=max_new_tokens, temperature=0.0,
                                                      seed=[seed + i for i in todo[a:b]], on_error="none"),
                             len(todo), progress=progress, desc="utility: task categories", unit="rec")
        for i, r in zip(todo, replies):
            out[i] = parse_category(r[0] if r else None, categories) or UNPARSED
    unparsed = sum(1 for c in out if c == UNPARSED)
    return {"categories": out, "unparsed": unparsed, "failed": len(texts) - len(todo), "scoring": scoring,
            "model": lm.describe()}


def category_counts(labels: Sequence[str], categories: Sequence[str] = WILDCHAT_CATEGORIES) -> dict[str, int]:
    """Counts per category (every category present, zeros included), plus :data:`UNPARSED` when it occurs."""
    counts = {c: 0 for c in categories}
    for lab in labels:
        if lab not in counts and lab != UNPARSED:
            raise ValueError(f"{lab!r} is not a known category")
        counts[lab] = counts.get(lab, 0) + 1
    return counts


def chi_square_distance(counts: Mapping[str, float], original_counts: Mapping[str, float],
                        original_total: float | None = None, correction: bool = False) -> float:
    """The chi-square statistic of the 2xK table [counts; original rescaled] (``scipy.stats.
    chi2_contingency``). ``correction=False``: no Yates continuity correction, so the statistic is a
    plain distance; the released code used scipy's default (True), which differs only when exactly
    two categories occur, where it shrinks small differences to 0.

    The original row is rescaled to sum to ``original_total``: by default the first row's total, so
    both rows weigh the same (the released code rescales to 1000). Categories absent from both rows
    are dropped (they carry no information and would make an expected count zero); a category present
    in only one row is kept with a zero in the other.
    """
    from scipy.stats import chi2_contingency

    keys = sorted(set(counts) | set(original_counts))
    a = np.array([float(counts.get(k, 0)) for k in keys])
    b = np.array([float(original_counts.get(k, 0)) for k in keys])
    if a.sum() <= 0 or b.sum() <= 0:
        raise ValueError("both distributions need at least one counted record")
    b = b * ((original_total if original_total is not None else a.sum()) / b.sum())
    keep = (a + b) > 0
    table = np.vstack([a[keep], b[keep]])
    if table.shape[1] < 2:
        return 0.0  # one category in both rows: identical distributions
    return float(chi2_contingency(table, correction=correction).statistic)


def random_category_chi_square(original_counts: Mapping[str, float], n_records: int,
                               categories: Sequence[str] = WILDCHAT_CATEGORIES, n_draws: int = 20,
                               seed: int = 0, original_total: float | None = None) -> float:
    """The floor of :func:`category_utility`: the mean chi-square distance, over ``n_draws`` seeded
    draws, of ``n_records`` categories assigned uniformly at random. (Seed 000 asked the LLM for
    random categories; uniform seeded draws are the reproducible form of that baseline.)"""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_draws):
        draw = rng.integers(0, len(categories), size=n_records)
        counts = {c: int(k) for c, k in zip(categories, np.bincount(draw, minlength=len(categories)))}
        values.append(chi_square_distance(counts, original_counts, original_total))
    return float(np.mean(values))


def category_utility(labels: Sequence[str], original_labels: Sequence[str],
                     categories: Sequence[str] = WILDCHAT_CATEGORIES, n_draws: int = 20, seed: int = 0,
                     original_total: float | None = None) -> dict[str, Any]:
    """Normalised category-distribution utility U = max(0, 1 - chi2_method / chi2_random) in [0, 1].

    1 means the sanitized set's task distribution matches the original's; 0 means it is no closer
    than random categories. ``labels``/``original_labels`` come from :func:`classify_tasks` on the
    sanitized (or synthetic) and on the original conversations; :data:`UNPARSED` counts as a category.
    U is NaN when the random baseline itself has distance 0 (cannot normalise).
    """
    counts = category_counts(labels, categories)
    original = category_counts(original_labels, categories)
    chi_method = chi_square_distance(counts, original, original_total)
    chi_random = random_category_chi_square(original, len(labels), categories, n_draws, seed, original_total)
    utility = float("nan") if chi_random <= 0 else max(0.0, 1.0 - chi_method / chi_random)
    # a classifier that puts (nearly) everything in one category cannot tell sanitizers apart: say so
    top_share = max(original.values()) / max(1, sum(original.values()))
    if top_share >= 0.8:
        logger.warning("category utility: %.0f%% of the originals fall in one category; the classifier may be "
                       "ignoring the text, and the utility cannot separate sanitizers", 100 * top_share)
    return {"utility": utility, "chi2": chi_method, "chi2_random": chi_random, "n": len(labels),
            "unparsed": counts.get(UNPARSED, 0), "original_top_share": top_share,
            "counts": counts, "original_counts": original}


# =====================================================================================================
# Coherence 1-5 (appendices A.1.2, C.5)
# =====================================================================================================
COHERENCE_PROMPTS = {"medqa": "coherence_medqa.txt", "wildchat": "coherence_wildchat.txt"}
_RATING = re.compile(r"rating.*?(\d)", re.IGNORECASE)


def parse_rating(reply: str | None) -> int | None:
    """The first "rating ... <digit>" (case-insensitive, within a line) when the digit is 1-5, else None."""
    if not reply:
        return None
    m = _RATING.search(reply)
    if not m:
        return None
    value = int(m.group(1))
    return value if 1 <= value <= 5 else None


def coherence_prompt(document: str, domain: str = "medqa", max_chars: int | None = None) -> str:
    """Prompt C.5.1 (``domain="medqa"``) or C.5.2 (``"wildchat"``) for one document, optionally
    truncated to its first ``max_chars`` characters."""
    if domain not in COHERENCE_PROMPTS:
        raise ValueError(f"domain must be one of {sorted(COHERENCE_PROMPTS)}, got {domain!r}")
    doc = document if max_chars is None else document[:max_chars]
    return load_prompt(COHERENCE_PROMPTS[domain]).replace("{document}", doc)


def coherence(llm: Any, texts: Sequence[str | None], domain: str = "medqa", seed: int = 0,
              max_new_tokens: int = 160, scoring: str = "generate", max_chars: int | None = None,
              progress: bool | None = False) -> dict[str, Any]:
    """Mean 1-5 coherence over the parsable ratings (seed 000's rule), with the counts that did not
    parse (``unparsed``) and the missing texts (``failed``) reported beside it.

    ``scoring="generate"`` (seed 000): the judge writes an explanation and "Rating: r", parsed by
    :func:`parse_rating`. ``"logprob"``: the prompt ends in "Rating:" and the rating is the most
    probable of " 1".." 5" (no explanation; for base models that cannot follow the format)."""
    if scoring not in ("generate", "logprob"):
        raise ValueError("scoring must be 'generate' or 'logprob'")
    lm = _lm(llm)
    todo = [i for i, t in enumerate(texts) if t is not None]
    ratings: list[int | None] = [None] * len(texts)
    if todo and scoring == "logprob":
        if not lm.supports_scoring:
            raise ValueError(f"{lm.backend}:{lm.model_name} cannot score choices; use scoring='generate'")
        prompts = [coherence_prompt(texts[i], domain, max_chars) + "\n\nRating:" for i in todo]
        scores = map_chunks(lambda a, b: lm.score(prompts[a:b], [f" {r}" for r in range(1, 6)]), len(todo),
                            progress=progress, desc="utility: coherence", unit="rec")
        for i, row in zip(todo, scores):
            if all(math.isfinite(x) for x in row):
                ratings[i] = int(np.argmax(row)) + 1
    elif todo:
        prompts = [[{"role": "user", "content": coherence_prompt(texts[i], domain, max_chars)}] for i in todo]
        replies = map_chunks(lambda a, b: lm.generate(prompts[a:b], max_new_tokens=max_new_tokens, temperature=0.0,
                                                      seed=[seed + i for i in todo[a:b]], on_error="none"),
                             len(todo), progress=progress, desc="utility: coherence", unit="rec")
        for i, r in zip(todo, replies):
            ratings[i] = parse_rating(r[0] if r else None)
    scored = [r for r in ratings if r is not None]
    unparsed = len(todo) - len(scored)
    if unparsed:
        logger.warning("coherence: %d of %d ratings unparsed (excluded from the mean, reported)", unparsed, len(todo))
    return {"mean": float(np.mean(scored)) if scored else float("nan"), "n": len(texts), "n_scored": len(scored),
            "unparsed": unparsed, "failed": len(texts) - len(todo), "ratings": ratings, "domain": domain,
            "scoring": scoring, "model": lm.describe()}


# =====================================================================================================
# Classifier utility (SST-2-style sets)
# =====================================================================================================
def classifier_utility(train_texts: Sequence[str | None], train_labels: Sequence[int],
                       test_texts: Sequence[str], test_labels: Sequence[int],
                       clean_train_texts: Sequence[str] | None = None, seed: int = 0,
                       max_features: int = 50000, ngram_range: tuple[int, int] = (1, 2), C: float = 1.0) -> dict[str, Any]:
    """Train TF-IDF + logistic regression on the *sanitized* training texts and test on *clean* texts.

    With ``clean_train_texts`` (the same records before sanitization) the same classifier trained on
    clean text is reported beside it, so the utility drop is visible. A missing sanitized text
    (None) is trained on as an empty string (it keeps its label: a failure must cost utility).
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.pipeline import make_pipeline

    if len(train_texts) != len(train_labels) or len(test_texts) != len(test_labels):
        raise ValueError("texts and labels differ in length")
    if len(set(train_labels)) < 2:
        raise ValueError("the training labels need at least two classes")

    def fit_eval(texts: Sequence[str | None]) -> dict[str, float]:
        model = make_pipeline(
            TfidfVectorizer(max_features=max_features, ngram_range=ngram_range, sublinear_tf=True),
            LogisticRegression(C=C, max_iter=1000, random_state=seed),
        )
        try:
            model.fit([t or "" for t in texts], list(train_labels))
        except ValueError as e:
            if "empty vocabulary" not in str(e):
                raise
            # nothing left to learn from (e.g. "remove all"): the majority-class predictor
            from sklearn.dummy import DummyClassifier

            model = DummyClassifier(strategy="most_frequent").fit([[0]] * len(texts), list(train_labels))
            pred = model.predict([[0]] * len(test_texts))
        else:
            pred = model.predict(list(test_texts))
        return {"accuracy": float(accuracy_score(test_labels, pred)),
                "macro_f1": float(f1_score(test_labels, pred, average="macro"))}

    result: dict[str, Any] = {**fit_eval(train_texts), "n_train": len(train_texts), "n_test": len(test_texts),
                              "failed": sum(1 for t in train_texts if t is None),
                              "model": f"tfidf{ngram_range}+logreg(C={C})"}
    if clean_train_texts is not None:
        if len(clean_train_texts) != len(train_texts):
            raise ValueError("clean_train_texts must align with train_texts")
        clean = fit_eval(clean_train_texts)
        result["clean_accuracy"] = clean["accuracy"]
        result["clean_macro_f1"] = clean["macro_f1"]
    return result


# =====================================================================================================
# One call per task: what `textleak evaluate` and the benchmarks report beside privacy
# =====================================================================================================
TASK_OF_DATASET = {"medqa": "medqa", "wildchat": "wildchat", "sst2": "classification", "ag_news": "classification",
                   "qnli": "classification", "yelp": "classification"}


def conversation_text(user: str | None, response: str | None = None) -> str | None:
    """A conversation as the C.5.2 judge reads it: the (sanitized) user side, then the chatbot's reply."""
    if user is None:
        return None
    return f"User: {user}\nAI: {response}" if response else user


def evaluate_utility(
    task: str,
    originals: Sequence[Mapping[str, Any]],
    sanitized: Sequence[str | None],
    llm: Any = None,
    *,
    coherence_judge: bool = True,
    scoring: str = "auto",
    judge_scoring: str = "generate",
    classifier_test: tuple[Sequence[str], Sequence[int]] | None = None,
    classify_max_chars: int = 5000,
    coherence_max_chars: int | None = None,
    medqa_demos: Sequence[Mapping[str, Any]] | str | None = "default",
    seed: int = 0,
    progress: bool | None = False,
) -> dict[str, Any]:
    """Task utility (and coherence) of ``sanitized`` (aligned with ``originals`` by index); ``progress``
    draws a bar per LLM pass (:mod:`textleak.progress`).

    ``task``: "medqa" (records with question/options/answer_idx; accuracy from the sanitized profile),
    "wildchat" (records with text[/response]; normalised category chi-square against the originals'
    categories, classified by the same model), or "classification" (records with label;
    ``classifier_test`` = clean (texts, labels) to test on). ``scoring`` applies to MedQA answers,
    ``judge_scoring`` to category and coherence judgements ("generate" as in seed 000, or "logprob"
    for base models). Returns ``task_utility`` (the headline number), ``task_metric``, ``coherence``
    (mean 1-5 or None) and the detailed results.
    """
    if len(originals) != len(sanitized):
        raise ValueError(f"{len(sanitized)} sanitized records for {len(originals)} originals")
    task = TASK_OF_DATASET.get(task, task)
    out: dict[str, Any] = {"task": task}
    if task == "medqa":
        if llm is None:
            raise ValueError("MedQA accuracy needs an LLM")
        res = medqa_accuracy(llm, list(sanitized), [r["question"] for r in originals], [r["options"] for r in originals],
                             [r["answer_idx"] for r in originals], demos=medqa_demos, scoring=scoring, seed=seed,
                             progress=progress)
        out.update(task_metric="medqa_accuracy", task_utility=res["accuracy"], medqa=res)
        judged = list(sanitized)
        domain = "medqa"
    elif task == "wildchat":
        if llm is None:
            raise ValueError("the category utility needs an LLM classifier")
        orig = classify_tasks(llm, [r["text"] for r in originals], seed=seed, scoring=judge_scoring,
                              max_chars=classify_max_chars, progress=progress)
        san = classify_tasks(llm, list(sanitized), seed=seed, scoring=judge_scoring, max_chars=classify_max_chars,
                             progress=progress)
        res = category_utility(san["categories"], orig["categories"], seed=seed)
        out.update(task_metric="category_chi2_utility", task_utility=res["utility"], categories=res,
                   unparsed_categories=san["unparsed"], unparsed_original_categories=orig["unparsed"])
        judged = [conversation_text(t, r.get("response")) for t, r in zip(sanitized, originals)]
        domain = "wildchat"
    elif task == "classification":
        if classifier_test is None:
            raise ValueError("classifier utility needs classifier_test=(clean test texts, labels)")
        res = classifier_utility(list(sanitized), [r["label"] for r in originals], classifier_test[0],
                                 classifier_test[1], clean_train_texts=[r["text"] for r in originals], seed=seed)
        out.update(task_metric="classifier_accuracy", task_utility=res["accuracy"], classifier=res)
        judged, domain = [], None
    else:
        raise ValueError(f"unknown task {task!r}: use medqa, wildchat or classification (or a dataset name)")
    out["coherence"] = None
    if coherence_judge and domain is not None:
        coh = coherence(llm, judged, domain=domain, seed=seed, scoring=judge_scoring, max_chars=coherence_max_chars,
                        progress=progress)
        out["coherence"] = None if math.isnan(coh["mean"]) else coh["mean"]
        out["coherence_detail"] = {k: v for k, v in coh.items() if k != "ratings"}
    return out


# =====================================================================================================
# can the utility model measure anything? (the report shows no number when it cannot)
# =====================================================================================================
def utility_validity(task: str, reference: Mapping[str, Any], alpha: float = 0.05) -> dict[str, Any]:
    """Whether a utility model measures anything, from its result on the *unsanitized* records.

    MedQA: the model must beat chance (one of four letters) on the originals, one-sided binomial test
    at ``alpha``, and must not give one letter to 80% of the questions. WildChat: the classifier must
    not put 80% of the originals in one category. A model that fails this reports the same number for
    every sanitizer (a base model answering at chance), which is not a utility measurement.
    """
    from scipy.stats import binomtest

    task = TASK_OF_DATASET.get(task, task)
    if task == "medqa":
        detail = reference["medqa"]
        predictions = [p for p in detail["predictions"] if p is not None]
        n = len(detail["predictions"])
        correct = round(reference["task_utility"] * n)
        p_value = binomtest(correct, n, 1 / len(LETTERS), alternative="greater").pvalue if n else 1.0
        top_share = max((predictions.count(x) for x in LETTERS), default=0) / max(1, len(predictions))
        valid = p_value < alpha and top_share < 0.8
        reason = "" if valid else (f"the utility model answers the unsanitized records at chance ({reference['task_utility']:.2f} "
                                   f"vs 0.25, p={p_value:.2f}; one letter for {top_share:.0%} of the answers)")
        return {"valid": valid, "reason": reason, "reference": reference["task_utility"], "chance": 0.25, "p_value": p_value,
                "top_answer_share": top_share}
    if task == "wildchat":
        top_share = reference["categories"]["original_top_share"]
        valid = top_share < 0.8
        reason = "" if valid else f"the classifier puts {top_share:.0%} of the unsanitized records in one category"
        return {"valid": valid, "reason": reason, "reference": reference["task_utility"], "top_category_share": top_share}
    return {"valid": True, "reason": "", "reference": reference.get("task_utility")}
