"""Utility measures with a scripted backend: exact values for MedQA accuracy (log-prob and parsed),
the remove-all baseline, the demo guard, the WildChat category chi-square and its normalisation,
coherence parsing and the classifier utility."""

from __future__ import annotations

import json

import numpy as np
import pytest

from textleak import utility as U
from textleak.data.wildchat import WILDCHAT_CATEGORIES
from textleak.llm import ScriptedLM

OPTS = {"A": "alpha", "B": "beta", "C": "gamma", "D": "delta"}


def _content(prompt) -> str:
    return prompt if isinstance(prompt, str) else prompt[-1]["content"]


def _last_item(prompt) -> str:
    return _content(prompt).rsplit("Question:\n", 1)[1]


# ---- MedQA ------------------------------------------------------------------------------------------
def test_medqa_prompt_layout_is_c61_with_demos_first():
    demos = U.load_medqa_demos()
    prompt = U.medqa_prompt("A 3-year-old has a cough.", "What is the diagnosis?", OPTS, demos)
    assert prompt.startswith("Solve the following medical multiple choice question and answer correctly:\n\nQuestion:\n")
    assert prompt.endswith("Question:\nA 3-year-old has a cough. What is the diagnosis?\n"
                           "Options:\nA. alpha\nB. beta\nC. gamma\nD. delta\n\nAnswer:")
    assert prompt.count("Answer:") == len(demos) + 1
    for d in demos:
        assert f"{d['question']}\nOptions:" in prompt
    empty = U.medqa_prompt("", "What is the diagnosis?", OPTS, ())
    assert empty.endswith("Question:\nWhat is the diagnosis?\nOptions:\nA. alpha\nB. beta\nC. gamma\nD. delta\n\nAnswer:")


@pytest.mark.parametrize("reply,letter", [
    ("C", "C"), (" (B) beta", "B"), ("D. delta", "D"), ("The answer is A.", "A"), ("Answer: c", "C"),
    ("A patient like this needs rest", None), ("I am not sure", None), ("", None), (None, None),
])
def test_parse_answer_letter(reply, letter):
    assert U.parse_answer_letter(reply) == letter


def _records(n=4):
    profiles = [f"Patient {i} has symptom {i}." for i in range(n)]
    questions = [f"What causes symptom {i}?" for i in range(n)]
    return profiles, questions, [OPTS] * n, ["A", "B", "C", "D"][:n]


def test_medqa_accuracy_generate_exact():
    profiles, questions, options, answers = _records()
    replies = {0: "A", 1: "The answer is C", 2: "banana", 3: "D) delta"}

    def responder(prompt, i, seed):
        item = _last_item(prompt)
        return replies[int(item.split("symptom ")[1][0])]

    lm = ScriptedLM(responder)
    res = U.medqa_accuracy(lm, profiles, questions, options, answers)
    assert res["method"] == "generate" and res["n_demos"] == 3
    assert res["predictions"] == ["A", "C", None, "D"]
    assert (res["correct"], res["unparsed"], res["failed"], res["n"]) == (2, 1, 0, 4)
    assert res["accuracy"] == 0.5
    assert all(isinstance(p, list) and p[0]["role"] == "user" for p in lm.calls)


def test_medqa_accuracy_logprob_exact_and_failed_record_counts_wrong():
    profiles, questions, options, answers = _records()
    profiles[3] = None  # the sanitizer failed on this record
    best = {0: " A", 1: " D", 2: " C"}

    def scorer(prompt, choice):
        i = int(_last_item(prompt).split("symptom ")[1][0])
        return 0.0 if choice == best[i] else -5.0

    lm = ScriptedLM(lambda p, i, s: "unused", scorer=scorer)
    res = U.medqa_accuracy(lm, profiles, questions, options, answers)
    assert res["method"] == "logprob"
    assert res["predictions"] == ["A", "D", "C", None]
    assert (res["correct"], res["failed"], res["unparsed"]) == (2, 1, 0)
    assert res["accuracy"] == 0.5
    assert lm.calls == []  # no generation when scoring is possible


def test_medqa_logprob_ties_go_to_first_letter_and_forced_logprob_needs_scoring():
    profiles, questions, options, answers = _records(2)
    lm = ScriptedLM(lambda p, i, s: "x", scorer=lambda p, c: -1.0)
    assert U.medqa_accuracy(lm, profiles, questions, options, answers)["predictions"] == ["A", "A"]
    with pytest.raises(ValueError, match="cannot score"):
        U.medqa_accuracy(ScriptedLM(lambda p, i, s: "A"), profiles, questions, options, answers, scoring="logprob")


def test_remove_all_baseline_drops_the_profile():
    profiles, questions, options, answers = _records(2)
    seen = []

    def responder(prompt, i, seed):
        seen.append(_last_item(prompt))
        return "A"

    res = U.medqa_remove_all_baseline(ScriptedLM(responder), questions, options, answers, demos=None)
    assert res["accuracy"] == 0.5 and res["n_demos"] == 0
    assert seen[0].startswith("What causes symptom 0?\nOptions:")
    assert all("Patient" not in s for s in seen)


def test_demos_from_the_evaluated_set_are_refused():
    profiles, questions, options, answers = _records(2)
    leaking = [{"profile": profiles[0], "question": questions[0], "options": OPTS, "answer_idx": "A"}]
    with pytest.raises(ValueError, match="demos must never come from the evaluated set"):
        U.medqa_accuracy(ScriptedLM(lambda p, i, s: "A"), profiles, questions, options, answers, demos=leaking)


def test_shipped_demos_are_not_from_medqa_samples(shared_data):
    demo_questions = {d["profile"] + " " + d["question"] for d in U.load_medqa_demos()}
    with open(shared_data / "medqa" / "sampled_50.jsonl", encoding="utf-8") as f:
        vignettes = [json.loads(line)["question"] for line in f if line.strip()]
    for d in U.load_medqa_demos():
        assert all(d["profile"][:60] not in v for v in vignettes)
    assert len(demo_questions) == 3


# ---- WildChat categories ----------------------------------------------------------------------------
@pytest.mark.parametrize("reply,expected", [
    ("translation", "translation"),
    ("**Task**: code editing and debugging. Confidence: high", "code editing and debugging"),
    ('{"task": "summarization", "confidence": "translation"}', "summarization"),
    ("Generating communications", "generating communications (email, text messages, etc.)"),
    ("story and script generation", "story and script generation"),
    ("banana bread", None),
    ("no idea at all", None),  # 1 of 4 words of "brainstorming and generating ideas": below min_recall
    ("it is about the user", None),  # 2 of 8 tokens of "back-and-forth role-playing with the user"
    ("", None),
])
def test_parse_category(reply, expected):
    assert U.parse_category(reply) == expected


def test_parse_category_released_code_rule():
    assert U.parse_category("no idea at all", min_recall=0.0) == "brainstorming and generating ideas"


def test_classify_tasks_counts_unparsed_and_missing():
    replies = iter(["translation", "no idea at all", "Information retrieval"])
    lm = ScriptedLM(lambda p, i, s: next(replies))
    res = U.classify_tasks(lm, ["hola", "???", None, "who won?"])
    assert res["categories"] == ["translation", U.UNPARSED, U.UNPARSED, "information retrieval"]
    assert (res["unparsed"], res["failed"]) == (2, 1)
    prompt = lm.calls[0][0]["content"]
    assert prompt.startswith("Read the following conversation between a user and an AI chatbot.")
    assert prompt.endswith("Conversation:\nhola\n\nAnswer:")
    assert all(f"- {c}\n" in prompt for c in WILDCHAT_CATEGORIES)


def test_classification_prompt_truncates_to_5000_chars():
    assert U.classification_prompt("§" * 6000).count("§") == 5000


def test_chi_square_exact_and_missing_categories():
    # [[5, 5], [4, 6]] (original rescaled to 10): chi2 = 20/99 without continuity correction
    assert U.chi_square_distance({"a": 5, "b": 5}, {"a": 2, "b": 3}) == pytest.approx(20 / 99)
    # the released code's default (Yates) shrinks this 2-category difference to 0
    assert U.chi_square_distance({"a": 5, "b": 5}, {"a": 2, "b": 3}, correction=True) == 0.0
    # a category only the sanitized set has, and one only the original has: both kept
    d = U.chi_square_distance({"a": 4, "c": 4}, {"a": 4, "b": 4})
    assert d == pytest.approx(8.0)  # [[4,0,4],[4,4,0]]: E=[4,2,2]: 0 + 2*(2^2/2) + 2*(2^2/2) = 8
    assert U.chi_square_distance({"a": 3, "z": 0}, {"a": 7, "y": 0}) == 0.0
    with pytest.raises(ValueError):
        U.chi_square_distance({"a": 0}, {"a": 3})


def _chi2_by_hand(a: np.ndarray, b: np.ndarray) -> float:
    b = b * a.sum() / b.sum()
    keep = (a + b) > 0
    table = np.vstack([a[keep], b[keep]])
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
    return float(((table - expected) ** 2 / expected).sum())


def test_random_baseline_is_seeded_uniform_draws():
    cats = WILDCHAT_CATEGORIES
    original = {c: 0 for c in cats}
    original.update({cats[0]: 6, cats[6]: 3, cats[19]: 1})
    got = U.random_category_chi_square(original, n_records=10, n_draws=1, seed=5)
    draw = np.random.default_rng(5).integers(0, len(cats), size=10)
    counts = np.bincount(draw, minlength=len(cats)).astype(float)
    assert got == pytest.approx(_chi2_by_hand(counts, np.array([original[c] for c in cats], float)))
    assert U.random_category_chi_square(original, 10, seed=5) == U.random_category_chi_square(original, 10, seed=5)
    assert U.random_category_chi_square(original, 10, seed=5) != U.random_category_chi_square(original, 10, seed=6)


def test_category_utility_normalisation():
    cats = WILDCHAT_CATEGORIES
    original = [cats[0]] * 6 + [cats[6]] * 3 + [cats[19]]
    same = U.category_utility(original, original)
    assert same["utility"] == 1.0 and same["chi2"] == 0.0 and same["chi2_random"] > 0
    assert same["original_top_share"] == 0.6
    collapsed = U.category_utility([cats[10]] * 10, original)  # a category the original never has
    assert collapsed["chi2"] > collapsed["chi2_random"] and collapsed["utility"] == 0.0
    close = U.category_utility([cats[0]] * 5 + [cats[6]] * 4 + [cats[19]], original)
    assert close["utility"] == pytest.approx(1 - close["chi2"] / close["chi2_random"])
    assert 0.0 < close["utility"] < 1.0
    unparsed = U.category_utility([cats[0]] * 6 + [cats[6]] * 3 + [U.UNPARSED], original)
    assert unparsed["unparsed"] == 1 and unparsed["utility"] < 1.0
    with pytest.raises(ValueError, match="not a known category"):
        U.category_counts(["poetry"])


# ---- coherence --------------------------------------------------------------------------------------
@pytest.mark.parametrize("reply,rating", [
    ("Explanation: clear.\nRating: 4", 4), ("RATING - 5/5", 5), ("Rating: 7", None), ("Rating: 0", None),
    ("looks fine, I'd say 3", None), ("Rating:\n2", None), (None, None),
])
def test_parse_rating(reply, rating):
    assert U.parse_rating(reply) == rating


def test_coherence_mean_over_parsable_with_counts():
    replies = iter(["Explanation: ok.\nRating: 4", "Rating: 2", "no score", "Rating: 9"])
    lm = ScriptedLM(lambda p, i, s: next(replies))
    res = U.coherence(lm, ["doc one", "doc two", "doc three", "doc four", None], domain="wildchat")
    assert res["ratings"] == [4, 2, None, None, None]
    assert (res["mean"], res["n_scored"], res["unparsed"], res["failed"]) == (3.0, 2, 2, 1)
    prompt = lm.calls[0][0]["content"]
    assert prompt.startswith("Your task is to evaluate the quality of synthetic conversations")
    assert prompt.endswith("Conversation: doc one")
    assert U.coherence_prompt("X", "medqa").startswith("You are provided with a concise medical case summary.")
    with pytest.raises(ValueError, match="domain"):
        U.coherence_prompt("X", "legal")


# ---- classifier utility -----------------------------------------------------------------------------
TRAIN = ["good great fun", "great good film", "lovely good", "bad awful dull", "awful bad plot", "dull bad"]
LABELS = [1, 1, 1, 0, 0, 0]
TEST = ["good fun", "bad plot", "great lovely", "awful dull"]
TEST_LABELS = [1, 0, 1, 0]


def test_classifier_utility_clean_vs_sanitized():
    res = U.classifier_utility(TRAIN, LABELS, TEST, TEST_LABELS, clean_train_texts=TRAIN)
    assert res["accuracy"] == 1.0 and res["clean_accuracy"] == 1.0 and res["macro_f1"] == 1.0
    # a sanitizer that swapped every sentiment word for a placeholder leaves nothing to learn from
    masked = ["[MASK] [MASK] fun", "[MASK] [MASK] film", "[MASK] [MASK]", "[MASK] [MASK] [MASK]", "[MASK] [MASK] plot", "[MASK] [MASK]"]
    res = U.classifier_utility(masked, LABELS, TEST, TEST_LABELS, clean_train_texts=TRAIN, seed=1)
    assert res["clean_accuracy"] == 1.0
    assert res["accuracy"] == 0.75  # only "fun"/"plot" survive: "good fun", "bad plot" right; the rest default
    removed = U.classifier_utility([None] * 6, LABELS, TEST, TEST_LABELS)
    assert removed["accuracy"] == 0.5 and removed["failed"] == 6  # majority-class predictor


def test_classifier_utility_is_seeded_and_validates():
    a = U.classifier_utility(TRAIN, LABELS, TEST, TEST_LABELS, seed=3)
    b = U.classifier_utility(TRAIN, LABELS, TEST, TEST_LABELS, seed=3)
    assert a == b
    with pytest.raises(ValueError, match="two classes"):
        U.classifier_utility(TRAIN, [1] * 6, TEST, TEST_LABELS)


# ---- scoring variants and the per-task entry point ---------------------------------------------------
def test_classify_and_coherence_by_logprob():
    def scorer(prompt, choice):
        if "Rating:" in prompt[-10:]:
            return 0.0 if choice == " 4" else -3.0
        return 0.0 if choice == " translation" else -2.0

    lm = ScriptedLM(lambda p, i, s: "unused", scorer=scorer)
    assert U.classify_tasks(lm, ["hola", None], scoring="logprob")["categories"] == ["translation", U.UNPARSED]
    res = U.coherence(lm, ["a", "b"], scoring="logprob")
    assert res["ratings"] == [4, 4] and res["mean"] == 4.0 and lm.calls == []
    with pytest.raises(ValueError, match="cannot score"):
        U.coherence(ScriptedLM(lambda p, i, s: "x"), ["a"], scoring="logprob")


def test_evaluate_utility_medqa_and_wildchat():
    originals = [{"text": f"Patient {i} has symptom {i}.", "question": f"What causes symptom {i}?", "options": OPTS,
                  "answer_idx": "AB"[i]} for i in range(2)]

    def responder(prompt, i, seed):
        content = _content(prompt)
        return "Rating: 3" if "Medical Profile:" in content else "A"

    res = U.evaluate_utility("medqa", originals, ["Patient 0 has symptom 0.", ""], ScriptedLM(responder))
    assert (res["task_metric"], res["task_utility"], res["coherence"]) == ("medqa_accuracy", 0.5, 3.0)

    chats = [{"text": "translate hola", "response": "hello"}, {"text": "summarize this memo", "response": "ok"}]

    def chat_responder(prompt, i, seed):
        content = _content(prompt)
        if content.startswith("Your task is to evaluate"):
            assert "\nAI: " in content
            return "Rating: 5"
        conv = content.split("Conversation:\n")[1]
        if "[REDACTED]" in conv:
            return "no clue"
        return "translation" if "translate" in conv else "summarization"

    same = U.evaluate_utility("wildchat", chats, ["translate hi", "summarize it"], ScriptedLM(chat_responder))
    assert same["task_utility"] == 1.0 and same["coherence"] == 5.0
    swapped = U.evaluate_utility("wildchat", chats, ["[REDACTED]", "translate"], ScriptedLM(chat_responder))
    assert swapped["categories"]["counts"]["translation"] == 1 and swapped["unparsed_categories"] == 1
    assert swapped["task_utility"] < 1.0


def test_evaluate_utility_classification():
    originals = [{"text": t, "label": y} for t, y in zip(TRAIN, LABELS)]
    res = U.evaluate_utility("sst2", originals, TRAIN, classifier_test=(TEST, TEST_LABELS))
    assert (res["task"], res["task_utility"], res["coherence"]) == ("classification", 1.0, None)
    with pytest.raises(ValueError, match="classifier_test"):
        U.evaluate_utility("sst2", originals, TRAIN)
