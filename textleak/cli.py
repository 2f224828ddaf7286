"""The ``textleak`` command line. Each subcommand lives in ``textleak/commands/<name>.py`` with two
functions, ``add_arguments(parser)`` and ``run(args) -> int``, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from textleak._version import __version__

COMMANDS: dict[str, str] = {
    "evaluate": "measure semantic and lexical leakage of a sanitized set against the originals",
    "sanitize": "run a registered sanitizer over a dataset",
    "judge-agreement": "measure a judge against labelled claims (Spearman, Cohen's and Fleiss' kappa)",
    "label": "label a sample of judged claims on a local page, for semantic privacy corrected by the labels (evaluate --labels)",
    "attack": "word-level DP sanitization and reconstruction attacks: ASR per attack and epsilon",
    "synthesize": "fine-tune a causal LM (optionally with DP-SGD) on private records and generate synthetic ones",
    "audit": "audit a synthesizer's privacy promise: canaries, membership from the synthetic text, an epsilon lower bound",
    "generate": "controlled generation of private synthetic text (ICL with blocking, prefix tuning)",
    "data": "list, prepare or push the built-in datasets",
    "study": "the whole privacy-utility study for one dataset and several sanitizers, with an HTML report",
    "install-metrics": "make evaluate.load('<metric>') find textleak's metrics by bare name, offline",
}


DESCRIPTION = ("Measure how much private information survives text sanitization: semantic leakage, reconstruction "
               "attacks on word-level DP, entity leakage of synthetic text, and the sanitizers they measure.")

#: Errors that mean "the input or the options are wrong": one line naming the problem, exit status 2.
USER_ERRORS = (ValueError, TypeError, KeyError, LookupError, FileNotFoundError, IsADirectoryError, NotADirectoryError,
               PermissionError, UnicodeError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="textleak", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"textleak {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=f"textleak.commands.{name.replace('-', '_')}")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a command. An error prints one line (``textleak <command>: error: ...``) and exits 2 for bad
    input or options, 1 otherwise; ``--debug`` shows the traceback instead. Files the command writes
    (outputs, caches) are readable by their owner only (umask 077): they hold private text."""
    argv = list(sys.argv[1:] if argv is None else argv)
    os.umask(0o077)
    from textleak.distributed import is_main_process

    if not is_main_process():  # under `accelerate launch` every rank runs the command; one prints
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]  # accepted before or after the command
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader went away (textleak data list | head): not an error
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("textleak: interrupted (finished work is cached; run again to resume)", file=sys.stderr)
        return 130
    except Exception as err:  # noqa: BLE001 - the one place errors become messages
        if debug:
            raise
        command = next((a for a in argv if not a.startswith("-")), "")
        message = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err) or type(err).__name__
        print(f"textleak {command}: error: {message}".replace("  ", " ") + "  (--debug shows the traceback)", file=sys.stderr)
        return 2 if isinstance(err, USER_ERRORS) else 1


def _main(argv: list[str]) -> int:
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
