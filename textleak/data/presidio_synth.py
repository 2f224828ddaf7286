"""presidio-research synthetic sentences (``synth_dataset_v2.json``, ``generated_small.json``; MIT) as
records with TAB-style entity mentions, a second corpus for controlled generation and entity leakage.

Each file is a JSON list of ``{"full_text", "spans": [{"entity_type", "entity_value", "start_position",
"end_position"}], ...}``. Presidio's types map onto the eight TAB categories, and each gets the TAB
identifier type it would have there: names, account/ID numbers, phone numbers, e-mail and street
addresses are DIRECT; places, dates, ages, titles, nationalities, organisations, ZIP codes and
domains are QUASI. ``entity_type_source`` keeps Presidio's own label.

A span whose offsets do not give its ``entity_value`` (one in ``generated_small.json``) is moved to
the occurrence of the value nearest the stated offset and logged; a value that does not occur in the
text at all raises, naming the record (dropping it would hide a private entity).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

# presidio label -> (TAB entity type, TAB identifier type)
PRESIDIO_TO_TAB: dict[str, tuple[str, str]] = {
    "PERSON": ("PERSON", "DIRECT"),
    "STREET_ADDRESS": ("LOC", "DIRECT"),
    "ADDRESS": ("LOC", "DIRECT"),
    "GPE": ("LOC", "QUASI"),
    "LOCATION": ("LOC", "QUASI"),
    "ORGANIZATION": ("ORG", "QUASI"),
    "DATE_TIME": ("DATETIME", "QUASI"),
    "AGE": ("DEM", "QUASI"),
    "NRP": ("DEM", "QUASI"),
    "TITLE": ("DEM", "QUASI"),
    "CREDIT_CARD": ("CODE", "DIRECT"),
    "PHONE_NUMBER": ("CODE", "DIRECT"),
    "EMAIL_ADDRESS": ("CODE", "DIRECT"),
    "IBAN_CODE": ("CODE", "DIRECT"),
    "US_SSN": ("CODE", "DIRECT"),
    "US_DRIVER_LICENSE": ("CODE", "DIRECT"),
    "IP_ADDRESS": ("CODE", "DIRECT"),
    "ZIP_CODE": ("CODE", "QUASI"),
    "DOMAIN_NAME": ("CODE", "QUASI"),
}


def _locate(text: str, value: str, start: int, where: str) -> int:
    hits, pos = [], text.find(value)
    while pos != -1:
        hits.append(pos)
        pos = text.find(value, pos + 1)
    if not hits:
        raise ValueError(f"{where}: entity value {value!r} does not occur in the text")
    best = min(hits, key=lambda h: abs(h - start))
    logger.info("%s: span %d moved to %d where %r occurs", where, start, best, value)
    return best


def presidio_synth_records(path: "str | Path", limit: int | None = None) -> list[dict[str, Any]]:
    """Records ``id``, ``text``, ``entity_mentions`` (TAB-style, sorted by offset), ``template_id``."""
    path = Path(path)
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)
    records = []
    for i, row in enumerate(rows[:limit] if limit is not None else rows):
        text = row["full_text"]
        mentions = []
        for k, span in enumerate(row.get("spans", [])):
            label, value = span["entity_type"], span["entity_value"]
            where = f"{path.name} record {i} span {k}"
            if label not in PRESIDIO_TO_TAB:
                raise ValueError(f"{where}: unknown presidio entity type {label!r}")
            start = int(span["start_position"])
            if text[start:start + len(value)] != value:
                start = _locate(text, value, start, where)
            etype, idtype = PRESIDIO_TO_TAB[label]
            mentions.append(
                {
                    "entity_type": etype,
                    "start_offset": start,
                    "end_offset": start + len(value),
                    "span_text": value,
                    "identifier_type": idtype,
                    "entity_id": f"ps-{i}_e{k}",
                    "confidential_status": "NOT_CONFIDENTIAL",
                    "entity_type_source": label,
                }
            )
        mentions.sort(key=lambda m: (m["start_offset"], m["end_offset"]))
        records.append({"id": f"presidio-synth-{i}", "text": text, "entity_mentions": mentions, "template_id": row.get("template_id")})
    return records


def load_presidio_synth(path: "str | Path", limit: int | None = None):
    """:func:`presidio_synth_records` as a ``datasets.Dataset``."""
    import datasets

    return datasets.Dataset.from_list(presidio_synth_records(path, limit))
