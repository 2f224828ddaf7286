"""The span finder splits and encodes each document once (kept across calls), and a document met again
gives the same spans, similarities and candidates as the first time."""

from __future__ import annotations

from textleak.judges import embedding
from textleak.judges.embedding import EmbeddingJudge

DOC = ("A 58-year-old man comes to the emergency room because of fever and a cough productive of rusty sputum for "
       "3 days. He has smoked a pack of cigarettes a day for 30 years. His temperature is 39.4°C and his pulse is 112/min.")
OTHER = "She works as a pilot in Rome. She has gout and takes allopurinol every day since 2019."
CLAIMS = [["He has smoked for 30 years.", "His pulse is 80/min."], ["She is a pilot.", "She has gout."], ["He has a fever."]]


def test_each_document_is_split_once_and_met_again_from_the_cache(monkeypatch):
    embedding._SPANS.clear()
    judge = EmbeddingJudge()
    cold = judge.match(CLAIMS, [DOC, OTHER, DOC], candidates=2)
    calls = []
    real = embedding.split_sentences
    monkeypatch.setattr(embedding, "split_sentences", lambda text, *a, **k: calls.append(text) or real(text, *a, **k))
    warm = judge.match(CLAIMS, [DOC, OTHER, DOC], candidates=2)
    assert calls == []  # both documents came from the cache
    assert warm == cold
    assert cold[0][0]["candidates"][0]["sentence"].startswith("He has smoked") and len(cold[0][0]["candidates"]) == 2
    # another judge with other span settings does not share them
    EmbeddingJudge(word_window=6).match(CLAIMS[:1], [DOC])
    assert calls == [DOC]


def test_candidates_take_each_sentences_best_span_and_its_window_start():
    embedding._SPANS.clear()
    rows = EmbeddingJudge(number_guard=False).match([["a pack of cigarettes a day"]], [DOC], candidates=3)[0]
    (row,) = rows
    spans = next(v for k, v in embedding._SPANS._items.items() if k[1] == DOC)
    assert row["similarity"] == max(c["similarity"] for c in row["candidates"])
    assert [c["similarity"] for c in row["candidates"]] == sorted((c["similarity"] for c in row["candidates"]), reverse=True)
    best = row["candidates"][0]
    assert best["sentence"] == spans.sentences[1] and best["window_start"] is not None and best["window_start"] % 4 == 0
    assert row["span"] in spans.texts
