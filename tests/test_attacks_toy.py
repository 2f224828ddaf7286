"""Each attack on a toy vocabulary returns the hand-computed guess."""

from __future__ import annotations

import numpy as np
import pytest

from textleak.attacks import AttackData, bayes_rank, run_attacks
from textleak.attacks import contextual as contextual_mod
from textleak.attacks.asr import exact_match, private_shadow_split, select_targets
from textleak.attacks.baselines import InversionBert, MaskInference
from textleak.dp import build_mechanism
from textleak.word_embeddings import WordEmbeddings


def toy_santext():
    emb = WordEmbeddings(["a", "b", "c"], np.array([[0.0], [1.0], [3.0]]))
    return build_mechanism("santext", emb, [("a", 5), ("b", 3), ("c", 2)], 2.0)


def test_context_free_scores_by_hand():
    m = toy_santext()
    # spec 3.1 worked example: counts a:5 b:0 c:2, y = b -> (Count+1) Pr(b|x') = 1.557, 0.665, 0.343
    words, scores = bayes_rank(m, ["b"], np.array([5.0, 0.0, 2.0]), 1.0, k=3)[0]
    assert words == ["a", "b", "c"]
    np.testing.assert_allclose(scores, [1.557, 0.665, 0.343], atol=1e-3)


def data_for(m, y="b", x="a", shadow=("a a a a a c c",)):
    return AttackData(m, [[x]], [[y]], [(0, 0)], shadow_original=[s.split() for s in shadow], shadow_copies=3)


def test_context_free_attack_bound_and_embedding_inversion_by_hand():
    m = toy_santext()
    r = run_attacks(data_for(m), ["context_free_bayes", "context_free_bound", "embedding_inversion"])
    assert r["asr"] == {"context_free_bayes": 1.0, "embedding_inversion": 0.0}  # a, and y = b itself
    # oracle prior = the attacked original "a" only: (Count) Pr(b|x') = 1 * 0.2595 for a, 0 for the rest -> a
    assert r["bounds"] == {"context_free": 1.0}
    # with no shadow evidence the smoothed prior is flat and the likeliest producer of b is b itself
    r2 = run_attacks(data_for(m, shadow=("z",)), ["context_free_bayes"])
    assert r2["asr"]["context_free_bayes"] == 0.0


def test_smoothing_matters_as_in_the_paper():
    m = toy_santext()
    # no smoothing and no shadow count for the truth: the only counted candidate c wins
    words, _ = bayes_rank(m, ["b"], np.array([0.0, 0.0, 2.0]), 0.0, k=1)[0]
    assert words == ["c"]
    words, _ = bayes_rank(m, ["b"], np.array([0.0, 0.0, 2.0]), 1.0, k=1)[0]
    assert words == ["b"]  # 1 * 0.665 > 3 * 0.114 > 1 * 0.2595


def test_out_of_vocabulary_output_is_its_own_guess():
    m = toy_santext()
    assert bayes_rank(m, ["zzz"], np.zeros(3), 1.0, k=3) == [(["zzz"], [1.0])]


def test_exact_match_not_substring():
    assert exact_match(["an", "a"], ["a", "a"]).tolist() == [False, True]


def test_inversion_token_only_is_the_shadow_majority():
    m = toy_santext()
    data = data_for(m, y="c", x="b", shadow=("a b b c",) * 20)
    votes = {}
    for original, copies in zip(data.shadow_original, data.shadow_sanitized()):
        for toks, _ in copies:
            for o, s in zip(original, toks):
                if s == "c":
                    votes[o] = votes.get(o, 0) + 1
    expected = max(votes, key=votes.get)
    guess = InversionBert(mode="token_only").predict(data)
    assert guess == [expected]


def test_contextual_rerank_uses_score_times_detector(monkeypatch):
    m = toy_santext()

    class StubDetector:
        def __init__(self, *a, **k):
            pass

        def fit(self, firsts, seconds, labels):
            assert set(labels) <= {0, 1} and len(firsts) == len(seconds) == len(labels)
            return [0.0]

        def prob_positive(self, firsts, seconds):
            # the detector strongly prefers candidate c in context
            return np.asarray([0.9 if s.split()[0] == "c" else 0.1 for s in seconds])

    monkeypatch.setattr(contextual_mod, "PairDetector", StubDetector)
    data = data_for(m, y="b", x="c")
    # context-free: a 1.557 > b 0.665 > c 0.343; times h1: 0.156, 0.067, 0.308 -> c
    r = run_attacks(data, ["contextual_bayes"], {"contextual_bayes": {"k": 3, "scorer": "detector"}})
    assert r["asr"]["contextual_bayes"] == 1.0
    # with K = 1 the detector cannot rescue c
    r = run_attacks(data, ["contextual_bayes"], {"contextual_bayes": {"k": 1, "scorer": "detector"}})
    assert r["asr"]["contextual_bayes"] == 0.0


def test_detector_pairs_follow_the_paper_rule():
    m = toy_santext()
    copies = [(["a"], [(["b"], [True])]), (["b"], [(["b"], [True])])]
    firsts, seconds, labels = contextual_mod.detector_pairs(m, copies, np.array([5.0, 0.0, 2.0]), 1.0, None, 0)
    # x1 = a. Truth a: (a, 1), (x2 = b, 0). Truth b: (a, 0), (b, 1). Candidates inserted with spaces.
    assert list(zip(seconds, labels)) == [("a", 1), ("b", 0), ("a", 0), ("b", 1)]


def test_mask_inference_reads_the_model_top1(monkeypatch):
    import torch

    from textleak.attacks import baselines
    from textleak.attacks.models import load_encoder

    tokenizer, model = load_encoder("tiny", "mlm", seed=0)
    with torch.no_grad():
        model.cls.predictions.bias.zero_()
        model.cls.predictions.bias[tokenizer.convert_tokens_to_ids("movie")] = 1e4
    monkeypatch.setattr(baselines, "load_encoder", lambda *a, **k: (tokenizer, model))
    emb = WordEmbeddings(["movie", "film", "book"], np.array([[0.0], [0.5], [3.0]]))
    m = build_mechanism("santext", emb, [("movie", 3), ("film", 2), ("book", 1)], 1.0)
    data = AttackData(m, [["the", "movie", "rocks"], ["a", "book"]], [["the", "film", "rocks"], ["a", "film"]],
                      [(0, 1), (1, 1)])
    attack = MaskInference(model="tiny")
    assert attack.predict(data) == ["movie", "movie"]
    r = run_attacks(data, [attack])
    assert r["asr"]["mask_inference"] == 0.5 and r["asr_changed"]["mask_inference"] == 0.5


def test_inversion_bert_contextual_learns_a_fixed_mapping():
    emb = WordEmbeddings(["x", "y"], np.array([[0.0], [10.0]]))
    m = build_mechanism("santext", emb, [("x", 1), ("y", 1)], 0.01)  # nearly uniform: context is useless, prior is not
    shadow = [["x"] * 4 for _ in range(30)]
    data = AttackData(m, [["y", "x"]], [["y", "y"]], [(0, 0)], shadow_original=shadow, shadow_copies=2)
    attack = InversionBert(model="tiny", epochs=8, lr=5e-3, batch_size=16)
    assert attack.predict(data) == ["x"]  # every shadow original is x


def test_targets_and_split_are_seeded():
    flags = [[True, False, True], [True, True]]
    assert select_targets(flags) == [(0, 0), (0, 2), (1, 0), (1, 1)]
    assert select_targets(flags, 2, seed=1) == select_targets(flags, 2, seed=1)
    priv, shadow = private_shadow_split(10, 0.3, seed=4)
    assert sorted(priv + shadow) == list(range(10)) and len(shadow) == 3
    assert (priv, shadow) == private_shadow_split(10, 0.3, seed=4)


def test_unknown_attack_names_the_choices():
    with pytest.raises(KeyError, match="context_free_bayes"):
        run_attacks(data_for(toy_santext()), ["bogus"])


def _scripted(scores: dict[str, float]):
    from textleak.llm import ScriptedLM

    # log P(candidate | left context): the candidate is the first word of the choice
    # log P(candidate | left context): the candidate is the first word of the choice; no context: -2 for all
    return ScriptedLM(lambda p, i, s: None, scorer=lambda prompt, choice: scores[choice.split()[0]] if prompt or choice[0] != " " else -2.0)


def test_contextual_lm_rerank_by_hand():
    m = toy_santext()
    data = data_for(m, y="b", x="c")
    lm = _scripted({"a": -5.0, "b": -5.0, "c": -1.0})
    # log scores a 0.443, b -0.408, c -1.070; + 1.0 * LM: -4.557, -5.408, -2.070 -> c
    r = run_attacks(data, ["contextual_bayes"], {"contextual_bayes": {"k": 3, "llm": lm, "weight": 1.0}})
    assert r["asr"]["contextual_bayes"] == 1.0
    # weight 0 is the context-free attack (a)
    r = run_attacks(data, ["contextual_bayes"], {"contextual_bayes": {"k": 3, "llm": lm, "weight": 0.0}})
    assert r["asr"]["contextual_bayes"] == 0.0


def test_contextual_lm_weight_is_calibrated_on_the_shadow_set():
    from textleak.attacks.contextual import ContextualBayes
    from textleak.attacks.lm_context import best_weight

    base = [np.log([1.557, 0.665, 0.343])] * 2
    lm = [np.array([-5.0, -5.0, -1.0]), np.array([-1.0, -5.0, -5.0])]
    w, acc = best_weight(base, lm, [2, 0])
    assert w == 0.5 and acc[0.0] == 0.5 and acc[0.5] == 1.0  # the smallest weight that gets both right
    # a misleading language model (it always says "a") on a shadow set whose originals are all c: any
    # positive weight loses shadow targets, so the attack keeps weight 0, the context-free attack (c)
    m = toy_santext()
    data = AttackData(m, [["c"]], [["b"]], [(0, 0)], shadow_original=[["c", "c"]] * 20, shadow_copies=2)
    attack = ContextualBayes(k=3, llm=_scripted({"a": -0.1, "b": -9.0, "c": -9.0}), calibration_targets=30)
    assert attack.predict(data) == ["c"]
    assert attack.calibration["weight"] == 0.0 and attack.calibration["accuracy_by_weight"]["0,0"] == 1.0
    assert attack.calibration["accuracy_by_weight"]["3,0"] < 1.0


def test_contextual_k_bound_calibrates_on_the_attacked_targets():
    m = toy_santext()
    data = data_for(m, y="b", x="c")
    lm = _scripted({"a": -5.0, "b": -5.0, "c": -1.0})
    # oracle prior = counts of the attacked original ("c"): only c has a nonzero score -> c, whatever the LM
    r = run_attacks(data, ["contextual_k_bound"], {"contextual_k_bound": {"k": 3, "llm": lm}})
    assert r["bounds"]["contextual_k"] == 1.0


def test_mask_inference_with_a_causal_lm_takes_the_next_word():
    from textleak.llm import ScriptedLM

    m = toy_santext()
    lm = ScriptedLM(lambda prompt, i, s: " c and more" if prompt.endswith("a") else " b")
    data = AttackData(m, [["a", "c"], ["a"]], [["a", "a"], ["c"]], [(0, 1), (1, 0)])
    attack = MaskInference(llm=lm)
    assert attack.predict(data) == ["c", "b"]  # the first word the model continues with
    assert run_attacks(data, [attack])["asr"]["mask_inference"] == 0.5


def test_inversion_bert_head_starts_as_embedding_inversion():
    """No training epochs: the frozen-encoder head is the nearest original word to y."""
    emb = WordEmbeddings(["x", "y", "z"], np.array([[0.0], [1.0], [10.0]]))
    m = build_mechanism("santext", emb, [("x", 1), ("y", 1), ("z", 1)], 0.01)
    shadow = [["x", "z"] for _ in range(10)]
    data = AttackData(m, [["y", "z"]], [["y", "z"]], [(0, 0), (0, 1)], shadow_original=shadow, shadow_copies=2)
    attack = InversionBert(epochs=0)
    assert attack.predict(data) == ["y", "z"]  # the classes are the vocabulary: each output is nearest to itself
    # a class set without y (fitted on x and z only): y's nearest class is x
    m2 = build_mechanism("santext", emb, [("x", 1), ("z", 1)], 0.01)
    data2 = AttackData(m2, [["x", "z"]], [["x", "z"]], [(0, 0), (0, 1)], shadow_original=shadow, shadow_copies=2)
    data2.private_sanitized = [["y", "z"]]  # an output outside the fitted vocabulary
    assert InversionBert(epochs=0).predict(data2) == ["x", "z"]
