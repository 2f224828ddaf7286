"""Progress bars (issue 28, item 1): every long stage draws a tqdm bar with counts and rates when a
person is watching, and none in logs or CI unless asked (the policy of :mod:`textleak.progress`)."""

from __future__ import annotations

import pytest

from textleak.progress import map_chunks, resolve_progress

ORIGINALS = [
    "Anna is 25 years old. Anna is a cook. Anna lives in Oslo. Anna has asthma. Anna owns a red bicycle.",
    "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Boris has gout. Boris collects old maps.",
    "Chen is 41 years old. Chen is a teacher. Chen lives in Lima. Chen has migraines. Chen plays the violin.",
]
STAGES = ("atomizing originals", "linking", "judging claims", "lexical baseline")


def test_policy_explicit_then_environment_then_terminal(monkeypatch):
    monkeypatch.delenv("TEXTLEAK_PROGRESS", raising=False)
    monkeypatch.delenv("CI", raising=False)
    assert resolve_progress(True) is True and resolve_progress(False) is False
    assert resolve_progress(None) is False  # pytest captures stderr: not a terminal, no bars in logs
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert resolve_progress(None) is True  # a person at a terminal
    monkeypatch.setenv("CI", "true")
    assert resolve_progress(None) is False  # never in CI logs unless asked
    monkeypatch.setenv("TEXTLEAK_PROGRESS", "1")
    assert resolve_progress(None) is True
    monkeypatch.setenv("TEXTLEAK_PROGRESS", "0")
    assert resolve_progress(None) is False and resolve_progress(True) is True


def test_map_chunks_keeps_order_and_refuses_short_answers():
    assert map_chunks(lambda a, b: list(range(a, b)), 70, chunk_size=32) == list(range(70))
    with pytest.raises(RuntimeError, match="values for"):
        map_chunks(lambda a, b: [0], 5, chunk_size=2)


def _bars(err: str) -> dict[str, bool]:
    return {stage: stage in err for stage in STAGES}


def test_pipeline_draws_a_bar_per_stage_with_counts_and_rates(capsys):
    from textleak.leakage import evaluate_leakage

    evaluate_leakage(ORIGINALS, ORIGINALS, judge="lexical", use_cache=False, bootstrap=0, progress=True)
    err = capsys.readouterr().err
    assert all(_bars(err).values()), _bars(err)
    assert "/3 [" in err and "rec/s" in err  # counts and a rate
    evaluate_leakage(ORIGINALS, ORIGINALS, judge="lexical", use_cache=False, bootstrap=0)  # default: not a terminal
    assert not any(_bars(capsys.readouterr().err).values())


def test_metric_takes_progress(capsys):
    from textleak.metrics.semantic_leakage import SemanticLeakage

    m = SemanticLeakage(judge="lexical", bootstrap=0, use_cache=False, keep_in_memory=True, progress=True)
    m.compute(predictions=ORIGINALS, references=ORIGINALS)
    assert all(_bars(capsys.readouterr().err).values())


def test_cli_progress_flag(tmp_path, capsys):
    import json

    from textleak.cli import main

    originals = tmp_path / "o.jsonl"
    originals.write_text("".join(json.dumps({"id": str(i), "text": t, "sanitized": t}) + "\n" for i, t in enumerate(ORIGINALS)))
    args = ["evaluate", "--originals", str(originals), "--judge", "lexical", "--bootstrap", "0", "--no-cache"]
    assert main([*args, "--output", str(tmp_path / "a"), "--progress"]) == 0
    assert all(_bars(capsys.readouterr().err).values())
    assert main([*args, "--output", str(tmp_path / "b")]) == 0  # stderr is not a terminal here
    assert not any(_bars(capsys.readouterr().err).values())
    assert main([*args, "--output", str(tmp_path / "c"), "--no-progress"]) == 0
    assert not any(_bars(capsys.readouterr().err).values())


def test_callback_passes_progress_to_the_pipeline():
    from textleak.synthesis.callback import LeakageCallback

    cb = LeakageCallback([{"text": "x"}], control_code="none", progress=True)
    assert cb.progress is True
