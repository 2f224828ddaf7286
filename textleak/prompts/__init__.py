"""Prompt templates and in-context demos, as text and JSON files in this folder, and their one loader.

Templates are filled with :func:`fill` (plain ``{slot}`` replacement, so JSON braces in a template are
safe); the files are package data, so an installed textleak carries them.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

PROMPTS_DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def load_prompt(name: str) -> str:
    """The text of ``textleak/prompts/<name>`` (``.txt`` added when missing), surrounding whitespace removed."""
    path = PROMPTS_DIR / (name if Path(name).suffix else f"{name}.txt")
    if not path.is_file():
        raise FileNotFoundError(f"prompt template {path} is missing")
    return path.read_text(encoding="utf-8").strip()


@lru_cache(maxsize=None)
def _load_json_text(name: str) -> str:
    path = PROMPTS_DIR / (name if Path(name).suffix else f"{name}.json")
    if not path.is_file():
        raise FileNotFoundError(f"prompt data {path} is missing")
    return path.read_text(encoding="utf-8")


def load_prompt_json(name: str) -> Any:
    """The parsed content of ``textleak/prompts/<name>`` (``.json`` added when missing); a fresh copy each call."""
    return json.loads(_load_json_text(name))


def fill(template: str, **slots: str) -> str:
    """Put values into ``{slot}`` markers (plain replacement, so JSON braces in templates are safe)."""
    for key, value in slots.items():
        template = template.replace("{" + key + "}", value)
    return template
