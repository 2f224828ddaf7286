"""Rewrite the pieces of a text that state the same thing as a reference in the reference's words: one
loop for quantities (:func:`textleak.text.quantities.rewrite_units`) and dates (the judges' reader's
view, :func:`textleak.judges.values.reader_view`)."""

from __future__ import annotations

from typing import Callable, Iterable, Protocol, Sequence, TypeVar


class Span(Protocol):
    start: int
    end: int
    text: str


S = TypeVar("S", bound=Span)


def rewrite_as(text: str, found: Iterable[S], references: Sequence[S], same: Callable[[S, S], bool]) -> str:
    """``text`` with each span of ``found`` (in order, not overlapping) for which some reference is
    ``same`` replaced by that reference's text."""
    pieces, last = [], 0
    for span in found:
        match = next((r for r in references if same(span, r)), None)
        if match is not None:
            pieces += [text[last : span.start], match.text]
            last = span.end
    return "".join(pieces) + text[last:] if pieces else text
