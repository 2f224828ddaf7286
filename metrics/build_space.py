"""Build a metric's Hub Space folder that installs from its own files.

    python metrics/build_space.py semantic_leakage OUT_DIR [--wheel textleak-X-py3-none-any.whl]

textleak is on no package index, so a Space cannot ``pip install textleak``. This copies the metric's
folder (``<name>.py``, ``app.py``, ``README.md``, ``requirements.txt``) into ``OUT_DIR`` and puts a
textleak wheel beside them (built from this checkout with ``pip wheel --no-deps``, or the one given),
which ``requirements.txt`` finds through ``--find-links .``. Push ``OUT_DIR`` to the Space (the wheel
goes through Git LFS like any binary). The wheel's version must be the one ``requirements.txt`` pins.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SPACE_FILES = ("README.md", "app.py", "requirements.txt")


def pinned_version(requirements: Path) -> str:
    """The textleak version a Space's requirements pin."""
    match = re.search(r"^textleak==(\S+)$", requirements.read_text(encoding="utf-8"), re.M)
    if not match:
        raise ValueError(f"{requirements} does not pin textleak==VERSION")
    return match.group(1)


def build_wheel(out_dir: Path) -> Path:
    """A textleak wheel built from this checkout (no dependencies, no network)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(out_dir), str(REPO)],
                   check=True)
    (wheel,) = sorted(out_dir.glob("textleak-*.whl"))
    return wheel


def build_space(name: str, out_dir: str | Path, wheel: str | Path | None = None) -> Path:
    """Write the Space folder of metric ``name`` into ``out_dir``; returns it."""
    src = HERE / name
    if not (src / f"{name}.py").is_file():
        raise FileNotFoundError(f"no metric folder {src}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for f in (f"{name}.py", *SPACE_FILES):
        shutil.copy2(src / f, out / f)
    wheel = Path(wheel) if wheel else build_wheel(out / ".wheel-build")
    version = pinned_version(out / "requirements.txt")
    if not wheel.name.startswith(f"textleak-{version}-"):
        raise ValueError(f"{wheel.name} is not textleak {version}, the version {name}'s requirements.txt pins")
    for old in out.glob("textleak-*.whl"):
        old.unlink()
    shutil.copy2(wheel, out / wheel.name)
    shutil.rmtree(out / ".wheel-build", ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="metric folder under metrics/ (semantic_leakage, entity_leakage, reconstruction_asr)")
    parser.add_argument("out_dir", help="the Space folder to write")
    parser.add_argument("--wheel", default=None, help="a textleak wheel to ship instead of building one")
    args = parser.parse_args(argv)
    print(build_space(args.name, args.out_dir, args.wheel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
