"""MedQA records: the private patient profile is the vignette without its final question sentence."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")
_QUESTION_END = re.compile(r"\?[\"']?(?=\s|$)")


def split_vignette(question: str) -> tuple[str, str]:
    """Split a MedQA ``question`` field into (profile, final question sentence).

    The question is the last sentence ending in "?" (a few MedQA items put a lab table after it; the
    table stays in the profile). Without a "?", it is the text after the last sentence boundary. A
    field with a single sentence has an empty profile.
    """
    text = question.strip()
    bounds = [0] + [m.end() for m in _BOUNDARY.finditer(text)]
    for start in reversed(bounds):
        end = _QUESTION_END.search(text, start)
        if end and not _BOUNDARY.search(text[start : end.start()]):
            before, after = text[:start].rstrip(), text[end.end():].strip()
            return (before + ("\n" + after if after else "")).strip(), text[start : end.end()].strip()
    last = None
    for m in _BOUNDARY.finditer(text):
        last = m
    if last is None:
        return "", text
    return text[: last.start()].rstrip(), text[last.end():].strip()


def medqa_record(raw: dict[str, Any], index: int) -> dict[str, Any]:
    """One MedQA line in the project's schema: id, text (the profile), question, options, answer."""
    if "question" not in raw or "options" not in raw:
        raise ValueError(f"MedQA record {index} lacks 'question' or 'options'")
    profile, question = split_vignette(raw["question"])
    options = raw["options"]
    if isinstance(options, list):  # [{key, value}, ...]
        options = {o["key"]: o["value"] for o in options}
    return {
        "id": str(raw.get("id", raw.get("realidx", index))),
        "text": profile,
        "question": question,
        "options": {k: options[k] for k in sorted(options)},
        "answer_idx": raw.get("answer_idx"),
        "answer": raw.get("answer"),
    }


def read_medqa_jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(l for l in f if l.strip()):
            yield medqa_record(json.loads(line), i)
