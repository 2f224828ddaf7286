"""The LLM judge: answer parsing, vote aggregation, retries, the exact majority-vote distribution, and
the log-probability mode, all against ScriptedLM (offline, exact)."""

import itertools
import math
import re

import numpy as np
import pytest

from textleak.judges import make_judge
from textleak.judges.llm import LLMJudge, majority_vote, majority_vote_distribution, parse_ratings
from textleak.judges.llm import LABEL_CHOICES, build_logprob_prompt, build_messages, label_probabilities
from textleak.text.seeds import derive_seed
from textleak.llm import ScriptedLM


# ---- parsing -------------------------------------------------------------------------------------
def test_parse_numbered_ratings_any_order_and_coercion():
    text = "- Explanation: x\n- Claim 2 Similarity Rating: 3 (Unsupported)\n- Claim 1 similarity rating: 2\nClaim 3 Similarity Rating: 7\nClaim 9 Similarity Rating: 1"
    # claim 3's out-of-range 7 is coerced to 1 (max leakage); claim 9 is outside the chunk
    assert parse_ratings(text, 4) == [2, 3, 1, None]


def test_parse_first_match_wins_and_markdown_is_stripped():
    assert parse_ratings("**Claim 1 Similarity Rating:** 2\nClaim 1 Similarity Rating: 3", 1) == [2]
    bold = "- Explanation: a rating of 1 fits.\n**Claim 1 Similarity Rating:** 2\n**Claim 2 Similarity Rating:** 3"
    assert parse_ratings(bold, 2) == [2, 3]
    # the released code's cascade: (a) and (b) miss, (c) finds 3 "Rating" digits for 2 claims
    assert parse_ratings(bold, 2, strip_markdown=False) == [None, None]


def test_parse_bare_and_loose_need_exact_count():
    assert parse_ratings("Claim Similarity Rating: 1\nClaim Similarity Rating: 3", 2) == [1, 3]
    assert parse_ratings("Claim Similarity Rating: 1", 2) == [None, None]  # (b) count mismatch, (c) finds 1 != 2
    assert parse_ratings("Rating -> 2. Rating = 3", 2) == [2, 3]  # (c)
    assert parse_ratings("Rating: 0", 1) == [1]  # coerced
    assert parse_ratings("I think they are similar.", 2) == [None, None]
    assert parse_ratings(None, 3) == [None, None, None]


def test_majority_vote_ties_go_to_first_sample():
    assert majority_vote([3, 1, 1]) == 1
    assert majority_vote([2, 3, 1]) == 2
    assert majority_vote([3, 2]) == 3
    with pytest.raises(ValueError):
        majority_vote([])


# ---- exact vote distribution -----------------------------------------------------------------------
def test_vote_distribution_hand_computed():
    dist = majority_vote_distribution([0.5, 0.3, 0.2], 3)
    # P(1) = P(>=2 ones) + P(all distinct, first = 1) = 0.5 + 0.5 * (2 * 0.3 * 0.2) = 0.56
    # P(2) = 3*0.09*0.7 + 0.027 + 0.3 * (2 * 0.5 * 0.2) = 0.276 ; P(3) = 0.104 + 0.06 = 0.164
    assert dist[1] == pytest.approx(0.56)
    assert dist[2] == pytest.approx(0.276)
    assert dist[3] == pytest.approx(0.164)
    assert majority_vote_distribution([0.5, 0.3, 0.2], 1) == pytest.approx({1: 0.5, 2: 0.3, 3: 0.2})
    assert majority_vote_distribution([0.0, 1.0, 0.0], 5) == pytest.approx({1: 0.0, 2: 1.0, 3: 0.0})


@pytest.mark.parametrize("p,n", [([0.5, 0.3, 0.2], 3), ([0.2, 0.45, 0.35], 4), ([0.1, 0.3, 0.6], 5)])
def test_vote_distribution_matches_monte_carlo(p, n):
    rng = np.random.default_rng(1234)
    samples = rng.choice([1, 2, 3], size=(100_000, n), p=p)
    counts = {1: 0, 2: 0, 3: 0}
    for row in samples.tolist():
        counts[majority_vote(row)] += 1
    exact = majority_vote_distribution(p, n)
    for r in (1, 2, 3):
        assert counts[r] / len(samples) == pytest.approx(exact[r], abs=0.006)
    assert sum(exact.values()) == pytest.approx(1.0)


def test_vote_distribution_rejects_bad_input():
    with pytest.raises(ValueError):
        majority_vote_distribution([0.5, 0.5], 3)
    with pytest.raises(ValueError):
        majority_vote_distribution([0.5, 0.3, 0.3], 3)
    with pytest.raises(ValueError):
        majority_vote_distribution([0.5, 0.3, 0.2], 0)


def test_label_probabilities_softmax():
    p = label_probabilities([math.log(0.2), math.log(0.2), math.log(0.6)])
    assert p == pytest.approx([0.2, 0.2, 0.6])
    assert label_probabilities([-math.inf, -math.inf, -math.inf]) is None
    assert label_probabilities([0.0, -math.inf, -math.inf]) == pytest.approx([1.0, 0.0, 0.0])


# ---- prompts --------------------------------------------------------------------------------------
def _query_claims(prompt):
    return re.findall(r"- Claim (\d+): (.*)", prompt[-1]["content"])


def test_prompt_is_chat_with_demos_as_turns():
    msgs = build_messages(["c1", "c2"], "the doc", "medqa")
    roles = [m["role"] for m in msgs]
    assert roles == ["user", "assistant"] * 3 + ["user"]
    assert msgs[0]["content"].startswith("**Task**:") and "**Rubric**:" in msgs[0]["content"]
    assert "[INST]" not in "".join(m["content"] for m in msgs)
    assert msgs[1]["content"].startswith("**Output**:") and "Claim 1 Similarity Rating: 2 (Different but Similar Information)" in msgs[1]["content"]
    assert _query_claims(msgs) == [("1", "c1"), ("2", "c2")]
    assert msgs[-1]["content"].endswith("Original text: the doc")
    assert [m["role"] for m in build_messages(["c"], "d", "wildchat")] == ["user", "assistant"] * 4 + ["user"]
    with pytest.raises(ValueError):
        build_messages(["c"], "d", "legal")


def test_logprob_prompt_and_choices_differ_only_in_the_rating():
    msgs = build_logprob_prompt("claim", "doc")
    assert msgs[-1]["role"] == "user" and _query_claims(msgs) == [("1", "claim")]
    assert "Explanation" not in "".join(m["content"] for m in msgs)  # rating-only demos in this mode
    assert LABEL_CHOICES == tuple(f"**Output**:\n- Claim 1 Similarity Rating: {r}" for r in (1, 2, 3))


# ---- the sampled judge --------------------------------------------------------------------------------
def answer_all(rating_for):
    """A responder that rates every claim of the query with ``rating_for(claim, sample, seed)``."""

    def respond(prompt, i, seed):
        return "**Output**:\n" + "\n".join(f"- Explanation: e\n- Claim {k} Similarity Rating: {rating_for(c, i, seed)}" for k, c in _query_claims(prompt))

    return respond


def test_sampled_judge_chunks_votes_and_scores():
    lm = ScriptedLM(answer_all(lambda c, i, s: {"same": 1, "near": 2}.get(c.split()[0], 3) if i < 2 else 3))
    judge = LLMJudge(lm, claims_per_prompt=10)
    claims = [[f"same {k}" for k in range(12)] + ["near x", "other y"], ["near z"]]
    out = judge.rate(claims, ["doc a", "doc b"], seeds=[7, 8])
    assert len(lm.calls) == 3  # doc a: 10 + 4 claims, doc b: 1 claim
    assert [len(_query_claims(p)) for p in lm.calls] == [10, 4, 1]
    assert _query_claims(lm.calls[1])[0] == ("1", "same 10")  # numbering restarts per chunk
    assert [r.rating for r in out[0]] == [1] * 12 + [2, 3]
    assert out[0][0].detail["votes"] == [1, 1, 3] and out[0][0].score == 0.0
    assert out[0][12].score == 0.5 and out[1][0].rating == 2


def test_per_pair_seeds_are_derived_from_the_seeds_argument():
    seen = []
    lm = ScriptedLM(answer_all(lambda c, i, s: seen.append((c, s)) or 1))
    LLMJudge(lm, n=1).rate([["a"], ["b"]], ["d1", "d2"], seeds=[5, 9])
    assert seen == [("a", derive_seed(5, 0, 0, bits=31)), ("b", derive_seed(9, 0, 0, bits=31))]
    assert derive_seed(5, 0, 0, bits=31) != derive_seed(9, 0, 0, bits=31) != derive_seed(5, 0, 1, bits=31)


def test_unparsed_claims_are_retried_then_reported_never_scored():
    def respond(prompt, i, seed):
        lines = []
        for k, c in _query_claims(prompt):
            if c == "hard" and seed == derive_seed(0, 0, 0, bits=31):
                continue  # the first attempt skips "hard"
            if c != "never":
                lines.append(f"- Claim {k} Similarity Rating: 2")
        return "\n".join(lines) or "no idea"

    lm = ScriptedLM(respond)
    out = LLMJudge(lm, max_retries=2).rate([["easy", "hard", "never"]], ["doc"], seeds=[0])[0]
    assert out[0].rating == 2 and out[0].status == "ok"
    assert out[1].rating == 2 and out[1].detail["votes"] == [2, 2, 2]  # filled in by the retry
    assert out[2].status == "unparsed" and out[2].rating is None and out[2].score is None
    assert len(lm.calls) == 3  # first attempt + 2 retries (the last one only for "never")
    assert [c for _, c in _query_claims(lm.calls[-1])] == ["never"]


def test_failed_backend_answers_count_as_unparsed():
    out = LLMJudge(ScriptedLM(lambda p, i, s: None), max_retries=1).rate([["a"]], ["doc"])[0]
    assert out[0].status == "unparsed" and out[0].score is None


def test_empty_document_rates_3_without_calls():
    lm = ScriptedLM(lambda p, i, s: "x")
    out = LLMJudge(lm).rate([["a", "b"], []], ["  ", "doc"])
    assert [r.rating for r in out[0]] == [3, 3] and out[1] == [] and lm.calls == []


def test_bad_input_is_named():
    judge = LLMJudge(ScriptedLM(lambda p, i, s: "x"))
    with pytest.raises(ValueError, match="2 claim lists for 1 documents"):
        judge.rate([["a"], ["b"]], ["d"])
    with pytest.raises(TypeError, match="document 0"):
        judge.rate([["a"]], [None])
    with pytest.raises(ValueError):
        LLMJudge("embedded", mode="vote")


# ---- log-probability mode ------------------------------------------------------------------------------
def test_logprob_judge_exact_distribution():
    probs = {"leaky": [0.5, 0.3, 0.2], "safe": [0.1, 0.3, 0.6]}
    scored = []

    def scorer(prompt, choice):
        claim = re.search(r"- Claim 1: (.*)", prompt[-1]["content"]).group(1)
        scored.append((claim, choice[-1]))
        return math.log(0.25) + math.log(probs[claim][int(choice[-1]) - 1])  # shared part cancels

    lm = ScriptedLM(lambda p, i, s: None, scorer=scorer)
    out = LLMJudge(lm, mode="logprob", n=3).rate([["leaky", "safe"]], ["doc"])[0]
    assert scored == [(c, ch) for c in ("leaky", "safe") for ch in "123"]  # one scoring prompt per claim
    assert out[0].rating == 1
    assert out[0].score == pytest.approx(0.276 * 0.5 + 0.164 * 1.0)
    assert out[0].detail["vote_p"] == pytest.approx({"1": 0.56, "2": 0.276, "3": 0.164})
    assert out[0].detail["label_p"] == pytest.approx({"1": 0.5, "2": 0.3, "3": 0.2})
    safe = majority_vote_distribution([0.1, 0.3, 0.6], 3)
    assert out[1].rating == 3 and out[1].score == pytest.approx(0.5 * safe[2] + safe[3])
    assert lm.calls == []  # nothing generated


def test_logprob_needs_scoring_backend():
    with pytest.raises(ValueError, match="cannot"):
        LLMJudge(ScriptedLM(lambda p, i, s: "x"), mode="logprob").rate([["a"]], ["doc"])


def test_make_judge_and_describe():
    lm = ScriptedLM(lambda p, i, s: "x")
    judge = make_judge("llm", llm=lm, mode="logprob", n=5, domain="wildchat")
    d = judge.describe()
    assert (d["name"], d["mode"], d["n"], d["domain"], d["llm"]["backend"]) == ("llm", "logprob", 5, "wildchat", "scripted")
    assert make_judge("llm").llm == "embedded"  # lazy: nothing loaded yet
    assert make_judge().describe()["name"] == "nli"  # the offline default
    assert make_judge("lexical").describe()["name"] == "lexical"
    with pytest.raises(ValueError, match="unknown judge"):
        make_judge("oracle")
    with pytest.raises(ValueError):
        make_judge("embedding", llm="embedded")


# ---- the real embedded model (slow) ---------------------------------------------------------------
@pytest.mark.slow
def test_logprob_judge_on_embedded_gemma_equals_next_token_distribution(tmp_path):
    """Scoring the three whole answers must give the model's next-token distribution over the digits
    right after "Rating: " (the shared part cancels), checked against a direct forward pass."""
    import torch

    from textleak.cache import DiskCache
    from textleak.llm import load_llm

    lm = load_llm("embedded")
    lm.cache = DiskCache("llm", root=tmp_path)
    claim, document = "She is 31 years old.", "A 31-year-old woman has a swollen left calf."
    rated = LLMJudge(lm, mode="logprob", n=3).rate([[claim]], [document])[0][0]
    assert rated.status == "ok" and 0.0 <= rated.score <= 1.0
    label_p = [rated.detail["label_p"][r] for r in "123"]
    assert sum(label_p) == pytest.approx(1.0)
    assert rated.detail["vote_p"] == pytest.approx({str(k): v for k, v in majority_vote_distribution(label_p, 3).items()})

    text, add_special = lm.render(build_logprob_prompt(claim, document))
    prefix = lm._encode_text(text + "**Output**:\n- Claim 1 Similarity Rating:", add_special)
    digit_ids = []
    for r in "123":
        joint = lm._encode_text(text + LABEL_CHOICES[int(r) - 1], add_special)
        assert joint[: len(prefix)] == prefix  # the digit (with its space) is the only difference
        digit_ids.append(joint[len(prefix):])
    assert all(len(d) == len(digit_ids[0]) for d in digit_ids)
    with torch.inference_mode():
        ids = torch.tensor([prefix + digit_ids[0][:-1]])
        logits = lm.model(ids).logits[0, -1].float()
    direct = torch.softmax(logits[[d[-1] for d in digit_ids]], dim=0).tolist()
    assert label_p == pytest.approx(direct, abs=1e-3)
