"""A refusal hidden after a compliance phrase is still a refusal; a rewrite that apologises is not."""

from __future__ import annotations

import pytest

from textleak.llm.refusals import is_refusal, refusal_match

HIDDEN = [
    "Here is my answer: I'm sorry, I can't help with that.",
    "Here is my answer. I'm sorry, but I can't assist with this request.",
    "Sure, here's the rewritten text:\n\nI'm sorry, but I cannot fulfill this request.",
    "Here is the result: I cannot comply.",
    "Here is the rewritten text: I'm sorry, but I can't.",
    "**Here is my response:** As an AI language model, I cannot rewrite medical records.",
    "Below is my reply: Unfortunately, I am not able to do that.",
    # in the record's language (these were released as sanitized records: the rule read English only there)
    "Aquí está mi respuesta: Lo siento, pero no puedo ayudar con eso.",
    "Voici ma réponse : Je suis désolé, mais je ne peux pas vous aider avec cette demande.",
    "Hier ist meine Antwort: Es tut mir leid, aber ich kann Ihnen dabei nicht helfen.",
    "以下是我的回答：抱歉，我无法完成这个请求。",
]
REWRITES = [  # the rewrite follows the compliance phrase; an apology or "can't" in it is the record's
    "Here is the rewritten text: I'm sorry, doctor, I can't sleep at night and I feel tired all day.",
    "Here is the anonymized record: The patient said sorry for being late. I can't help with that, he added.",
    "Here is the rewritten text: Sorry to bother you, but my knee hurts when I climb stairs.",
    "Here is the text: I'm sorry, but I cannot help you with your homework, said the tutor to the student.",
    "Here is the paraphrase: A woman in her 30s is sorry she missed her appointment and cannot attend next week.",
    "Aquí está el texto reescrito: Mi madre no puede dormir y se siente cansada todo el día.",
    "Voici le texte réécrit : La patiente ne peut pas marcher depuis trois jours.",
    "Hier ist der umgeschriebene Text: Der Patient kann seit drei Tagen nicht schlafen.",
]


@pytest.mark.parametrize("text", HIDDEN)
def test_a_decline_right_after_a_compliance_phrase_is_a_refusal(text):
    """Before: the decline came after 'here is', so the rule never read it and the answer was released."""
    assert is_refusal(text), text


@pytest.mark.parametrize("text", REWRITES)
def test_a_rewrite_that_merely_apologises_is_not_a_refusal(text):
    assert refusal_match(text) is None, (text, refusal_match(text))
