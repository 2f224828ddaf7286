"""Issue 27, item 8: ``textleak.data.load`` from Python writes its Arrow copies of the records readable by
their owner only, as the CLI does, whatever the process's umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import textleak.data as tdata
from textleak.io import private_files

FIXTURE = Path(tdata.__file__).parent / "fixtures" / "medqa_test.jsonl"


@pytest.fixture
def open_umask():
    old = os.umask(0o022)  # the usual default: 0644 files in 0755 folders
    try:
        yield
    finally:
        os.umask(old)


def test_prepared_copies_are_owner_only(tmp_path, monkeypatch, open_umask):
    root = tmp_path / "cache"
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(root))
    ds = tdata.load("medqa", data_files={"test": str(FIXTURE)}, split="test")
    assert len(ds) > 0
    written = [p for p in root.rglob("*")]
    assert any(p.suffix == ".arrow" for p in written)
    for p in [root, *written]:
        mode = stat.S_IMODE(p.lstat().st_mode)
        assert mode & 0o077 == 0, f"{p} is {oct(mode)}"
    assert os.umask(0o022) == 0o022  # the caller's umask is back


def test_private_files_nests_and_restores(open_umask, tmp_path):
    with private_files():
        with private_files():
            (tmp_path / "a").write_text("x")
        (tmp_path / "b").write_text("x")
    (tmp_path / "c").write_text("x")
    modes = {n: stat.S_IMODE((tmp_path / n).stat().st_mode) for n in "abc"}
    assert modes == {"a": 0o600, "b": 0o600, "c": 0o644}
