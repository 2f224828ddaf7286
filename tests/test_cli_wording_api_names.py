"""The CLI's help speaks in flags, the API's in arguments (issue 27, item 13): a field whose help names API
arguments carries a ``cli_help`` for its flag (textleak.config)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from textleak.cli import main
from textleak.leakage import LeakageConfig

API_NAMES = re.compile(r"sanitized_ids|sanitized\[i\]|\bNone\b|alignment='|missing='")


def _help(capsys, command: str) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_alignment_help_names_flags_on_the_cli_and_arguments_in_the_api(capsys):
    """Before: --alignment's help said "index (sanitized[i] came from original i), ids (sanitized_ids name ...)"."""
    text = _help(capsys, "evaluate")
    alignment = text[text.index("--alignment {auto,index,ids,none} how"):text.index("--missing {original,error} an")]
    assert "--source-id-column" in alignment and "--sanitized" in alignment and "never unaligned unless asked" in alignment
    api = {f.name: f.metadata["help"] for f in dataclasses.fields(LeakageConfig)}
    assert "sanitized_ids" in api["alignment"] and "sanitized[i]" in api["alignment"]  # the API's wording stays


@pytest.mark.parametrize("command", ["evaluate", "study"])
def test_no_flag_help_names_an_api_argument(capsys, command):
    assert not API_NAMES.findall(_help(capsys, command))


def test_option_strings_read_false_as_false():
    """``nli:places=False`` (benchmark specs, --judge-option) is off: the string used to reach bool() and turn it on."""
    from textleak.config import parse_spec

    assert parse_spec("nli:places=False;voice=no;lexical_span=On;spans=2;non_english=judge") == (
        "nli", {"places": False, "voice": False, "lexical_span": True, "spans": 2, "non_english": "judge"})
