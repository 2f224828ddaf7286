"""Screenshots of the three metric Spaces (example submitted) and of a study report with one record
expanded, taken in headless Chromium: `python benchmarks/screenshots.py [--report DIR/report.html]`.

Writes PNGs to benchmarks/screenshots/. Needs Debian's chromium and chromium-driver.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests"))

from _browser import chromium, free_port, serve_app  # noqa: E402


def space(name: str, out: Path) -> Path:
    folder = REPO / "metrics" / name
    with serve_app(folder / "app.py", free_port()) as url, chromium(1280, 1100) as driver:
        driver.get(url)
        time.sleep(3)
        driver.find_element("css selector", "#compute").click()
        deadline = time.time() + 240
        while time.time() < deadline and "{" not in driver.find_element("css selector", "#result").text:
            time.sleep(1)
        time.sleep(1)
        path = out / f"space_{name}.png"
        driver.save_screenshot(str(path))
    return path


def report(html: Path, out: Path) -> Path:
    with chromium(1280, 2000) as driver:
        driver.get(html.resolve().as_uri())
        records = driver.find_elements("css selector", "details.record")
        if records:
            records[0].find_element("tag name", "summary").click()
        path = out / "report.png"
        driver.save_screenshot(str(path))
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", type=Path, help="a study's report.html to capture")
    ap.add_argument("--spaces", default="semantic_leakage,reconstruction_asr,entity_leakage")
    args = ap.parse_args()
    out = HERE / "screenshots"
    out.mkdir(exist_ok=True)
    for name in filter(None, args.spaces.split(",")):
        print(space(name, out))
    if args.report:
        print(report(args.report, out))


if __name__ == "__main__":
    main()
