"""Fail toward leakage in linking: the words every claim is framed with must not pick the record.

On PUPA's first 200 requests, word-list requests whose known claims were "The user mentions Koala." linked to
one 10,000-character jailbreak prompt full of "User" (record 178), and their identity release read as private.
End to end, default settings, on those records of the shared PUPA sample and 14 others."""

from textleak.data import load
from textleak.leakage import evaluate_leakage

RECORDS = [178, 50, 130, 185, 186, 192, *range(14)]


def _identity(shared_data, **options):
    texts = list(load("wildchat", data_dir=str(shared_data / "pupa"), split="train")["text"][:200])
    texts = [texts[i] for i in RECORDS]
    return evaluate_leakage(texts, texts, progress=False, use_cache=False, **options)


def test_an_identity_release_of_requests_links_every_record_to_itself(shared_data):
    report = _identity(shared_data)
    assert [r.index for r in report.records if r.known_claims and not r.correct_link] == []
    assert report.semantic_privacy <= 0.05


def test_with_the_frame_words_in_the_queries_the_jailbreak_prompt_took_the_links(shared_data):
    # the old linker, for contrast (measured: 4 of 20 records linked to record 178, privacy 0.238)
    report = _identity(shared_data, linker_options={"drop_frame": False})
    assert sum(r.linked_index == 0 for r in report.records[1:]) >= 2 and report.semantic_privacy > 0.10
