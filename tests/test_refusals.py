"""The shared refusal classifier (textleak.llm.refusals) and its use by every LLM component (issue 27, items 5-6).

Refusals must be recognised in many phrasings and languages; answers that merely apologise, or rewritten
records whose own words hold "I'm sorry" or "I can't", must not be taken for refusals.
"""

from __future__ import annotations

import pytest

from textleak.llm.refusals import is_refusal, refusal_match

REFUSALS = [
    "I'm sorry, but I can't help with that.",
    "I'm sorry, but I cannot assist with this request.",
    "I apologize, but I cannot rewrite this medical record as it contains sensitive personal information.",
    "I apologise, but I'm unable to anonymize this text.",
    "Unfortunately, I cannot fulfill this request.",
    "Unfortunately, I am not able to process documents containing patient data.",
    "As a language model, I must decline to rewrite personal medical information.",
    "As an AI language model, I cannot provide a rewritten version of this text.",
    "As an AI, I don't have the ability to process private records.",
    "I won't be able to help you with this one.",
    "I will not be able to complete this task.",
    "I must respectfully decline.",
    "I must decline this request.",
    "I'm afraid I can't do that.",
    "Sorry, I can't do that.",
    "Sorry, but I can't assist with that request.",
    "I cannot comply with this request because it involves private health information.",
    "I'm not able to help with that.",
    "I am unable to provide the requested anonymization.",
    "This request goes against my guidelines on handling personal data.",
    "Rewriting this would violate my content policy.",
    "That is not something I can help with.",
    "I'm not comfortable with rewriting private medical details.",
    "I refuse to process this record.",
    "Thank you for your message. Unfortunately, I cannot break down this record into claims as it contains private data.",
    "**I'm sorry, but I can't help with that request.**",
    "> I'm sorry, I cannot rate these claims.",
    "I'm sorry...\nI can't assist with medical records.\nThey hold private data.\nPlease ask a professional.",
    "I understand your request. However, I won't rewrite this text.",
    "Regrettably, I'm not in a position to rewrite this document.",
    # Spanish
    "Lo siento, pero no puedo ayudar con eso.",
    "Lo siento, no puedo cumplir con esta solicitud.",
    "Desafortunadamente, no me es posible procesar este registro médico.",
    "Debo rechazar esta solicitud.",
    # French
    "Je suis désolé, mais je ne peux pas vous aider avec cela.",
    "Je ne peux pas répondre à cette demande.",
    "Je dois refuser cette demande, car elle contient des données personnelles.",
    # German
    "Es tut mir leid, aber ich kann Ihnen dabei nicht helfen.",
    "Ich kann diese Anfrage leider nicht erfüllen.",
    "Ich bin leider nicht in der Lage, diesen Text umzuschreiben.",
    # Italian, Portuguese, Dutch, Russian
    "Mi dispiace, ma non posso aiutarti con questo.",
    "Desculpe, mas não posso ajudar com isso.",
    "Het spijt me, maar ik kan je daar niet mee helpen.",
    "Извините, но я не могу помочь с этим.",
    # Chinese, Japanese, Korean
    "抱歉，我无法帮助您完成这个请求。",
    "对不起，我不能提供这些信息。",
    "很抱歉，我必须拒绝这个请求。",
    "申し訳ありませんが、そのリクエストにはお応えできません。",
    "죄송하지만 도와드릴 수 없습니다.",
]

NOT_REFUSALS = [
    "Sorry for the delay, here is the rewritten text: A middle-aged patient presents with chest pain.",
    "I'm sorry for the confusion earlier. Here is the anonymized version:\n#\nA patient in their 40s reports fatigue.",
    "I apologize for the formatting. Below is the rewritten record.\n#\nAn adult presents with a cough.",
    "Apologies for the wait! The anonymized text is: A person from a large city has a rash.",
    "Sorry about that, here's the corrected paraphrase: The patient has a fever.",
    "I'm sorry, I misread the first time. Here are the claims:\n1. The patient is 45.\n2. The patient has a cough.",
    "Sorry! Sure, here you go: An adult visited the clinic with knee pain.",
    "I apologize for any inconvenience. As requested, the text without identifiers follows: A woman in her 30s has a headache.",
    "The patient said, \"I'm sorry, doctor, I can't sleep at night.\" She reports insomnia for two weeks.",
    "\"I'm sorry to bother you,\" the patient begins, \"but I cannot stop coughing.\" Exam shows wheezing.",
    "I'm sorry, I can't remember when the pain started, the patient says. Vital signs are normal.",
    "A man in his 50s apologizes repeatedly: \"I'm so sorry, I couldn't take my pills.\" He is confused.",
    "I'm sorry to say my mother's cancer came back, and I can't stop thinking about it.",
    "Sorry, I can't make it to my appointment because my car broke down; can I reschedule for next week?",
    "Sorry I can't sleep, I keep thinking about my exams and it makes me anxious.",
    "I'm sorry, but I cannot eat anything without vomiting, says the patient.",
    "Unfortunately, the patient cannot walk without assistance after the fall.",
    "Unfortunately the lab results were delayed; the patient's potassium is 3.1 mmol/L.",
    "The patient is unable to bend her knee and cannot climb stairs.",
    "He will not be able to return to work for six weeks.",
    "She refuses to eat and declines further testing.",
    "The patient declined the vaccine.",
    "1. The patient is sorry about missing the appointment.\n2. The patient has diabetes.",
    "- Claim 1 Similarity Rating: 3 (Unsupported)\n- Claim 2 Similarity Rating: 1 (Same Information)",
    "**Output**:\n- Explanation: the document does not mention the age. I'm sorry the claim is vague.\n- Claim 1 Similarity Rating: 3",
    "As an adult patient with asthma, she uses an inhaler daily.",
    "As a teacher, I can't help worrying about my students' privacy.",
    "Here is the text: I'm sorry, but I cannot help you with your homework, said the tutor to the student.",
    "#\nA patient apologises: 'Sorry, I can't recall my medication names.'",
    "Sorry for the late reply! Here is the anonymized record.",
    # Spanish, French, German, Italian, Portuguese
    "Perdón por la demora, aquí está el texto reescrito: Un paciente adulto con tos.",
    "Lo siento, no puedo dormir bien desde hace semanas, dice la paciente.",
    "Désolé pour le retard, voici le texte réécrit : Un adulte présente une toux.",
    "Je suis désolée, je ne peux pas dormir la nuit, explique la patiente.",
    "Entschuldigung für die Verzögerung, hier ist der umgeschriebene Text: Ein Erwachsener mit Husten.",
    "Es tut mir leid, ich kann nachts nicht schlafen, sagt der Patient.",
    "Scusa il ritardo, ecco il testo riscritto: Un adulto con la tosse.",
    "Desculpe a demora, aqui está o texto reescrito: Um adulto com tosse.",
    # Chinese, Japanese
    "抱歉久等了，以下是改写后的文本：一名成年患者咳嗽两周。",
    "对不起，我晚上睡不着，患者说。",
    "遅れて申し訳ありません。以下は書き換えたテキストです：成人の患者が咳をしています。",
    "The patient, sorry for being late, reports chest pain radiating to the left arm.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_are_recognised(text):
    assert is_refusal(text), text


@pytest.mark.parametrize("text", NOT_REFUSALS)
def test_apologies_that_do_the_task_are_not_refusals(text):
    assert refusal_match(text) is None, (text, refusal_match(text))


def test_the_sets_are_large_and_multilingual():
    assert len(REFUSALS) >= 40 and len(NOT_REFUSALS) >= 40
    non_english = [t for t in REFUSALS if not t.isascii()]
    assert len(non_english) >= 10


def test_empty_and_none_are_not_refusals():
    assert not is_refusal(None) and not is_refusal("") and not is_refusal("   ")


def test_only_the_opening_is_read():
    record = "A patient in her 40s presents with chest pain. " * 20 + "I'm sorry, but I can't help with that."
    assert not is_refusal(record)


@pytest.mark.parametrize("text", [
    "I refuse to go to school tomorrow because of the bullies.",
    "I declined the job offer last week and now I regret it.",
    "I can't help feeling anxious before exams.",
    "We will not be able to travel this summer because of my surgery.",
])
def test_first_person_records_are_not_refusals(text):
    assert not is_refusal(text)


@pytest.mark.parametrize("text", [
    "The patient is unable to complete full sentences and cannot answer questions about his history.",
    "She cannot give a reliable history; her son is unable to provide the medication list.",
    "- Explanation: the age cannot be evaluated from the text.\n- Claim 1 Similarity Rating: 3",
    "The diagnosis could not be determined and cannot be confirmed without imaging.",
])
def test_third_person_and_passive_inability_is_not_a_refusal(text):
    assert not is_refusal(text)
