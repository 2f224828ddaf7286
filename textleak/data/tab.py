"""Text Anonymization Benchmark (TAB) loader: the ECHR JSON schema, as a ``datasets.Dataset``.

The TAB files (``echr_train.json`` etc., MIT, Norsk Regnesentral) are a JSON list of documents with
``doc_id``, ``text``, ``task``, ``meta``, ``quality_checked`` and ``annotations`` = ``{annotator:
{"entity_mentions": [...]}}``; each mention has ``entity_type``, ``start_offset``/``end_offset``
(end-exclusive character offsets), ``span_text``, ``identifier_type`` (DIRECT, QUASI, NO_MASK),
``entity_id`` and ``confidential_status``.

Records come out in the shared schema: ``id``, ``text`` and the task fields, here ``entity_mentions``
(one annotator's mentions, sorted by offset), ``annotator``, ``task`` and ``dataset_type``. The
package ships a fictional corpus in this schema (``tab_fixture.json``, 14 documents written for
textleak: no real person appears in it) for tests, demos and the benchmark.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any, Sequence

logger = logging.getLogger(__name__)

FIXTURE_PATH = Path(__file__).parent / "fixtures" / "tab_fixture.json"
TAB_ENTITY_TYPES = ("PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC")
IDENTIFIER_TYPES = ("DIRECT", "QUASI", "NO_MASK")
MENTION_FIELDS = ("entity_type", "start_offset", "end_offset", "span_text", "identifier_type", "entity_id", "confidential_status")


def read_tab(path: "str | Path | None" = None) -> list[dict[str, Any]]:
    """The raw TAB documents of a JSON file (default: the bundled fictional fixture), validated."""
    path = Path(path) if path is not None else FIXTURE_PATH
    with open(path, encoding="utf-8") as f:
        docs = json.load(f)
    if not isinstance(docs, list):
        raise ValueError(f"{path}: a TAB file is a JSON list of documents, got {type(docs).__name__}")
    for i, doc in enumerate(docs):
        for key in ("doc_id", "text", "annotations"):
            if key not in doc:
                raise ValueError(f"{path}: document {i} has no {key!r}")
    return docs


def _mentions(doc: dict, annotator: str) -> tuple[str, list[dict]]:
    annotations = doc["annotations"]
    if not annotations:
        return "", []
    name = next(iter(annotations)) if annotator == "first" else annotator
    if name not in annotations:
        raise KeyError(f"document {doc['doc_id']} has no annotator {name!r} (has {sorted(annotations)})")
    text = doc["text"]
    out = []
    for m in annotations[name].get("entity_mentions", []):
        start, end = int(m["start_offset"]), int(m["end_offset"])
        if not (0 <= start < end <= len(text)) or text[start:end] != m["span_text"]:
            raise ValueError(
                f"document {doc['doc_id']}, mention {m.get('entity_mention_id')}: offsets {start}:{end} give "
                f"{text[start:end]!r}, but span_text is {m['span_text']!r}"
            )
        out.append({k: m.get(k, "") if k not in ("start_offset", "end_offset") else int(m[k]) for k in MENTION_FIELDS})
    out.sort(key=lambda m: (m["start_offset"], m["end_offset"]))
    return name, out


def paragraph_segment(text: str, mentions: Sequence[dict], first: int = 0, last: int | None = 6) -> tuple[str, list[dict]]:
    """Paragraphs ``[first, last)`` of ``text`` (non-empty lines, as in seed 004: "the first 6
    paragraphs" and "paragraphs 6 to 12") with the mentions inside them, offsets re-based.

    Separators between the kept paragraphs are kept as they are, so every offset stays exact.
    """
    bounds = [m.span() for m in re.finditer(r"[^\n]*\S[^\n]*", text)]
    kept = bounds[first:last]
    if not kept:
        return "", []
    start, end = kept[0][0], kept[-1][1]
    inside = [
        {**m, "start_offset": m["start_offset"] - start, "end_offset": m["end_offset"] - start}
        for m in mentions
        if m["start_offset"] >= start and m["end_offset"] <= end
    ]
    return text[start:end], inside


def tab_records(
    path: "str | Path | None" = None,
    annotator: str = "first",
    paragraphs: tuple[int, int | None] | None = None,
    split: str | None = None,
) -> list[dict[str, Any]]:
    """TAB documents as records: ``id``, ``text``, ``entity_mentions``, ``annotator``, ``task``, ``dataset_type``.

    ``annotator="first"`` uses each document's first annotator (as seed 004 does); a name picks that
    annotator. ``paragraphs=(0, 6)`` keeps paragraphs 0-5 (seed 004's segment), ``(6, 12)`` the second.
    ``split`` keeps documents whose ``dataset_type`` equals it.
    """
    records = []
    for doc in read_tab(path):
        if split is not None and doc.get("dataset_type") != split:
            continue
        name, mentions = _mentions(doc, annotator)
        text = doc["text"]
        if paragraphs is not None:
            text, mentions = paragraph_segment(text, mentions, *paragraphs)
        records.append(
            {
                "id": str(doc["doc_id"]),
                "text": text,
                "entity_mentions": mentions,
                "annotator": name,
                "task": doc.get("task", ""),
                "dataset_type": doc.get("dataset_type", ""),
            }
        )
    return records


def load_tab(
    path: "str | Path | None" = None,
    annotator: str = "first",
    paragraphs: tuple[int, int | None] | None = None,
    split: str | None = None,
):
    """:func:`tab_records` as a ``datasets.Dataset`` (default: the bundled fictional fixture)."""
    import datasets

    return datasets.Dataset.from_list(tab_records(path, annotator, paragraphs, split))
