"""WildChat conversations in the project's schema, the 21 task categories of seed 000 (appendix
C.6.2), and the summarisation step seed 000 runs before atomizing a conversation (appendix A.1.1).

Schema: ``id``, ``text`` (the user's side: the private part a sanitizer rewrites), ``response`` (the
chatbot's side), ``pii_units`` (annotated PII strings, PUPA only), ``pii_category`` (PUPA's
*privacy* category, e.g. "healthcare information"; not a task category), ``redacted_text``
(PUPA's redacted query), ``task_category`` (one of :data:`WILDCHAT_CATEGORIES` when the source has
it, else None; :func:`textleak.utility.classify_tasks` fills it).

Layouts read: PUPA (``conversation_hash, predicted_category, user_query, target_response, pii_units,
redacted_query``; Hub ``Columbia-NLP/PUPA``), WildChat-1M (``conversation_hash``, ``conversation``
as a list of ``{role, content}`` turns; Hub ``allenai/WildChat-1M``), and plain ``id, text[, response]``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Sequence

import datasets

from textleak.data._builder import TextleakBuilder, TextleakConfig
from textleak.prompts import load_prompt, load_prompt_json

logger = logging.getLogger(__name__)


# seed 000, appendix C.6.2, in the paper's order
WILDCHAT_CATEGORIES: tuple[str, ...] = (
    "summarization",
    "model jailbreaking (e.g. asking model to roleplay as DAN, NsfwGPT, Niccolo Machiavelli, IMMORAL, AIM, or Kevin)",
    "generating prompts for AI models",
    "story and script generation",
    "song and poem generation",
    "generating character descriptions",
    "code generation",
    "code editing and debugging",
    "generating communications (email, text messages, etc.)",
    "generating non-fictional documents (resumes, essays, etc.)",
    "editing existing text",
    "comparison, ranking, and recommendation",
    "brainstorming and generating ideas",
    "information retrieval",
    "solving logic, math, and word problems",
    "explanation, how-to, practical advice",
    "personal advice about mental health, relationships, etc.",
    "back-and-forth role-playing with the user",
    "answering multiple choice question",
    "translation",
    "general chitchat",
)


def category_short_name(category: str) -> str:
    """The category name without its parenthesised examples ("code generation")."""
    return category.split("(")[0].strip()


def _turn_text(content: Any) -> str:
    return content if isinstance(content, str) else ("" if content is None else str(content))


class WildChat(TextleakBuilder):
    """WildChat-derived conversations. Configs: ``pupa_tnb`` (default; PUPA's 237 WildChat queries with
    PII annotations, Hub ``Columbia-NLP/PUPA`` file ``PUPA_TNB.csv``), ``wildchat_1m`` (Hub
    ``allenai/WildChat-1M``: the user turns of each conversation become ``text``), ``fixture``."""

    NAME = "wildchat"
    VERSION = datasets.Version("1.0.0")
    DESCRIPTION = "WildChat user-chatbot conversations; text = the user's side."
    HOMEPAGE = "https://huggingface.co/datasets/allenai/WildChat-1M"
    LICENSE = "ODC-BY (WildChat); MIT (PUPA)"
    CITATION = "Zhao et al. 2024, WildChat: 1M ChatGPT interaction logs in the wild; Li et al. 2025, PAPILLON (PUPA)."
    BUILDER_CONFIGS = [
        TextleakConfig(name="pupa_tnb", version=VERSION, hub_repo="Columbia-NLP/PUPA",
                       hub_data_files={"train": "PUPA_TNB.csv"},
                       description="PUPA TNB: WildChat user queries with PII units and redactions"),
        TextleakConfig(name="wildchat_1m", version=VERSION, hub_repo="allenai/WildChat-1M",
                       description="WildChat-1M conversations (user turns as text)"),
        TextleakConfig(name="fixture", version=VERSION, source="fixture",
                       description="10 invented conversations in the PUPA layout, for tests and demos"),
    ]
    DEFAULT_CONFIG_NAME = "pupa_tnb"
    FIXTURES = {"train": "wildchat_pupa.csv"}
    LOCAL_PATTERNS = {"train": ["PUPA_TNB.csv", "*.csv", "*.jsonl", "*.parquet"]}
    HUB_SPLITS = {"train": "train"}
    # PUPA lists several queries of one conversation under the same hash: they become "<hash>#1", ...
    DUPLICATE_ID_POLICY = "suffix"

    def _features(self) -> datasets.Features:
        return datasets.Features({
            "id": datasets.Value("string"),
            "text": datasets.Value("string"),
            "response": datasets.Value("string"),
            "pii_units": datasets.Sequence(datasets.Value("string")),
            "pii_category": datasets.Value("string"),
            "redacted_text": datasets.Value("string"),
            "task_category": datasets.Value("string"),
        })

    def to_record(self, raw: dict[str, Any], index: int, split: str) -> dict[str, Any]:
        rid = raw.get("conversation_hash") or raw.get("id") or f"{split}-{index}"
        task = raw.get("task_category")
        if task is not None and task not in WILDCHAT_CATEGORIES:
            raise ValueError(f"record {rid}: task_category {task!r} is not one of the 21 categories")
        base = {"id": str(rid), "pii_units": [], "pii_category": None, "redacted_text": None, "task_category": task}
        if "user_query" in raw:  # PUPA
            units = raw.get("pii_units") or ""
            return {**base, "text": _turn_text(raw["user_query"]), "response": _turn_text(raw.get("target_response")),
                    "pii_units": [u for u in str(units).split("||") if u.strip()],
                    "pii_category": raw.get("predicted_category"), "redacted_text": raw.get("redacted_query")}
        if "conversation" in raw:  # WildChat-1M
            turns = raw["conversation"]
            if isinstance(turns, str):
                turns = json.loads(turns)
            user = [_turn_text(t.get("content")) for t in turns if t.get("role") == "user"]
            bot = [_turn_text(t.get("content")) for t in turns if t.get("role") == "assistant"]
            if not user:
                raise ValueError(f"conversation {rid} has no user turn")
            return {**base, "text": "\n\n".join(user), "response": "\n\n".join(bot)}
        if "text" in raw:
            return {**base, "text": _turn_text(raw["text"]), "response": _turn_text(raw.get("response"))}
        raise KeyError(f"record {rid}: no 'user_query', 'conversation' or 'text' column (columns: {sorted(raw)})")


# ---- summarisation before atomization (seed 000, appendix A.1.1) ------------------------------------
def summary_messages(user_text: str, response: str | None = None, max_chars: int = 5000) -> list[dict[str, str]]:
    """The one-shot chat prompt that summarises a conversation, keeping the user's own phrasing and
    the chatbot's reply only where it helps (the instruction and demo are in
    ``textleak/prompts/wildchat_summary*.txt``)."""
    instruction = load_prompt("wildchat_summary")
    demo = load_prompt_json("wildchat_summary_demo")

    def render(user: str, bot: str | None) -> str:
        conv = f"User: {user.strip()}"
        if bot:
            conv += f"\nChatbot: {bot.strip()}"
        return f"{instruction}\n\nConversation:\n{conv[:max_chars]}"

    return [
        {"role": "user", "content": render(demo["user"], demo["response"])},
        {"role": "assistant", "content": demo["summary"]},
        {"role": "user", "content": render(user_text, response)},
    ]


def summarize_conversations(llm: Any, texts: Sequence[str], responses: Sequence[str | None] | None = None,
                            max_new_tokens: int = 256, seed: int = 0) -> list[str | None]:
    """One summary per conversation (greedy; cached by the LLM layer). A failed generation is None,
    never the unsummarised text, so the caller sees and counts it."""
    from textleak.llm import load_llm

    lm = load_llm(llm)
    responses = list(responses) if responses is not None else [None] * len(texts)
    if len(responses) != len(texts):
        raise ValueError(f"{len(responses)} responses for {len(texts)} conversations")
    prompts = [summary_messages(t, r) for t, r in zip(texts, responses)]
    outs = lm.generate(prompts, max_new_tokens=max_new_tokens, seed=[seed + i for i in range(len(prompts))],
                       on_error="none")
    result = []
    for i, out in enumerate(outs):
        text = (out[0] or "").strip() if out and out[0] is not None else None
        if not text:
            logger.warning("conversation %d: empty or failed summary", i)
            text = None
        result.append(text)
    return result
