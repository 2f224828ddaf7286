"""Each metric's Space folder builds from its own files (issue 28, item 2): ``metrics/build_space.py``
puts a textleak wheel beside the Space's files, a fresh environment installs ``requirements.txt`` with
no package index (``--no-index``; the other distributions come from this environment's site-packages,
standing in for PyPI, textleak itself excluded), and the installed textleak computes the example of
``app.py``; the semantic_leakage example shows leakage."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "metrics"))
from build_space import build_space, build_wheel, pinned_version  # noqa: E402

pytestmark = pytest.mark.slow
NAMES = ("semantic_leakage", "entity_leakage", "reconstruction_asr")


def app_example(folder: Path) -> dict:
    """The ``example=`` literal passed to ``launch`` in a Space's app.py."""
    for node in ast.walk(ast.parse((folder / "app.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "launch":
            return ast.literal_eval(next(k.value for k in node.keywords if k.arg == "example"))
    raise AssertionError(f"{folder}/app.py calls no launch(..., example=...)")


@pytest.mark.parametrize("name", NAMES)
def test_requirements_pin_the_packages_version_and_the_folder_wheel(name):
    from textleak import __version__

    req = REPO / "metrics" / name / "requirements.txt"
    lines = [l.strip() for l in req.read_text().splitlines() if l.strip() and not l.startswith("#")]
    assert lines[0] == "--find-links ." and pinned_version(req) == __version__
    assert all("==" in l for l in lines[1:]), lines  # every package pinned, as evaluate's own Spaces do


def test_semantic_leakage_example_shows_leakage_and_no_blank_prediction():
    example = app_example(REPO / "metrics" / "semantic_leakage")
    assert all(p.strip() for p in example["predictions"])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def _site_without_textleak(tmp: Path) -> Path:
    """This environment's site-packages minus textleak: the 'index' a fresh environment installs from."""
    site = Path(sysconfig.get_paths()["purelib"])
    out = tmp / "deps"
    out.mkdir()
    for entry in site.iterdir():
        low = entry.name.lower()
        if low.startswith(("textleak", "__editable__", "sanitizers")) or low.endswith(".pth"):
            continue
        (out / entry.name).symlink_to(entry)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_space_folder_builds_from_its_own_files_and_computes_its_example(name, wheel, tmp_path):
    space = build_space(name, tmp_path / "space", wheel=wheel)
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    env_site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    (env_site / "zz-deps.pth").write_text(str(_site_without_textleak(tmp_path)) + "\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "PIP_NO_INPUT": "1", "PYTHONNOUSERSITE": "1"}
    env.pop("PYTHONPATH", None)
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-index", "--no-build-isolation", "-r", "requirements.txt"],
                             cwd=space, env=env, capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    assert "textleak-0" in install.stdout or "Successfully installed textleak" in install.stdout, install.stdout[-2000:]
    example = app_example(space)
    code = f"""
import json, evaluate, textleak
metric = evaluate.load("{space / (name + ".py")}")
result = metric.compute(predictions={example['predictions']!r}, references={example['references']!r}, **{example.get('options', {})!r})
print(json.dumps({{"textleak": textleak.__file__, "module": type(metric).__module__,
                  "result": json.loads(json.dumps(result, default=str))}}))
"""
    run = subprocess.run([str(python), "-c", code], cwd=space, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["textleak"].startswith(str(env_site)), out["textleak"]  # the wheel's textleak, not the checkout's
    assert out["module"] == f"textleak.metrics.{name}"
    if name == "semantic_leakage":
        r = out["result"]
        assert r["linkage_rate"] == 1.0 and r["semantic_privacy"] < 0.6 < r["lexical_privacy"], r
