"""Load one textleak module as it was at an earlier git revision, for side-by-side benchmarks only.

    old = load_at_revision("HEAD~3", "textleak/judges/embedding.py", {"textleak.encoders": "textleak/encoders.py"})

The file's source is taken from ``git show REV:PATH`` and executed as a fresh module (not under its
package name, so the current code stays what ``import textleak...`` gives). ``also`` names modules the
old file imports whose old versions it must see too: each is loaded the same way, and the old file's
``from <module> import`` / ``import <module>`` lines are pointed at it. Registry decorators of the old
file are disabled so its classes do not replace the registered ones. Nothing in textleak imports this.
"""

from __future__ import annotations

import re
import subprocess
import sys
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def git_source(rev: str, path: str) -> str:
    """The text of ``path`` at ``rev`` (``git show``)."""
    return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=REPO, check=True, capture_output=True, text=True).stdout


def load_at_revision(rev: str, path: str, also: dict[str, str] | None = None) -> types.ModuleType:
    """The module in ``path`` at ``rev``, with the modules in ``also`` (module name -> path) at ``rev`` too."""
    tag = re.sub(r"\W", "_", rev)
    renames = {name: load_at_revision(rev, p).__name__ for name, p in (also or {}).items()}
    source = git_source(rev, path)
    for name, alias in renames.items():
        source = re.sub(rf"\bfrom {re.escape(name)} import\b", f"from {alias} import", source)
    source = re.sub(r"^@\w+\.register\(.*\)$", "", source, flags=re.MULTILINE)
    module_name = f"_at_{tag}_" + re.sub(r"\W", "_", path.removesuffix(".py"))
    module = types.ModuleType(module_name)
    module.__file__ = f"{rev}:{path}"
    sys.modules[module_name] = module  # dataclasses and pickling look the module up by name
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module
