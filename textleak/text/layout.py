"""Pasted layout read as a reader reads it: a heading with the line after it, a table row under its header.

Chat requests paste CVs, forms, shell output and logs. Split into lines, a heading ("EDUCATION",
"Incident description:") becomes a sentence of its own that says nothing, and a table row
("/dev/mmcblk0p2   29G   27G  1.3G  96% /") says nothing without the header above it. A reader reads
"EDUCATION: B.Sc. Computer Science, University of Lagos, 2014" and "Use% 96%". :func:`read_layout`
adds those readings to the text: each table row stays as written after its reading, and the line under a
heading stays as written after the joined line (only the heading's own line goes, its words being in the
joined line). A reading adds words to its line, which can turn a judge's reading of it ("BACKGROUND: I
was in prison"), so the NLI judge also reads the text as laid out and keeps the lower score
(:meth:`textleak.judges.nli.NLIJudge._rate_english`).
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from textleak.text.negation import NEGATION

_HEADING_WORDS = 6
_MAX_COLUMNS = 64  # a wider "header" is no table
_CELL = re.compile(r"\S+(?: \S+)*")  # a cell: words parted by single spaces; two spaces or more part cells
_WORD = re.compile(r"\S+")
# a heading that negates, turns or qualifies what follows ("NOT YET ANNOUNCED", "UNRELATED BUT") is not joined to it
_TURNS = re.compile(r"\b(?:false|fake|but|however|although|though|except|unrelated|irrelevant|relevant|disclaimer|hypothetical\w*|"
                    r"fiction\w*|jokes?|examples?|samples?|templates?|drafts?|old|previous|former)\b", re.IGNORECASE)


def _is_heading(line: str) -> bool:
    """At most six words, ending with ':' or written in capitals; no negation or turning word."""
    stripped = line.strip()
    words = stripped.split()
    if not words or len(words) > _HEADING_WORDS or NEGATION.search(stripped) or _TURNS.search(stripped):
        return False
    if stripped.endswith(":") and not stripped.endswith("::"):
        return True
    # capitals and spaces only (no digits, commas or placeholders: "<DATE_TIME>" and CSV rows are no headings)
    return stripped[0].isalpha() and sum(c.isalpha() for c in stripped) >= 2 and all(c.isupper() or c in " &/()'\u2019-" for c in stripped)


def _cells(line: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group(0)) for m in _CELL.finditer(line)]


def _is_table_header(line: str) -> bool:
    """At least three cells, words without digits or sentence punctuation, not a markdown table."""
    words = line.split()
    return 3 <= len(words) <= _MAX_COLUMNS and len(_cells(line)) >= 3 and "|" not in line \
        and not any(c.isdigit() for c in line) and not re.search(r"[.,;!?]\s", line + " ")


class _Header:
    """A table's header line, read once: its words, where they start, and the header cell (words parted
    by single spaces) each belongs to."""

    def __init__(self, line: str):
        self.words = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(line)]
        self.starts = [a for a, _, _ in self.words]
        self.cells: list[list[int]] = [[k for k, (s, _, _) in enumerate(self.words) if a <= s < b] for a, b, _ in _cells(line)]

    def read(self, row: str) -> str | None:
        """``row`` as "HEADER value, HEADER value", or None when it does not read as a row of this header.

        A row cell is read whole under the header words it overlaps ("Date of Birth March 12, 1980"); a cell
        left of every header word (an index) goes unlabelled. The row does not read when a cell overlaps no
        header word, two cells meet one header word, or it has fewer than two cells. Within a header cell,
        the words that meet no row cell join the label of the word before them, or of the first word after
        them that meets one ("Mounted on", "Current city"); never across header cells."""
        cells = _cells(row)
        if len(cells) < 2 or len(cells) > len(self.words) + 1:
            return None
        owner: dict[int, str] = {}  # the first header word a cell meets -> the cell
        taken: set[int] = set()
        lead: list[str] = []
        for a, b, text in cells:
            last = bisect.bisect_right(self.starts, b - 1) - 1  # the last header word starting inside or before the cell
            first = last
            while first >= 0 and self.words[first][1] > a:
                first -= 1
            met = range(first + 1, last + 1)  # header words overlapping [a, b)
            if not met:
                if not owner and b <= self.starts[0]:
                    lead.append(text)
                    continue
                return None
            if taken.intersection(met):
                return None
            taken.update(met)
            owner[met[0]] = text
        parts = list(lead)
        for ks in self.cells:
            groups: list[list[int]] = [[]]
            for k in ks:
                if k in owner and any(j in owner for j in groups[-1]):
                    groups.append([])
                groups[-1].append(k)
            for group in groups:
                label = " ".join(self.words[k][2] for k in group)
                value = next((owner[k] for k in group if k in owner), None)
                parts.append(label if value is None else f"{label} {value}")
        return ", ".join(parts)


@lru_cache(maxsize=8192)
def read_layout(text: str) -> str:
    """``text`` with a heading line joined to the line after it (which also stays as written) and each
    row of a column-aligned table preceded by its reading under the header (see the module docstring).
    Text without such lines is returned unchanged."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    changed = False
    while k < len(lines):
        line = lines[k].rstrip("\r")
        nxt = lines[k + 1].rstrip("\r") if k + 1 < len(lines) else ""
        if _is_table_header(line) and nxt.strip():
            header = _Header(line)
            rows: list[str] = []
            while k + 1 + len(rows) < len(lines):  # the rows that read, up to the first that does not
                reading = header.read(lines[k + 1 + len(rows)].rstrip("\r"))
                if reading is None:
                    break
                rows.append(reading)
            if rows:
                out.append(lines[k])
                for j, reading in enumerate(rows):
                    out.extend([reading, lines[k + 1 + j]])
                k += 1 + len(rows)
                changed = True
                continue
        if _is_heading(line) and nxt.strip() and not _is_heading(nxt) and not _is_table_header(nxt):
            head = line.rstrip()
            out.append(head + (" " if head.endswith(":") else ": ") + nxt.strip())
            out.append(lines[k + 1])
            k += 2
            changed = True
            continue
        out.append(lines[k])
        k += 1
    return "\n".join(out) if changed else text
