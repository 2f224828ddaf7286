"""Linking: BM25 (paper and release variants), the vote, ROUGE-L (equal to rouge-score), dense."""

from __future__ import annotations

import random

import pytest
from rouge_score import rouge_scorer

from textleak.leakage.lexical import lexical_privacy
from textleak.text import lcs_length, rouge_l
from textleak.linkers import make_linker, vote
from textleak.linkers.bm25 import LUCENE_STOPWORDS, BM25Linker, LuceneLikeTokenizer
from textleak.linkers.dense import DenseLinker
from textleak.linkers.rouge import RougeLinker

DOCS = [
    "A 25-year-old woman works as a cook in Oslo and has asthma.",
    "A 60-year-old man is a pilot from Rome with gout.",
    "A 40-year-old teacher from Lima reports chest pain and fever of 38.5 degrees.",
    "",
]


def test_lucene_stopwords_and_tokenizer():
    assert len(LUCENE_STOPWORDS) == 33 and {"the", "a", "with", "will"} <= LUCENE_STOPWORDS
    tok = LuceneLikeTokenizer()
    assert tok(["The patients were running with 38.5 fever and 8,900 cells"]) == [
        ["patient", "were", "run", "38.5", "fever", "8,900", "cell"]]
    assert LuceneLikeTokenizer(stemmer=None, stopwords=None)(["The cats"]) == [["the", "cats"]]


def test_bm25_links_concatenated_query_to_whole_document():
    linker = BM25Linker().fit(DOCS)
    links = linker.link([["She is a cook.", "She lives in Oslo."], ["He is a pilot.", "He has gout."], ["zzz unknown words"]])
    assert [l.index for l in links] == [0, 1, None]
    assert links[0].score > 0 and links[0].ranking[0] == 0
    assert links[2].score == 0.0 and links[2].ranking == []


def test_bm25_on_empty_pool_or_empty_records_links_nothing():
    assert [l.index for l in BM25Linker().fit([]).link([["a cook"]])] == [None]
    assert [l.index for l in BM25Linker().fit(["", "  "]).link([["a cook"]])] == [None]


def test_vote_semantics_of_the_released_code():
    # top-1 lists are always "flat": majority over the pooled ids, ties to the first claim's record
    assert vote([[(2, 5.0)], [(1, 3.0)], [(1, 9.0)]]) == 1
    assert vote([[(2, 5.0)], [(1, 3.0)], [(0, 9.0)]]) == 2
    # non-flat lists keep the ids within 0.95 of their top
    assert vote([[(3, 10.0), (4, 9.6), (5, 1.0)], [(4, 8.0), (3, 1.0)]]) == 4
    assert vote([[(1, 0.0)]]) is None and vote([]) is None


def test_bm25_release_variant_indexes_claims_and_votes():
    claims = [["She is a cook.", "She lives in Oslo."], ["He is a pilot.", "He lives in Rome."], ["Chest pain."], []]
    linker = BM25Linker.release().fit(DOCS, claims)
    assert linker.needs_claims and linker.describe()["index"] == "claims"
    (link,) = linker.link([["He is a pilot.", "He lives in Rome.", "She is a cook."]])
    assert link.index == 1 and link.score == 2.0  # two of three claims voted for record 1
    with pytest.raises(ValueError, match="claims"):
        BM25Linker.release().fit(DOCS)


def test_rouge_l_equals_rouge_score():
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    rng = random.Random(0)
    words = "the patient has a fever cough of 38 days running runs ran pain in chest and left arm".split()
    for _ in range(200):
        a = " ".join(rng.choice(words) for _ in range(rng.randint(0, 25)))
        b = " ".join(rng.choice(words) for _ in range(rng.randint(0, 25)))
        ours, ref = rouge_l(a, b), scorer.score(a, b)["rougeL"]
        assert ours.precision == pytest.approx(ref.precision) and ours.recall == pytest.approx(ref.recall)
        assert ours.fmeasure == pytest.approx(ref.fmeasure)
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4


def test_lexical_privacy_variants():
    original = "She is 25 years old. She is a cook. She lives in Oslo."
    assert lexical_privacy(original, original) == pytest.approx(0.0)
    assert lexical_privacy(original, "") == 1.0 and lexical_privacy(original, None) == 1.0
    # release: the known claim's sentence is removed before ROUGE-L recall
    assert lexical_privacy(original, "Lives in Oslo.", ["She lives in Oslo."], variant="release") == pytest.approx(1.0)
    assert lexical_privacy(original, "Lives in Oslo.", [], variant="release") == pytest.approx(1 - 3 / 13)  # 13 original tokens
    assert lexical_privacy(original, original, ["She lives in Oslo."], variant="release") == pytest.approx(0.0)
    with pytest.raises(ValueError):
        lexical_privacy(original, original, variant="nope")


def test_rouge_linker_and_factory():
    linker = make_linker("rouge").fit(DOCS)
    assert isinstance(linker, RougeLinker)
    assert [l.index for l in linker.link([["a pilot from Rome"], ["teacher Lima chest pain"], ["qqq"]])] == [1, 2, None]
    assert make_linker("bm25-release").describe()["query"] == "vote"
    with pytest.raises(ValueError):
        make_linker("nope")
    with pytest.raises(ValueError):
        BM25Linker(index="passages")


def test_dense_linker_links_paraphrases():
    linker = DenseLinker().fit(DOCS)
    links = linker.link([["The woman prepares food in a restaurant in Norway."], ["An aviator living in Italy."]])
    assert [l.index for l in links] == [0, 1]
    assert all(3 not in l.ranking for l in links)  # an empty record is never a candidate


def test_claim_frame_words_do_not_decide_the_link():
    # PUPA's first 200 requests: "The user mentions X." claims of a word-list request were linked to a 10,000-character
    # jailbreak prompt full of "User", so the identity release scored as private; the frame is not evidence
    docs = ["A game: the User speaks, the user asks, users mention things and the User mentions rules. " * 5,
            "Pick three of these: Cloak, Koala, Bonnet, Cupcake, Chess, Chime.",
            "A recipe for lemon cake with butter and sugar."]
    known = [["The user mentions Koala.", "The user mentions Bonnet.", "The user mentions Cupcake."]]
    assert BM25Linker(drop_frame=False).fit(docs).link(known)[0].index == 0  # the old behaviour
    assert BM25Linker().fit(docs).link(known)[0].index == 1
    # a query made only of frame words keeps them rather than going unlinked
    assert BM25Linker().fit(docs).link([["The user asks the assistant."]])[0].index == 0
