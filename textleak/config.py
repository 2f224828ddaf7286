"""Options declared once, in a config dataclass, and everything else derived from it.

A config dataclass's fields carry their help text and choices in ``field(metadata=...)`` (as peft's
``LoraConfig`` does)::

    k: int = field(default=3, metadata={"help": "claims the adversary knows per record"})
    judge: str = field(default="embedding", metadata={"help": "...", "choices": lambda: judges.names()})

From it: :func:`add_arguments` adds one command-line flag per field (``--k``, ``--judge``; dict fields
take repeatable ``KEY=VALUE`` flags; choices may be a callable, e.g. a registry's names), and
:func:`from_args` builds the config back from parsed arguments; the metric and the study take the same
fields as keyword arguments (:func:`split_options`). Metadata keys: ``help``, ``choices``, ``flag``
(the flag's name when not ``--<field-name>``), ``cli`` (False: no flag), ``metavar`` (default: the field's
name in capitals, never a command's internal ``dest``), ``off_help`` (the help of a ``--no-...`` flag, which
turns a default-on field off; default: "do not <help>"), ``cli_help`` (the flag's help where ``help`` names API
arguments a command-line user does not have, e.g. ``sanitized_ids``: ``help`` stays the API's) and
``deprecated_flags`` (old names, accepted with a warning and hidden from ``--help``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import typing
from typing import Any, Callable, Iterable

logger = logging.getLogger(__name__)


def field_choices(f: dataclasses.Field) -> tuple | None:
    """The allowed values of a field (its ``choices`` metadata, called when callable)."""
    choices = f.metadata.get("choices")
    if callable(choices):
        choices = choices()
    return tuple(choices) if choices is not None else None


def _flag(f: dataclasses.Field) -> str:
    return f.metadata.get("flag") or "--" + f.name.replace("_", "-")


def _field_type(cls: type, f: dataclasses.Field) -> Any:
    hints = typing.get_type_hints(cls)
    return hints.get(f.name, Any)


def _scalar_parser(tp: Any) -> Callable[[str], Any] | None:
    """A converter for a flag's value from the field's annotation (int, float, str, optional of those)."""
    origin = typing.get_origin(tp)
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)) and args:
        for candidate in (int, float, str):
            if candidate in args:
                return candidate
        return None
    return tp if tp in (int, float, str) else None


_BOOLEANS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


def parse_key_values(pairs: Iterable[str], what: str) -> dict[str, Any]:
    """``KEY=VALUE`` strings to a dict; values are JSON when they parse (numbers, booleans, lists), else strings;
    True/False/yes/no/on/off in any case are booleans (``places=False`` must not read as the non-empty string)."""
    out: dict[str, Any] = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise ValueError(f"{what} expects key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        if value.strip().lower() in _BOOLEANS:
            out[key.strip()] = _BOOLEANS[value.strip().lower()]
            continue
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def parse_spec(spec: str, what: str = "spec") -> tuple[str, dict[str, Any]]:
    """``name`` or ``name:KEY=VALUE;KEY=VALUE`` (benchmark command lines) to ``(name, options)``."""
    name, _, options = spec.partition(":")
    return name.strip(), parse_key_values([kv for kv in options.split(";") if kv.strip()], what)


def add_arguments(parser: "argparse.ArgumentParser | argparse._ArgumentGroup", cls: type, *, exclude: Iterable[str] = (),
                  flags: dict[str, str] | None = None, suppress_defaults: bool = False, dest_prefix: str = "") -> None:
    """One flag per field of the dataclass ``cls``. ``flags`` renames some flags for this command;
    ``suppress_defaults`` leaves fields that were not given out of the parsed namespace (so they can
    override a configuration file only when given); ``dest_prefix`` keeps two configs' fields apart in
    one namespace (read them back with the same prefix)."""
    skip = set(exclude)
    flags = flags or {}
    for f in dataclasses.fields(cls):
        if f.name in skip or f.metadata.get("cli", True) is False:
            continue
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)  # type: ignore[misc]
        unset = argparse.SUPPRESS if suppress_defaults else None
        help_text = (f.metadata.get("cli_help") or f.metadata.get("help", "")).replace("%", "%%")  # argparse formats help with %
        tp = _field_type(cls, f)
        flag = flags.get(f.name) or _flag(f)
        metavar = f.metadata.get("metavar") or (None if field_choices(f) is not None else f.name.upper())
        if isinstance(default, bool) or tp is bool:
            if default:
                off = f.metadata.get("off_help", "").replace("%", "%%") or f"do not {help_text}"
                flag = flags.get(f.name) or f.metadata.get("flag") or "--no-" + f.name.replace("_", "-")
                parser.add_argument(flag, dest=dest_prefix + f.name, action="store_false", default=unset or True,
                                    help=off + " (without this flag they are on)")
                _deprecated(parser, f, flag, dest_prefix + f.name, action="store_false")
            else:
                parser.add_argument(flag, dest=dest_prefix + f.name, action="store_true", default=unset or False, help=help_text)
                _deprecated(parser, f, flag, dest_prefix + f.name, action="store_true")
            continue
        if isinstance(default, dict) or typing.get_origin(tp) is dict:
            parser.add_argument(flag, dest=dest_prefix + f.name, action="append", default=unset or [], metavar=f.metadata.get("metavar", "KEY=VALUE"),
                                help=help_text + " (repeatable KEY=VALUE; values are JSON when they parse)")
            _deprecated(parser, f, flag, dest_prefix + f.name, action="append")
            continue
        if isinstance(default, (tuple, list)):
            item = type(default[0]) if default else str
            parser.add_argument(flag, dest=dest_prefix + f.name, nargs="+", type=item, default=unset or list(default),
                                metavar=metavar, help=f"{help_text} (default: {' '.join(map(str, default))})")
            _deprecated(parser, f, flag, dest_prefix + f.name, nargs="+", type=item)
            continue
        converter = _scalar_parser(tp) or (type(default) if default is not None else str)
        kwargs: dict[str, Any] = {"dest": dest_prefix + f.name, "default": default if not suppress_defaults else argparse.SUPPRESS, "type": converter}
        choices = field_choices(f)
        if choices is not None:
            kwargs["choices"] = choices
        shown = "none" if default is None else default
        parser.add_argument(flag, help=f"{help_text} (default: {shown})", metavar=metavar, **kwargs)
        _deprecated(parser, f, flag, kwargs["dest"], type=converter, **({"choices": choices} if choices is not None else {}))


def _deprecated(parser: Any, f: dataclasses.Field, flag: str, dest: str, **kwargs: Any) -> None:
    """The field's ``deprecated_flags``: hidden from ``--help``, still accepted, with one warning naming the
    new flag. An old name another option of this command already uses is left to that option."""
    for old in f.metadata.get("deprecated_flags", ()):
        if old == flag:
            continue
        action = kwargs.pop("action", "store")
        base = {"store": argparse._StoreAction, "store_true": argparse._StoreTrueAction,
                "store_false": argparse._StoreFalseAction, "append": argparse._AppendAction}[action]

        class _Warn(base):  # type: ignore[misc, valid-type]
            def __call__(self, p, namespace, values, option_string=None, _old=old, _new=flag):
                logger.warning("%s is deprecated: use %s", _old, _new)
                super().__call__(p, namespace, values, option_string)

        try:
            parser.add_argument(old, dest=dest, action=_Warn, help=argparse.SUPPRESS, default=argparse.SUPPRESS, **kwargs)
        except argparse.ArgumentError:  # the name means something else in this command (study's --llm)
            pass
        kwargs["action"] = action


def values_from_args(cls: type, args: argparse.Namespace, dest_prefix: str = "") -> dict[str, Any]:
    """The fields of ``cls`` present in ``args``, converted (``KEY=VALUE`` lists to dicts, lists to tuples)."""
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if not hasattr(args, dest_prefix + f.name):
            continue
        value = getattr(args, dest_prefix + f.name)
        tp = _field_type(cls, f)
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default  # type: ignore[misc]
        if isinstance(default, dict) or typing.get_origin(tp) is dict:
            value = parse_key_values(value, _flag(f))
        elif isinstance(default, tuple) and isinstance(value, list):
            value = tuple(value)
        values[f.name] = value
    return values


def from_args(cls: type, args: argparse.Namespace, **overrides: Any) -> Any:
    """Build the dataclass ``cls`` from parsed arguments (fields without a flag keep their defaults)."""
    return cls(**{**values_from_args(cls, args), **overrides})


def split_options(cls: type, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the options that are fields of ``cls``, the rest)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in options.items() if k in names}, {k: v for k, v in options.items() if k not in names}


def check_choice(cls: type, name: str, value: Any) -> None:
    """Raise one clear error when ``value`` is not among the field's choices (strings only)."""
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    choices = field_choices(f)
    if choices is not None and isinstance(value, str) and value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}; got {value!r}")


def describe_fields(cls: type) -> str:
    """Markdown list of the fields (name, default, choices, help): for metric cards and docs."""
    lines = []
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default  # type: ignore[misc]
        choices = field_choices(f)
        extra = f"; one of {', '.join(map(str, choices))}" if choices else ""
        lines.append(f"- `{f.name}` (default `{default!r}`{extra}): {f.metadata.get('help', '')}")
    return "\n".join(lines)
