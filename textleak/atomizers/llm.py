"""The LLM atomizer: seed 000 appendix C.1 with in-context demos, and a robust parser of its replies."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Sequence

from textleak.atomizers.base import Atomizer
from textleak.atomizers.rules import RuleAtomizer
from textleak.llm.base import UsesLLM
from textleak.llm.refusals import is_refusal
from textleak.cache import content_hash
from textleak.prompts import load_prompt, load_prompt_json
from textleak.registry import atomizers
from textleak.text import split_sentences

logger = logging.getLogger(__name__)

_NUMBERED = re.compile(r"^\s*(?:claim\s*)?\(?\d{1,3}\s*[.):\]]\s*(.+?)\s*$", re.IGNORECASE)
_BULLETED = re.compile(r"^\s*(?:[-*•–·]|\u2022)\s+(.+?)\s*$")
_PREAMBLE = re.compile(r"^\s*(?:here\s+(?:are|is)|sure|certainly|okay|ok\b|the\s+(?:atomic\s+)?claims|below\s+are)", re.IGNORECASE)


def parse_claims(reply: str | None) -> list[str]:
    """Claims from an atomizer reply.

    Numbered lines ("1. ...", "2) ...", "(3) ...", "Claim 4: ...") and bulleted lines ("- ...", "* ...",
    "• ...") are taken in order; without any, every line after a preamble ("Here are the claims:") is a
    claim. Markdown emphasis and code fences are removed; header lines ending in ":" and empty lines
    are dropped. Claims are not deduplicated (as in the paper).
    """
    if not reply:
        return []
    lines = [l for l in reply.replace("\r\n", "\n").split("\n") if not l.strip().startswith("```")]
    listed: list[str] = []
    for line in lines:
        m = _NUMBERED.match(line) or _BULLETED.match(line)
        if m:
            listed.append(m.group(1))
    if not listed:
        body = [l.strip() for l in lines if l.strip()]
        if body and (_PREAMBLE.match(body[0]) or body[0].endswith(":")):
            body = body[1:]
        listed = body
    out = []
    for c in listed:
        c = re.sub(r"\*\*|__", "", c).strip().strip("`").strip()
        if c and not c.endswith(":"):
            out.append(c)
    return out


@dataclass
class AtomizationDemo:
    document: str
    claims: list[str]


def load_demos(name: str = "medqa") -> list[AtomizationDemo]:
    """In-context demos from ``textleak/prompts/atomize_demos.json`` (written in-house)."""
    data = load_prompt_json("atomize_demos")
    if name not in data:
        raise KeyError(f"no atomization demos named {name!r}; available: {', '.join(sorted(data))}")
    return [AtomizationDemo(d["document"], list(d["claims"])) for d in data[name]]


@atomizers.register("llm")
class LLMAtomizer(UsesLLM, Atomizer):
    """Seed 000 appendix C.1 atomization with any :class:`~textleak.llm.LanguageModel`.

    The prompt is a chat: for each demo a user turn (instruction + demo document) and an assistant
    turn listing the demo's claims, then a user turn with the instruction and the target record
    (the release joins the same turns with ``[INST]`` markers; explicit messages are portable).

    Records longer than ``max_chars`` (a proxy for the model's context) are atomized in consecutive
    chunks of whole sentences and the claims concatenated: the documented policy for long records.
    A reply with no parsable claim, or a refusal ("I'm sorry, but I can't ...", recognised by
    :mod:`textleak.llm.refusals`: its lines must never become claims), is retried once with sampling
    (``retry_temperature``) and then falls back to :class:`RuleAtomizer` for that record, logged as a
    warning (a record without claims would silently leave the evaluation). Such replies are never
    cached, and the records of the last call that fell back are in ``last_failed`` (the claims cache
    skips them, so a rerun against a working model asks again); ``fallbacks`` and ``refusals`` count
    them.
    """

    name = "llm"
    VERSION = "1"
    needs_llm = True

    def __init__(
        self,
        llm: Any = "embedded",
        demos: str = "medqa",
        n_demos: int = 1,
        max_new_tokens: int = 512,
        temperature: float = 0.0,
        max_chars: int = 6000,
        retry_temperature: float = 0.7,
    ):
        self.llm = llm
        self.demos = demos
        self.n_demos = n_demos
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.max_chars = max_chars
        self.retry_temperature = retry_temperature
        self.fallbacks = 0
        self.refusals = 0
        self.last_failed: set[int] = set()

    def instruction(self) -> str:
        return load_prompt("atomize")

    def build_messages(self, text: str) -> list[dict[str, str]]:
        instruction = self.instruction()
        msgs: list[dict[str, str]] = []
        for demo in load_demos(self.demos)[: self.n_demos]:
            msgs.append({"role": "user", "content": f"{instruction}\n\n{demo.document}"})
            listed = "\n".join(f"{i}. {c}" for i, c in enumerate(demo.claims, 1))
            msgs.append({"role": "assistant", "content": f"Here are the atomic, independent claims broken down into individual lines:\n{listed}"})
        msgs.append({"role": "user", "content": f"{instruction}\n\n{text}"})
        return msgs

    def _chunks(self, text: str) -> list[str]:
        if len(text) <= self.max_chars:
            return [text]
        chunks, buf = [], ""
        for s in split_sentences(text):
            if buf and len(buf) + 1 + len(s) > self.max_chars:
                chunks.append(buf)
                buf = ""
            buf = f"{buf} {s}".strip()
        if buf:
            chunks.append(buf)
        return chunks

    def atomize(self, texts: Sequence[str], seeds: Sequence[int] | None = None) -> list[list[str]]:
        seeds = list(seeds) if seeds is not None else list(range(len(texts)))
        jobs: list[tuple[int, str, int]] = []
        for i, (t, s) in enumerate(zip(texts, seeds)):
            if t and t.strip():
                jobs.extend((i, c, s) for c in self._chunks(t))
        out: list[list[str]] = [[] for _ in texts]
        self.last_failed = set()
        if not jobs:
            return out

        def usable(reply: str | None) -> list[str]:
            return [] if is_refusal(reply) else parse_claims(reply)

        accept = lambda _j, samples: bool(usable(samples[0]))  # noqa: E731  (refusals and unparsed replies: not cached)
        replies = self.lm.generate([self.build_messages(c) for _, c, _ in jobs], max_new_tokens=self.max_new_tokens,
                                   temperature=self.temperature, seed=[s for _, _, s in jobs], on_error="none", accept=accept)
        failed = []
        for j, ((i, chunk, s), reply) in enumerate(zip(jobs, replies)):
            claims = usable(reply[0])
            if claims:
                out[i].extend(claims)
            else:
                failed.append(j)
        if failed:
            retry = self.lm.generate([self.build_messages(jobs[j][1]) for j in failed], max_new_tokens=self.max_new_tokens,
                                     temperature=self.retry_temperature, seed=[jobs[j][2] + 1 for j in failed], on_error="none",
                                     accept=accept)
            rules = RuleAtomizer()
            for j, reply in zip(failed, retry):
                i, chunk, _ = jobs[j]
                claims = usable(reply[0])
                if not claims:
                    self.fallbacks += 1
                    self.last_failed.add(i)
                    if is_refusal(reply[0]) or is_refusal(replies[j][0]):
                        self.refusals += 1
                        logger.warning("atomizer: the LLM refused to atomize record %d (twice); using the rule atomizer for it", i)
                    else:
                        logger.warning("atomizer: no claims parsed for record %d after a retry; using the rule atomizer for it", i)
                    claims = rules.atomize_one(chunk)
                out[i].extend(claims)
        return out

    def describe(self) -> dict[str, Any]:
        lm = self.llm if isinstance(self.llm, str) else None
        model = lm if lm is not None else getattr(self.llm, "describe", lambda: {"model": repr(self.llm)})()
        return {"name": self.name, "version": self.VERSION, "llm": model, "demos": self.demos, "n_demos": self.n_demos,
                "max_new_tokens": self.max_new_tokens, "temperature": self.temperature, "max_chars": self.max_chars,
                "prompt_hash": content_hash(self.instruction())[:16]}
