"""Entity control codes (seed 004, section 2.1): the private values of a document, grouped by type.

A code renders as one ``TYPE: v1, v2`` line per entity type, types in order of first occurrence in
the document, values sorted and de-duplicated::

    CODE: 41872/03
    PERSON: Mr Arvid Kellerman, Ms Halina Drewno

Codes come from TAB-style entity annotations (DIRECT identifiers only by default, as in the paper;
``identifier_types=("DIRECT", "QUASI")`` as its appendix option), from Presidio when no annotation
exists (seed 004's "private entity unknown" setting), or from MIMIC-style de-identification markers
(``[**Hospital 18**]``). The released code never handles MISC (its parser reads "MISE"); here every
type, MISC included, is a first-class line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

DEFAULT_IDENTIFIER_TYPES = ("DIRECT",)
_LINE = re.compile(r"^([A-Z][A-Z0-9_]*):\s*(.*)$")


@dataclass(frozen=True)
class ControlCode:
    """Ordered ``(TYPE, values)`` entries; values are kept as a tuple, so a value with a comma is never split."""

    entries: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> "ControlCode":
        """Group ``(type, value)`` pairs: types in first-occurrence order, values sorted and de-duplicated."""
        grouped: dict[str, set[str]] = {}
        for etype, value in pairs:
            value = " ".join(str(value).split())
            if etype and value:
                grouped.setdefault(str(etype).upper(), set()).add(value)
        return cls(tuple((t, tuple(sorted(vs))) for t, vs in grouped.items()))

    @classmethod
    def parse(cls, text: str) -> "ControlCode":
        """Read a rendered code back (values split on ", "; a value containing ", " cannot round-trip)."""
        pairs = []
        for line in text.splitlines():
            m = _LINE.match(line.strip())
            if m:
                pairs += [(m.group(1), v.strip()) for v in m.group(2).split(", ") if v.strip()]
        return cls.from_pairs(pairs)

    @property
    def types(self) -> list[str]:
        return [t for t, _ in self.entries]

    def values(self, types: Sequence[str] | None = None) -> list[str]:
        """All values (of the given types), in rendering order."""
        return [v for t, vs in self.entries if types is None or t in types for v in vs]

    def render(self) -> str:
        return "\n".join(f"{t}: {', '.join(vs)}" for t, vs in self.entries)

    def __str__(self) -> str:
        return self.render()

    def __bool__(self) -> bool:
        return bool(self.entries)


def select_mentions(mentions: Sequence[dict], identifier_types: Sequence[str] = DEFAULT_IDENTIFIER_TYPES) -> list[dict]:
    """The mentions that are private under ``identifier_types``, with a type and a non-empty span."""
    wanted = {t.upper() for t in identifier_types}
    return [
        m for m in mentions
        if str(m.get("identifier_type", "")).upper() in wanted and m.get("entity_type") and str(m.get("span_text", "")).strip()
    ]


def code_from_mentions(mentions: Sequence[dict], identifier_types: Sequence[str] = DEFAULT_IDENTIFIER_TYPES) -> ControlCode:
    """The control code of a document from its TAB-style mentions (types ordered by first offset)."""
    chosen = sorted(select_mentions(mentions, identifier_types), key=lambda m: (m.get("start_offset", 0), m.get("end_offset", 0)))
    return ControlCode.from_pairs((m["entity_type"], m["span_text"]) for m in chosen)


def private_spans(mentions: Sequence[dict], identifier_types: Sequence[str] = DEFAULT_IDENTIFIER_TYPES) -> list[tuple[int, int]]:
    """Character spans of the private mentions (for the private-token mask of prefix tuning)."""
    return sorted((int(m["start_offset"]), int(m["end_offset"])) for m in select_mentions(mentions, identifier_types))


# ---- entity unknown: Presidio ------------------------------------------------------------------

def presidio_mentions(texts: Sequence[str], engine: Any = None) -> list[list[dict]]:
    """TAB-style mentions detected by Presidio (``textleak.sanitize.presidio.PresidioEngine``), all DIRECT.

    Presidio types map to TAB types as in ``textleak.data.presidio_synth.PRESIDIO_TO_TAB``; anything
    else becomes MISC (the released code's "MISE" label, which it then never parses).
    """
    from textleak.data.presidio_synth import PRESIDIO_TO_TAB
    from textleak.sanitize.presidio import PresidioEngine

    engine = engine or PresidioEngine()
    out = []
    for text, spans in zip(texts, engine.analyze(list(texts))):
        out.append(
            [
                {
                    "entity_type": PRESIDIO_TO_TAB.get(s.entity_type, ("MISC", "DIRECT"))[0],
                    "start_offset": s.start,
                    "end_offset": s.end,
                    "span_text": text[s.start:s.end],
                    "identifier_type": "DIRECT",
                    "entity_id": "",
                    "confidential_status": "",
                }
                for s in sorted(spans, key=lambda s: (s.start, s.end))
            ]
        )
    return out


# ---- MIMIC-III de-identification markers -------------------------------------------------------

_MARKER = re.compile(r"\[\*\*(.*?)\*\*\]")


def marker_type(content: str) -> str:
    """The type of a MIMIC marker's content: its words without numbers or parentheses, upper-cased
    (``Hospital 18`` -> HOSPITAL, ``Known lastname 1234`` -> KNOWN_LASTNAME); bare dates -> DATE."""
    words = re.sub(r"\([^)]*\)", " ", content)
    words = re.findall(r"[A-Za-z]+", words)
    if words:
        return "_".join(w.upper() for w in words)
    return "DATE" if re.fullmatch(r"[\d\-/ ]+", content.strip()) else "ID"


def marker_mentions(text: str) -> list[dict]:
    """MIMIC de-identification markers as DIRECT mentions: the marker string is the value (seed 004
    uses these already-anonymised strings as the control codes of MIMIC notes)."""
    return [
        {
            "entity_type": marker_type(m.group(1)),
            "start_offset": m.start(),
            "end_offset": m.end(),
            "span_text": m.group(0),
            "identifier_type": "DIRECT",
            "entity_id": "",
            "confidential_status": "",
        }
        for m in _MARKER.finditer(text)
    ]


# ---- records prepared for controlled generation -------------------------------------------------

@dataclass
class CodedRecord:
    """A private record with its control code and the character spans of its private values."""

    id: str
    text: str
    code: ControlCode
    private_spans: list[tuple[int, int]]
    annotated_values: list[str] | None = None  # hand-annotated values when the code came from a detector

    @property
    def values(self) -> list[str]:
        return self.code.values()


def compact_lines(text: str, mentions: Sequence[dict]) -> tuple[str, list[dict]]:
    """Drop blank lines and trim line ends (seed 004 joins a document's paragraphs with one
    newline, so a blank line can separate documents in a prompt); mention offsets follow."""
    pieces, mapping, out_len = [], {}, 0
    for m in re.finditer(r"[^\n]*\S[^\n]*", text):
        line_start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
        line = m.group(0).strip()
        if pieces:
            out_len += 1  # the joining "\n"
        for k in range(len(line) + 1):
            mapping[line_start + k] = out_len + k
        pieces.append(line)
        out_len += len(line)
    new_text = "\n".join(pieces)
    moved = []
    for m in mentions:
        s, e = int(m["start_offset"]), int(m["end_offset"])
        if s in mapping and e in mapping and new_text[mapping[s]:mapping[e]] == text[s:e]:
            moved.append({**m, "start_offset": mapping[s], "end_offset": mapping[e]})
        else:
            raise ValueError(f"mention {text[s:e]!r} at {s}:{e} crosses a line end and cannot be kept")
    return new_text, moved


def coded_record(
    record_id: str, text: str, mentions: Sequence[dict], identifier_types: Sequence[str] = DEFAULT_IDENTIFIER_TYPES,
    compact: bool = True,
) -> CodedRecord:
    """A :class:`CodedRecord` from a text and its TAB-style mentions. Private spans are the chosen
    mentions plus every other occurrence of their values in the text (so a repeated name is private
    wherever it occurs, annotated or not)."""
    from textleak.controlled.entity_metrics import find_spans

    if compact:
        text, mentions = compact_lines(text, mentions)
    code = code_from_mentions(mentions, identifier_types)
    spans = set(private_spans(mentions, identifier_types))
    for value in code.values():
        spans.update(find_spans(text, value))
    return CodedRecord(str(record_id), text, code, sorted(spans))
