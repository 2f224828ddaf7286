"""Conditioning templates: the prefix that synthesis-by-fine-tuning puts before each record.

The papers call it a "control code" (the ``control_code=`` option keeps their word); the class is
:class:`ConditioningTemplate` so it is not confused with seed 004's entity control codes
(:class:`textleak.controlled.control_codes.ControlCode`). Yue et al. (2023) prepend a categorical "control code" to every private record before fine-tuning
and generate new records from control codes alone. Seed 000 (appendix A.2) conditions MedQA records
on their question and answer and leaves WildChat uncontrolled. Two spellings exist:

- ``"paper"`` (default): ``"Question: {question} | Answer: {answer}"`` as the paper writes it,
  followed by a newline before the record text;
- ``"release"``: ``"question: {question}\\tanswer: {answer}\\n"`` as the released code builds it
  (fields joined by a tab, a single trailing newline, nothing else before the text);
- ``"none"``: no control code (seed 000's WildChat setting); every record is generated from the
  beginning-of-sequence token alone.

Any other string is a ``str.format`` template over record fields, e.g. ``"Specialty: {specialty}"``.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Mapping

PAPER_TEMPLATE = "Question: {question} | Answer: {answer}"
RELEASE_TEMPLATE = "question: {question}\tanswer: {answer}\n"

NAMED_CONTROL_CODES: dict[str, tuple[str | None, str]] = {
    # name: (template, separator between the rendered code and the record text)
    "paper": (PAPER_TEMPLATE, "\n"),
    "release": (RELEASE_TEMPLATE, ""),
    "none": (None, ""),
}


@dataclass(frozen=True)
class ConditioningTemplate:
    """A template over record fields; ``render(record)`` is the prompt that precedes the record text.

    ``template=None`` means uncontrolled generation: the prompt is the empty string.
    """

    template: str | None = PAPER_TEMPLATE
    separator: str = "\n"

    @property
    def fields(self) -> list[str]:
        """Record fields the template reads, in order of appearance."""
        if self.template is None:
            return []
        names = [name for _, name, _, _ in string.Formatter().parse(self.template) if name]
        return list(dict.fromkeys(n.split(".")[0].split("[")[0] for n in names))

    def render(self, record: Mapping[str, Any], index: int | None = None) -> str:
        """The prompt for one record: the rendered code plus the separator ("" when uncontrolled).

        A missing or empty field is an error naming the record, so a control code never silently
        degrades into a less informative one.
        """
        if self.template is None:
            return ""
        where = f"record {index}" if index is not None else f"record {record.get('id', '?')!r}"
        values = {}
        for name in self.fields:
            if name not in record:
                raise KeyError(f"control code {self.template!r}: {where} has no field {name!r}")
            value = record[name]
            if value is None or (isinstance(value, str) and not value.strip()):
                raise ValueError(f"control code {self.template!r}: {where} has an empty {name!r}")
            values[name] = " ".join(str(value).split()) if isinstance(value, str) else value
        return self.template.format(**values) + self.separator

    def describe(self) -> dict[str, Any]:
        return {"template": self.template, "separator": self.separator}


def resolve_template(spec: "str | ConditioningTemplate | None") -> ConditioningTemplate:
    """``"paper"``, ``"release"``, ``"none"``/``None``, a ConditioningTemplate, or a custom template string
    (rendered, then followed by a newline)."""
    if isinstance(spec, ConditioningTemplate):
        return spec
    if spec is None:
        return ConditioningTemplate(None, "")
    if not isinstance(spec, str):
        raise TypeError(f"control_code must be a name, a template string or a ConditioningTemplate, got {type(spec).__name__}")
    if spec in NAMED_CONTROL_CODES:
        template, separator = NAMED_CONTROL_CODES[spec]
        return ConditioningTemplate(template, separator)
    if "{" not in spec:
        raise ValueError(
            f"control_code {spec!r} is neither a known name ({', '.join(NAMED_CONTROL_CODES)}) nor a template with {{field}} slots"
        )
    return ConditioningTemplate(spec, "" if spec.endswith("\n") else "\n")
