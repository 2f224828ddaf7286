"""Answers that open with an apology and then do the task are not refusals (issue 27, "Done means": at least
40 answers that merely start with an apology). Each would be lost if taken for a refusal: the sanitizers'
old pattern (``^I'm sorry|Sorry, I|...``) failed every one opening "I'm sorry" or "Sorry, I", releasing the
record unsanitized. One set per component's answer format (sanitizer '#' answers, numbered claims, the
judge's ratings, paraphrases) and eleven other languages."""

from __future__ import annotations

import re

import pytest

from textleak.llm.refusals import refusal_match
from textleak.sanitize.llm import STATUS_OK, resolve_hash_answer

APOLOGY_STARTS = [
    # sanitizer answers (the C.2.1 format: notes, a '#' line, the rewritten text)
    "I'm sorry for the earlier mistake.\n#\nA woman in her 30s presents with a fever and a cough.",
    "Sorry, I missed a name in my first attempt; here it is again.\n#\nA patient from a large city reports chest pain.",
    "I apologize for the oversight. I generalised the age and removed the city.\n#\nAn adult reports headaches.",
    "Apologies, the previous version kept the hospital's name. Corrected:\n#\nA man was admitted to a local hospital.",
    "My apologies for the inconsistency; the corrected text is below.\n#\nAn older adult reports falls at home.",
    "Sorry about the formatting last time.\n#\nA middle-aged teacher has back pain and runs long distances.",
    "I'm sorry, I should have removed the date too. Updated version:\n#\nThe patient had surgery some years ago.",
    "I'm so sorry for the delay! Here you go:\n#\nA young adult reports insomnia after military service abroad.",
    "I'm sorry if this changes the meaning slightly, but I generalised the occupation.\n#\nA healthcare worker has a fever.",
    "Sorry, one more pass was needed to remove the street name.\n#\nA farmer living near a city has a rash on his arm.",
    "I apologise for the length of my notes. Changes: age -> range, city -> region.\n#\nA woman in her 40s from northern England.",
    "I apologize in advance for the vague wording; it is intentional.\n#\nAn adult with a chronic condition takes medication.",
    "Apologies for any confusion. I kept the medical facts and removed identifiers.\n#\nA chef with burns on both hands has asthma.",
    "I'm sorry, I can only generalise the age, not remove it, without changing the clinical picture.\n#\nA patient in their 60s has chest pain.",
    "Sorry, I couldn't find any other identifiers; only the name was replaced.\n#\nThe patient reports a persistent cough.",
    "I'm sorry, I can't be sure the nickname is a name, so I removed it to be safe.\n#\nA student reports headaches.",
    # atomizer answers (numbered claims)
    "Sorry for the wait. The claims are:\n1. The patient is 34 years old.\n2. The patient works as a nurse.",
    "I apologize for the previous incomplete list. Here are all the claims:\n1. The patient lives in Leeds.\n2. The patient has a cough.",
    "I'm sorry, I split the sentence differently this time:\n1. The patient smokes.\n2. The patient smokes two packs a day.",
    "Apologies! Claims:\n1. The patient keeps goats.\n2. The patient is allergic to penicillin.",
    "My apologies, I missed one claim before.\n1. The patient has two cats.\n2. The patient lives alone.",
    "Sorry, the record is short, so there are only two claims.\n1. The patient is 19.\n2. The patient served in Mali.",
    # judge answers (rating format)
    "Sorry for the confusion earlier.\n**Output**:\n- Claim 1 Similarity Rating: 1\n- Claim 2 Similarity Rating: 3",
    "I apologize, I misread claim 2 the first time.\n- Claim 1 Similarity Rating: 2\n- Claim 2 Similarity Rating: 1",
    "I'm sorry, the document is long, so my explanation is brief.\n- Explanation: the age is stated.\n- Claim 1 Similarity Rating: 1",
    "Apologies for the previous format. - Claim 1 Similarity Rating: 3 (Unsupported)",
    # paraphraser answers
    "Sorry, here is a paraphrase that keeps the meaning:\n#\nShe is in her thirties.",
    "I'm sorry, the first paraphrase was too close to the original. A new one:\n#\nHe resides in a Scandinavian capital.",
    "Apologies for repeating myself. Paraphrase: The person has a respiratory illness.",
    # other languages
    "Lo siento por el retraso. Aquí está el texto reescrito:\n#\nUna mujer de unos 30 años tiene fiebre.",
    "Perdón, olvidé quitar la ciudad. Versión corregida:\n#\nUn paciente de una gran ciudad tiene tos.",
    "Désolé, j'avais oublié l'âge. Voici la version corrigée :\n#\nUn adulte présente une toux.",
    "Je suis désolé pour la confusion. Les affirmations sont :\n1. Le patient a 45 ans.\n2. Le patient tousse.",
    "Entschuldigung, ich habe den Namen übersehen. Korrigierte Fassung:\n#\nEine Person mittleren Alters hat Fieber.",
    "Es tut mir leid für die Verzögerung. Hier ist der Text:\n#\nEin Erwachsener mit Rückenschmerzen.",
    "Mi dispiace per l'errore, ecco il testo corretto:\n#\nUn adulto con la tosse da due settimane.",
    "Desculpe pela confusão. O texto reescrito é:\n#\nUm adulto com dor no peito.",
    "Het spijt me voor de vertraging. Hieronder de herschreven tekst:\n#\nEen volwassene met koorts.",
    "Извините за задержку. Вот переписанный текст:\n#\nВзрослый пациент с кашлем.",
    "抱歉，之前漏掉了城市名。修改后的文本：\n#\n一名成年患者咳嗽两周。",
    "对不起，格式有误。以下是声明：\n1. 患者45岁。\n2. 患者咳嗽。",
    "申し訳ありません、年齢を残していました。修正版：\n#\n成人の患者が発熱しています。",
    "죄송합니다, 이름을 놓쳤습니다. 수정된 텍스트:\n#\n성인 환자가 기침을 합니다.",
    "Sorry!\n#\nAn adult has a fever.",
    "I'm sorry.\n#\nA patient in their 50s reports fatigue.",
]

# written independently of the classifier: the apology each answer opens with
APOLOGY = re.compile(r"^(?:I'm (?:so )?sorry|Sorry|I apologi[sz]e|Apologies|My apologies|Lo siento|Perdón|Désolé|"
                     r"Je suis désolé|Entschuldigung|Es tut mir leid|Mi dispiace|Desculpe|Het spijt me|Извините|抱歉|对不起|"
                     r"申し訳ありません|죄송합니다)")


def test_the_set_is_large_every_answer_opens_with_an_apology_and_many_languages_are_in_it():
    assert len(APOLOGY_STARTS) >= 40 and len(set(APOLOGY_STARTS)) == len(APOLOGY_STARTS)
    assert [a for a in APOLOGY_STARTS if not APOLOGY.match(a)] == []
    assert sum(not a.isascii() for a in APOLOGY_STARTS) >= 10


@pytest.mark.parametrize("answer", APOLOGY_STARTS)
def test_an_apology_that_does_the_task_is_not_a_refusal(answer):
    assert refusal_match(answer) is None, (answer, refusal_match(answer))


@pytest.mark.parametrize("answer", [a for a in APOLOGY_STARTS if "\n#\n" in a])
def test_a_sanitizer_answer_that_apologises_is_released(answer):
    result = resolve_hash_answer(answer)
    assert result.status == STATUS_OK and result.text == answer.split("\n#\n", 1)[1]
