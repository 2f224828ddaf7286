"""The semantic_leakage evaluate module: direct use, folder load, bare-name load after install (and
the start-up hook), load-time options, unequal sizes, the Space folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
REFS = [
    "Anna is 25 years old. Anna is a cook. Anna lives in Oslo. Anna has asthma. Anna owns a red bicycle.",
    "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Boris has gout. Boris collects old maps.",
]


def test_direct_use_options_and_judge_built_once():
    from textleak.metrics import SemanticLeakage

    m = SemanticLeakage(judge="lexical", k=2, seed=5, bootstrap=50, keep_in_memory=True)
    assert m.name == "semantic_leakage"
    r = m.compute(predictions=REFS, references=REFS)
    assert r["semantic_privacy"] == pytest.approx(0.0) and r["linkage_rate"] == 1.0
    assert r["settings"]["k"] == 2 and r["settings"]["seed"] == 5 and r["n_scored_claims"] == 6
    assert r["judge"]["name"] == "lexical" and r["linker"]["name"] == "bm25"
    judge = m.judge()
    r2 = m.compute(predictions=["", ""], references=REFS, return_records=True)
    assert m.judge() is judge  # built once, reused
    assert r2["semantic_privacy"] == 1.0 and len(r2["records"]) == 2 and r2["records"][0]["status"] == "unlinked"


def test_unequal_sizes_and_sanitized_ids():
    from textleak.metrics import SemanticLeakage

    m = SemanticLeakage(judge="lexical", bootstrap=0, keep_in_memory=True)
    with pytest.raises(ValueError, match="alignment='none'"):  # unaligned evaluation must be asked for
        m.compute(predictions=["Boris is a pilot in Rome with gout who collects maps."], references=REFS)
    synthetic = SemanticLeakage(judge="lexical", bootstrap=0, alignment="none", keep_in_memory=True)
    r = synthetic.compute(predictions=["Boris is a pilot in Rome with gout who collects maps."], references=REFS)
    assert r["settings"]["alignment"] == "none" and r["linkage_rate"] is None and r["n_sanitized"] == 1
    r = m.compute(predictions=[REFS[1]], references=REFS, sanitized_ids=[1])
    # the reference with no prediction counts as released unsanitized: it links to itself
    assert r["settings"]["alignment"] == "ids" and r["n_missing"] == 1 and r["linkage_rate"] == 1.0


def test_judge_options_reach_the_judge():
    from textleak.judges import Judge
    from textleak.metrics import SemanticLeakage

    m = SemanticLeakage(judge="lexical", judge_options={"t1": 0.9, "t2": 0.3}, keep_in_memory=True)
    j = m.judge()
    assert isinstance(j, Judge) and j.describe()["t1"] == 0.9 and j.describe()["t2"] == 0.3


def test_space_folder_and_shim_match_the_installer():
    from textleak.metrics.install import METRICS, shim_source

    for name in METRICS:
        folder = REPO / "metrics" / name
        assert (folder / f"{name}.py").read_text(encoding="utf-8") == shim_source(name)
    folder = REPO / "metrics" / "semantic_leakage"
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "app_file: app.py" in card and "- metric" in card
    assert "textleak==" in (folder / "requirements.txt").read_text()  # the wheel the Space carries (tests/test_spaces_build.py)
    assert "launch(__file__" in (folder / "app.py").read_text()


def _run(code: str, hf_home: Path, cwd: Path) -> str:
    env = {**os.environ, "HF_HOME": str(hf_home), "HF_EVALUATE_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TEXTLEAK_NO_AUTOINSTALL": "1"}
    env.pop("HF_MODULES_CACHE", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()[-1]


def test_evaluate_load_from_folder_and_bare_name_after_install(tmp_path):
    code = f"""
import json, evaluate
from textleak.metrics import install_metrics
refs = {REFS!r}
folder = evaluate.load({str(REPO / 'metrics' / 'semantic_leakage')!r}, judge="lexical", k=2, bootstrap=0)
try:
    evaluate.load("semantic_leakage")
    before = "found"
except FileNotFoundError:
    before = "missing"
install_metrics()
install_metrics()  # idempotent
bare = evaluate.load("semantic_leakage", judge="lexical", k=2, bootstrap=0)
org = evaluate.load("textleak/semantic_leakage", judge="lexical")
r = bare.compute(predictions=["", refs[1]], references=refs)
rf = folder.compute(predictions=["", refs[1]], references=refs)
print(json.dumps({{"before": before, "privacy_folder": rf["semantic_privacy"], "folder": type(folder).__module__, "bare": type(bare).__module__, "org": org.name,
                   "k": bare.leakage_config.k, "privacy": r["semantic_privacy"], "linkage": r["linkage_rate"]}}))
"""
    out = json.loads(_run(code, tmp_path / "hf", tmp_path))
    assert out["before"] == "missing"
    assert out["folder"] == out["bare"] == "textleak.metrics.semantic_leakage"
    assert out["org"] == "semantic_leakage" and out["k"] == 2
    # Anna's record links to Boris's (shared words), Boris's to itself: between the two extremes
    assert 0.0 < out["privacy"] < 1.0 and out["privacy"] == out["privacy_folder"] and out["linkage"] == 0.5


def test_startup_hook_installs_shims(tmp_path):
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    (site_dir / "textleak-metrics.pth").write_text((REPO / "textleak-metrics.pth").read_text())
    code = f"""
import os, site
os.environ.pop("TEXTLEAK_NO_AUTOINSTALL")
site.addsitedir({str(site_dir)!r})
from textleak.metrics.install import is_installed
print(is_installed())
"""
    assert _run(code, tmp_path / "hf", tmp_path) == "True"
    assert (tmp_path / "hf" / "modules" / "evaluate_modules" / "metrics" / "evaluate-metric--semantic_leakage").is_dir()


def test_docstring_example_runs(monkeypatch):
    """evaluate's convention: the examples in the inputs description are doctests."""
    import doctest

    import evaluate

    import textleak.metrics.semantic_leakage as module

    monkeypatch.setattr(evaluate, "load", lambda name, **kw: module.SemanticLeakage(keep_in_memory=True, judge="lexical", **kw))
    parser = doctest.DocTestParser()
    test = parser.get_doctest(module._KWARGS_DESCRIPTION, {"evaluate": evaluate}, "semantic_leakage", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0 and len(test.examples) == 3
