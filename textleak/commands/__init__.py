"""Subcommands of the ``textleak`` CLI, one module each (see textleak/cli.py)."""
