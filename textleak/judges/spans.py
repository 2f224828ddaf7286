"""Text pieces the embedding and lexical judges compare a claim with: sentences, adjacent-sentence
windows and word windows (the sentence splitter, word windows and number extraction are
:mod:`textleak.text`'s)."""

from __future__ import annotations

from textleak.text import split_sentences, word_windows


def document_spans(text: str, window: int = 2, word_window: int = 0, word_stride: int = 4) -> list[tuple[str, str]]:
    """``(span, context)`` pairs: every sentence, every run of ``window`` adjacent sentences, and
    (``word_window > 0``) every ``word_window``-word run inside a sentence. ``context`` is the
    sentence (or sentence run) a span comes from. Empty text has no spans."""
    sentences = split_sentences(text)
    spans = [(s, s) for s in sentences]
    if window > 1 and len(sentences) > 1:
        for k in range(len(sentences) - window + 1):
            joined = " ".join(sentences[k : k + window])
            spans.append((joined, joined))
    if word_window > 0:
        spans += [(w, s) for s in sentences for w in word_windows(s, word_window, word_stride)]
    return spans
