"""Headless Chromium for browser tests (Debian's chromium + chromium-driver, driven by Selenium).

Skips with a clear message only where no browser can be installed; in CI (``CI=true``) a missing
browser is a failure, because `.ci/run` installs it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("TEXTLEAK_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("TEXTLEAK_CHROMEDRIVER", "/usr/bin/chromedriver")


def require_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not (Path(p).exists() or shutil.which(p))]
    if missing:
        msg = f"headless Chromium not available ({', '.join(missing)} missing): apt-get install chromium chromium-driver"
        if os.environ.get("CI") and not os.environ.get("TEXTLEAK_ALLOW_NO_BROWSER"):
            pytest.fail(msg)
        pytest.skip(msg)
    pytest.importorskip("selenium")


@contextmanager
def chromium(width: int = 1280, height: int = 1600):
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", f"--window-size={width},{height}",
    ):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve_app(app_file: Path, port: int, timeout: float = 180.0, env: dict | None = None):
    """Run a Gradio ``app.py`` on 127.0.0.1:port in a subprocess until the block exits."""
    import urllib.request

    full_env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
                "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1",
                **(env or {})}
    log = open(app_file.parent / f".app-{port}.log", "w")
    proc = subprocess.Popen([sys.executable, str(app_file)], cwd=app_file.parent, env=full_env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + timeout
        while True:
            if proc.poll() is not None:
                log.flush()
                raise RuntimeError(f"{app_file} exited with {proc.returncode}: " + Path(log.name).read_text()[-3000:])
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except OSError:
                if time.time() > deadline:
                    raise TimeoutError(f"{app_file} did not serve on port {port} within {timeout}s")
                time.sleep(1)
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        Path(log.name).unlink(missing_ok=True)


def start_label_page(out: Path, n: int) -> tuple[subprocess.Popen, str]:
    """``textleak label OUT --n N`` in a subprocess; returns it and the page's address it prints."""
    import re

    proc = subprocess.Popen([sys.executable, "-m", "textleak", "label", str(out), "--n", str(n), "--no-browser"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 120
    for line in proc.stdout:  # type: ignore[union-attr]
        m = re.search(r"labelling page: (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
        if m:
            return proc, m.group(1)
        if time.time() > deadline:
            break
    proc.kill()
    raise RuntimeError("textleak label printed no address")


def stop_process(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
