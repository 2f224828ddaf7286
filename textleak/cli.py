"""The ``textleak`` command line. Each subcommand lives in ``textleak/commands/<name>.py`` with two
functions, ``add_arguments(parser)`` and ``run(args) -> int``, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from textleak._version import __version__

COMMANDS: dict[str, str] = {
    "evaluate": "measure semantic and lexical leakage of a sanitized set against the originals",
    "sanitize": "run a registered sanitizer over a dataset",
    "judge-agreement": "measure a judge against labelled claims (Spearman, Cohen's and Fleiss' kappa)",
    "attack": "word-level DP sanitization and reconstruction attacks: ASR per attack and epsilon",
    "synthesize": "fine-tune a causal LM (optionally with DP-SGD) on private records and generate synthetic ones",
    "generate": "controlled generation of private synthetic text (ICL with blocking, prefix tuning)",
    "data": "list, prepare or push the built-in datasets",
    "study": "the whole privacy-utility study for one dataset and several sanitizers, with an HTML report",
    "install-metrics": "make evaluate.load('<metric>') find textleak's metrics by bare name, offline",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="textleak", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"textleak {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=f"textleak.commands.{name.replace('-', '_')}")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    # the command's module adds its own arguments before parsing, so `textleak CMD --help` lists them
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in COMMANDS:
        module = importlib.import_module(f"textleak.commands.{command.replace('-', '_')}")
        sub_action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        module.add_arguments(sub_action.choices[command])
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    level = logging.WARNING - 10 * min(args.verbose, 2) if args.verbose else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    if args.verbose < 2:  # libraries that log their internals at INFO/DEBUG stay quiet unless -vv
        for noisy in ("bm25s", "httpx", "urllib3", "presidio-analyzer", "sentence_transformers", "datasets"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
    return int(module.run(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
