"""Pasted layout read as a reader reads it: a heading with the line after it, a table row under its header.

Chat requests paste CVs, forms, shell output and logs. Split into lines, a heading ("EDUCATION",
"Incident description:") becomes a sentence of its own that says nothing, and a table row
("/dev/mmcblk0p2   29G   27G  1.3G  96% /") says nothing without the header above it. A reader reads
"EDUCATION: B.Sc. Computer Science, University of Lagos, 2014" and "Use% 96%". :func:`read_layout`
writes the text that way; every word of the text stays, only line breaks after headings and the
header's words before a row's values are added or moved.
"""

from __future__ import annotations

import re

_HEADING_WORDS = 6
_ALIGNED = re.compile(r"\S {2,}(?=\S)")  # a run of two spaces or more between words: columns
_WORD = re.compile(r"\S+")


def _is_heading(line: str) -> bool:
    """At most six words, ending with ':' or written in capitals."""
    stripped = line.strip()
    words = stripped.split()
    if not words or len(words) > _HEADING_WORDS:
        return False
    if stripped.endswith(":") and not stripped.endswith("::"):
        return True
    # capitals and spaces only (no digits, commas or placeholders: "<DATE_TIME>" and CSV rows are no headings)
    return stripped[0].isalpha() and sum(c.isalpha() for c in stripped) >= 2 and all(c.isupper() or c in " &/()'’-" for c in stripped)


def _is_table_header(line: str) -> bool:
    words = line.split()
    return len(words) >= 3 and len(_ALIGNED.findall(line)) >= 2 and not any(c.isdigit() for c in line) \
        and not re.search(r"[.,;!?]\s", line + " ")


def _is_table_row(line: str) -> bool:
    return len(_ALIGNED.findall(line)) >= 2


def _read_row(header: str, row: str) -> str:
    """``row`` as "HEADER value, HEADER value": each row word goes to the header word its characters
    overlap, else to the nearest header word starting to its left (or the first); header words that
    get no value join the header word before them ("Mounted on")."""
    heads = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(header)]
    values: list[list[str]] = [[] for _ in heads]
    for m in _WORD.finditer(row):
        a, b = m.start(), m.end()
        k = next((i for i, (s, e, _) in enumerate(heads) if a < e and s < b), None)
        if k is None:
            k = max((i for i, (s, _, _) in enumerate(heads) if s <= a), default=0)
        values[k].append(m.group(0))
    labels: list[list[str]] = []
    cells: list[list[str]] = []
    for (_, _, word), vals in zip(heads, values):
        if vals or not labels:
            labels.append([word])
            cells.append(list(vals))
        else:
            labels[-1].append(word)
    return ", ".join(f"{' '.join(label)} {' '.join(vals)}".strip() for label, vals in zip(labels, cells))


def read_layout(text: str) -> str:
    """``text`` with each heading line joined to the line after it and each row of a column-aligned
    table written with its header's words (see the module docstring). Text without such lines is
    returned unchanged."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    changed = False
    while k < len(lines):
        line = lines[k]
        if _is_table_header(line) and k + 1 < len(lines) and _is_table_row(lines[k + 1]):
            out.append(line)
            k += 1
            while k < len(lines) and _is_table_row(lines[k]):
                out.append(_read_row(line, lines[k]))
                k += 1
            changed = True
            continue
        if _is_heading(line) and k + 1 < len(lines) and lines[k + 1].strip() and not _is_heading(lines[k + 1]) \
                and not _is_table_header(lines[k + 1]):
            head = line.rstrip()
            out.append(head + (" " if head.endswith(":") else ": ") + lines[k + 1].strip())
            k += 2
            changed = True
            continue
        out.append(line)
        k += 1
    return "\n".join(out) if changed else text
