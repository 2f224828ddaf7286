"""Each metrics/<name>/ folder runs as a Gradio Space: start app.py on localhost, submit its example
in headless Chromium, and check that the numbers shown are the metric's own numbers."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
SPACES = sorted(p.name for p in (REPO / "metrics").iterdir() if (p / "app.py").exists())


def _shown_json(driver, timeout: float = 240.0) -> dict:
    deadline = time.time() + timeout
    while time.time() < deadline:
        text = driver.find_element("css selector", "#result").text
        body = text.split("\n", 1)[1] if "\n" in text else ""
        if body.strip().startswith("{"):
            try:
                return json.loads("".join(body.split("\n")))
            except json.JSONDecodeError:
                pass
        time.sleep(1)
    raise TimeoutError("no result shown")


def _numbers(obj, prefix=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _numbers(v, f"{prefix}{k}.")
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield prefix.rstrip("."), float(obj)


def test_every_metric_has_a_space_folder():
    assert set(SPACES) >= {"semantic_leakage", "reconstruction_asr", "entity_leakage"}
    for name in SPACES:
        folder = REPO / "metrics" / name
        assert (folder / f"{name}.py").exists() and (folder / "requirements.txt").exists()
        card = (folder / "README.md").read_text()
        assert card.startswith("---\n") and "app_file: app.py" in card and "sdk: gradio" in card


@pytest.mark.parametrize("name", SPACES)
def test_space_app_shows_the_metric_numbers(name, tmp_path):
    import evaluate

    from _browser import chromium, free_port, serve_app

    folder = REPO / "metrics" / name
    with serve_app(folder / "app.py", free_port()) as url, chromium() as driver:
        driver.get(url)
        deadline = time.time() + 60
        while not driver.find_elements("css selector", "#compute") and time.time() < deadline:
            time.sleep(0.5)
        preds = driver.find_element("css selector", "#predictions textarea").get_attribute("value")
        refs = driver.find_element("css selector", "#references textarea").get_attribute("value")
        opts = driver.find_element("css selector", "#options textarea").get_attribute("value")
        driver.find_element("css selector", "#compute").click()
        shown = _shown_json(driver)
        driver.save_screenshot(str(tmp_path / f"{name}.png"))
    assert "error" not in shown, shown
    expected = evaluate.load(str(folder)).compute(predictions=preds.split("\n"), references=refs.split("\n"), **json.loads(opts))
    expected = json.loads(json.dumps(expected, default=lambda x: x.tolist() if hasattr(x, "tolist") else str(x)))
    timing = ("seconds", "timings", "wall")  # measured, not computed: they differ run to run
    exp_numbers = {k: v for k, v in _numbers(expected) if not any(t in k for t in timing)}
    got_numbers = dict(_numbers(shown))
    assert exp_numbers, "the metric returned no numbers"
    for key, value in exp_numbers.items():
        assert key in got_numbers, f"{key} not shown"
        assert math.isclose(got_numbers[key], value, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(value) and math.isnan(got_numbers[key])), key
