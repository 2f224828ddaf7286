"""``evaluate.load("semantic_leakage")`` by bare name (issue 28, item 3): offline, through the shim in
evaluate's module cache, with a line that says so instead of evaluate's "couldn't be found ... on the
Hugging Face Hub", and never through a stale shim another environment wrote into the shared cache."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _run(code: str, hf_home: Path, tmp: Path) -> subprocess.CompletedProcess:
    site_dir = tmp / "site"
    site_dir.mkdir(exist_ok=True)
    (site_dir / "textleak-metrics.pth").write_text((REPO / "textleak-metrics.pth").read_text())
    env = {**os.environ, "HF_HOME": str(hf_home), "HF_EVALUATE_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    env.pop("HF_MODULES_CACHE", None)
    env.pop("TEXTLEAK_NO_AUTOINSTALL", None)
    prelude = f"import site\nsite.addsitedir({str(site_dir)!r})\n"  # what a wheel install's start-up hook does
    out = subprocess.run([sys.executable, "-c", prelude + code], cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


LOAD = """
import evaluate
m = evaluate.load("semantic_leakage", judge="lexical", bootstrap=0)
print(type(m).__module__)
"""


def test_bare_name_loads_offline_with_an_honest_line(tmp_path):
    out = _run(LOAD, tmp_path / "hf", tmp_path)
    assert out.stdout.strip().splitlines()[-1] == "textleak.metrics.semantic_leakage"
    assert "couldn't be found" not in out.stderr
    assert "using textleak's semantic_leakage metric" in out.stderr and "not on the Hugging Face Hub" in out.stderr


def test_a_newer_shim_from_another_environment_is_not_the_one_loaded(tmp_path):
    from textleak.metrics.install import install_metrics

    hf = tmp_path / "hf"
    install_metrics(root=hf / "modules")
    stale = hf / "modules" / "evaluate_modules" / "metrics" / "evaluate-metric--semantic_leakage" / ("0" * 64)
    stale.mkdir()
    (stale / "__init__.py").write_text("")
    (stale / "semantic_leakage.py").write_text("raise ImportError('a stale shim from another environment')\n")
    future = time.time() + 3600
    os.utime(stale / "semantic_leakage.py", (future, future))  # written later than ours
    out = _run(LOAD, hf, tmp_path)
    assert out.stdout.strip().splitlines()[-1] == "textleak.metrics.semantic_leakage"
