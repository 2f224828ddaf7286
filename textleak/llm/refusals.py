"""The one refusal classifier every LLM component uses (atomizer, judge, sanitizers, paraphraser).

A *refusal* is an answer that declines the task ("I'm sorry, but I can't help with that", "As a
language model, I must decline", "Lo siento, pero no puedo ayudar con eso", "抱歉，我无法完成这个请求")
instead of doing it. Such an answer must never be used as output: a refusal taken for a sanitized
record, a list of claims, a paraphrase or a rating would move the privacy number away from leakage.
Components treat it as a failure, count it, and keep it out of the cache (their ``accept`` predicate
for :meth:`~textleak.llm.base.LanguageModel.generate` calls :func:`is_refusal`), so a rerun asks again.

The rule, applied to the opening of the answer (its first :data:`HEAD_CHARS` characters, markdown
and quotes removed): a *decline* -- an inability or unwillingness aimed at the task ("cannot
help/assist/comply/provide/rewrite ...", "must decline", "won't be able to", "goes against my
guidelines", "as an AI ... cannot") in English, Spanish, French, German, Italian, Portuguese, Dutch,
Russian, Chinese, Japanese or Korean -- that comes before any sign of compliance ("here is",
"below is", "aquí está", "voici", "hier ist", "以下是" ...), or a decline in the first sentence such a phrase
introduces ("Here is my answer: I'm sorry, I can't help with that."; in English only a decline of the request
itself, in the other languages any first-person decline of a task verb). An apology alone is not a refusal
("Sorry for the delay, here is the rewritten text: ..."), and neither is "I can't" about something
that is not the task ("I'm sorry, doctor, I can't sleep" in a rewritten record). When in doubt the
rule leans toward "refusal": a false refusal costs a retry or counts the record as released
unsanitized, a missed one would count a refusal as privacy. Known limit: a record written in the
first person that says the writer cannot do one of the task verbs ("I can't answer my emails") at
its very start reads as a refusal (toward leakage: that record fails).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["HEAD_CHARS", "is_refusal", "refusal_match"]

#: How much of the answer's opening is read: refusals say so first.
HEAD_CHARS = 400

_EN_TASK = (
    r"(?:help(?:ing)?(?:\s+you)?(?:\s+(?:with|on|here|further))|help(?:ing)?\s+you\b|assist(?!an)|compl(?:y|ying)|fulfil|provid|complet|perform|"
    r"carry(?:ing)?\s+out|process|rewrit|re-writ|anonymi[sz]|saniti[sz]|paraphras|rephras|generat|creat|produc|shar(?:e|ing)\b|"
    r"disclos|continu|proceed|engag|support(?:ing)?\s+(?:this|that|you)|answer|respond|handl|modif|edit|alter|work(?:ing)?\s+on|"
    r"do(?:ing)?\s+(?:that|this|so|it|what\s+you)\b(?=\s*(?:[.,;:!?]|for\s+you|$))|do\s+(?:that|this)\s+(?:request|task)|"
    r"(?:this|that|the|your)\s+(?:request|task|query|instruction)|break(?:ing)?\s+(?:down|up)|extract|list(?:ing)?\b|rat(?:e|ing)\b|"
    r"evaluat|giv(?:e|ing)\s+(?:you|a|an|the)|offer|accommodat|grant|satisf|go(?:ing)?\s+along)"
)
_EN_INABILITY = (
    r"(?:(?:won(?:'|’)?t|will\s+not)\s+be\s+able\s+to|can(?:'|’)?t|cannot|can\s+not|could\s+not|couldn(?:'|’)?t|won(?:'|’)?t|"
    r"will\s+not|(?:am\s+|'m\s+|’m\s+)?(?:not\s+)?unable\s+to|(?:am\s+|'m\s+|’m\s+)?not\s+(?:able|allowed|permitted|authori[sz]ed|going|"
    r"in\s+a\s+position|comfortable)\s+(?:to|with)|must\s+(?:respectfully\s+|politely\s+)?(?:decline|refuse)\s+to|"
    r"(?:have|need)\s+to\s+(?:respectfully\s+)?decline\s+to|(?:decline|refuse)\s+to|do\s+not\s+feel\s+comfortable|"
    r"don(?:'|’)?t\s+feel\s+comfortable)"
)
# the speaker declines: a first-person subject, a few words at most before the inability ("I'm afraid I can't",
# "Unfortunately, I am not able to"), so "the patient cannot answer questions" in a record is not a refusal
_EN_SUBJECT = r"\b(?:I|we)(?:\s*(?:'|’)\s*(?:m|ll|d|ve|re))?\s+(?:[\w’']+\s+){0,3}?"
# "cannot be evaluated", "could not be determined": passive, about the text, not a refusal; "won't be
# anonymizing", "will not be providing": progressive, a refusal
_EN_GAP = r"\W+(?:be\s+(?=\w+ing\b)|(?!(?:be|been|have\s+been)\b))(?:\w+\W+){0,3}?"
_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("en", re.compile(_EN_SUBJECT + _EN_INABILITY + _EN_GAP + _EN_TASK, re.IGNORECASE)),
    ("en", re.compile(r"\b(?:is\s+not|isn(?:'|’)?t|not)\s+something\s+(?:that\s+)?I(?:\s+am|'m|’m)?\s+(?:can|able|allowed|willing|could)\b", re.IGNORECASE)),
    ("en", re.compile(r"\b(?:I|we)\s+(?:(?:must|have\s+to|need\s+to|will|am\s+going\s+to|'m\s+going\s+to)\s+)?(?:respectfully\s+|politely\s+)?"
                      r"(?:decline|refuse)(?:\s*(?:[.!,;]|$)|\s+(?:this|that|your|the\s+(?:request|task)|it\b))", re.IGNORECASE)),
    ("en", re.compile(r"\b(?:can(?:'|’)?t|cannot|won(?:'|’)?t|will\s+not|unable\s+to)\s+(?:do|help\s+with)\s+(?:that|this)\s*(?:[.!]|$)", re.IGNORECASE)),
    # a bare inability that ends the sentence: "I'm sorry, I can't.", "No, I will not." (the old sanitizer pattern
    # caught these by their apology; a missed one is released as a record that leaks nothing)
    ("en", re.compile(r"\b(?:I|we)(?:\s*(?:'|’)\s*(?:m|ll|d))?\s+(?:can(?:'|’)?t|cannot|can\s+not|won(?:'|’)?t|will\s+not)\s*(?:[.!]|$)",
                      re.IGNORECASE)),
    ("en", re.compile(r"\b(?:goes|go|is|are|would\s+be)\s+against\s+(?:my|our|the|OpenAI(?:'|’)s)\s+(?:\w+\s+){0,2}?"
                      r"(?:guidelines|policies|policy|programming|principles|rules|terms|values|ethic)", re.IGNORECASE)),
    ("en", re.compile(r"\b(?:violates?|breach(?:es)?)\s+(?:my|our|the)\s+(?:\w+\s+){0,2}?(?:guidelines|policies|policy|principles|rules|terms)", re.IGNORECASE)),
    ("en", re.compile(r"^\W*as\s+an?\s+(?:AI|artificial\s+intelligence|(?:AI\s+)?language\s+model|(?:AI\s+)?assistant|LLM|large\s+language\s+model)\b"
                      r"[^.!?\n]{0,120}?\b(?:can(?:'|’)?t|cannot|can\s+not|unable|not\s+able|must|won(?:'|’)?t|do\s+not|don(?:'|’)?t|shouldn(?:'|’)?t|should\s+not|not\s+(?:allowed|permitted))\b",
                      re.IGNORECASE)),
    ("en", re.compile(r"\b(?:I(?:'|’)?m|I\s+am)\s+(?:not\s+)?(?:programmed|designed)\s+(?:not\s+)?to\s+(?:not\s+)?(?:refuse|decline|avoid|assist|help|handle)", re.IGNORECASE)),
    # Spanish
    ("es", re.compile(r"\bno\s+(?:puedo|podré|podría|me\s+es\s+posible|estoy\s+en\s+(?:condiciones|posición)\s+de|estoy\s+autorizad[oa]\s+(?:a|para)|voy\s+a)\s+"
                      r"(?:\w+\s+){0,2}?(?:ayud|asist|cumplir|proporcion|realizar|complet|hacer\s+(?:eso|esto|lo\s+que)|procesar|reescribir|anonimizar|"
                      r"parafrasear|respond|atender|generar|compartir|satisfacer|continuar|llevar\s+a\s+cabo|ofrec|facilit|dar)", re.IGNORECASE)),
    ("es", re.compile(r"\b(?:debo|tengo\s+que)\s+(?:\w+\s+)?(?:rechazar|negarme|declinar)|\bme\s+niego\s+a\b|\bno\s+es\s+posible\s+(?:ayud|cumplir|atender)", re.IGNORECASE)),
    # French
    ("fr", re.compile(r"\bje\s+ne\s+(?:peux|pourrai|pourrais|suis\s+pas\s+en\s+mesure\s+d|suis\s+pas\s+autoris[ée]+\s+à|vais)\s*(?:pas\s+|point\s+)?(?:\w+\s+){0,2}?"
                      r"(?:aider|vous\s+aider|t'aider|répondre|fournir|traiter|accomplir|réaliser|effectuer|satisfaire|réécrire|anonymiser|paraphraser|"
                      r"donner\s+suite|faire\s+(?:cela|ça|ceci)|générer|partager|accéder|exécuter|assister|compléter|proposer|continuer)", re.IGNORECASE)),
    ("fr", re.compile(r"\bje\s+dois\s+(?:\w+\s+)?(?:refuser|décliner)|\bje\s+refuse\s+de\b|\bil\s+m'est\s+impossible\s+de\b", re.IGNORECASE)),
    # German
    ("de", re.compile(r"\bich\s+(?:kann|darf|werde|könnte)\s+(?:\w+\s+){0,5}?nicht\s+(?:\w+\s+){0,3}?(?:helfen|nachkommen|erfüllen|bereitstellen|"
                      r"bearbeiten|umschreiben|anonymisieren|paraphrasieren|ausführen|durchführen|beantworten|liefern|erstellen|teilen|unterstützen|"
                      r"entsprechen|machen|tun|vornehmen|verarbeiten|geben)", re.IGNORECASE)),
    ("de", re.compile(r"\bich\s+bin\s+(?:\w+\s+){0,2}?nicht\s+in\s+der\s+lage|\bich\s+muss\s+(?:\w+\s+){0,3}?ablehnen|\bes\s+ist\s+mir\s+(?:\w+\s+)?nicht\s+möglich|"
                      r"\bich\s+lehne\s+(?:\w+\s+){0,3}?ab\b", re.IGNORECASE)),
    # Italian
    ("it", re.compile(r"\bnon\s+(?:posso|potrò|sono\s+in\s+grado\s+di|mi\s+è\s+possibile|sono\s+autorizzat[oa]\s+a)\s+(?:\w+\s+){0,2}?"
                      r"(?:aiut|assist|soddisf|fornire|complet|eseguire|elabor|riscrivere|anonimizzare|parafrasare|rispondere|generare|condividere|"
                      r"fare\s+(?:ciò|questo|quello)|procedere|esaudire)", re.IGNORECASE)),
    ("it", re.compile(r"\bdevo\s+(?:\w+\s+)?(?:rifiutare|declinare)|\bmi\s+rifiuto\s+di\b", re.IGNORECASE)),
    # Portuguese
    ("pt", re.compile(r"\bnão\s+(?:posso|consigo|poderei|sou\s+capaz\s+de|é\s+possível|estou\s+autorizad[oa]\s+a|vou)\s+(?:\w+\s+){0,2}?"
                      r"(?:ajud|atender|cumprir|fornec|complet|realizar|processar|reescrever|anonimizar|parafrasear|respond|gerar|compartilhar|"
                      r"fazer\s+(?:isso|isto)|prosseguir|assistir)", re.IGNORECASE)),
    ("pt", re.compile(r"\bpreciso\s+(?:\w+\s+)?recusar|\bdevo\s+(?:\w+\s+)?recusar", re.IGNORECASE)),
    # Dutch
    ("nl", re.compile(r"\bik\s+(?:kan|mag|zal)\s+(?:\w+\s+){0,4}?niet\s+(?:\w+\s+){0,2}?(?:helpen|voldoen|uitvoeren|verstrekken|herschrijven|anonimiseren|"
                      r"beantwoorden|doen|leveren|verwerken)|\bik\s+moet\s+(?:\w+\s+){0,3}?weigeren", re.IGNORECASE)),
    # Russian
    ("ru", re.compile(r"(?:не\s+могу|не\s+смогу|не\s+в\s+состоянии|не\s+имею\s+права)\s+(?:\w+\s+){0,2}?(?:помочь|помогать|выполнить|предоставить|"
                      r"обработать|ответить|переписать|сделать|анонимизировать|перефразировать|удовлетворить|выполнять)|вынужден[аы]?\s+отказать", re.IGNORECASE)),
    # Chinese
    ("zh", re.compile(r"(?:无法|不能|不可以|没办法|沒辦法|無法|不便|不会|不會|恕难|恕難)\s*(?:为你|为您|為你|為您|帮你|帮您|幫你|幫您|向你|向您|给你|给您|再)?"
                      r"(?:帮助|帮忙|幫助|幫忙|协助|協助|提供|完成|满足|滿足|处理|處理|执行|執行|回答|回应|回應|响应|改写|改寫|重写|重寫|匿名|生成|分享|"
                      r"遵守|照办|照辦|进行|進行|从事|從事|参与|參與|答应|答應)")),
    ("zh", re.compile(r"(?:我|我们|我們)(?:必须|必須|只能|不得不)?(?:拒绝|拒絕)")),
    # Japanese
    ("ja", re.compile(r"(?:お応え|応え|対応|お手伝い|手伝う|お答え|答える|提供|回答|協力|処理|実行|作成|書き換え|匿名化)(?:すること|いたすこと)?(?:は|が)?"
                      r"(?:でき(?:ません|かねます|ない)|いたしかねます|致しかねます|お断り)")),
    # Korean
    ("ko", re.compile(r"(?:도와|도움을|제공|처리|수행|응답|답변|작성|완료|지원)\S*\s*(?:드릴|줄|할|해\s*드릴)\s*수\s*(?:가\s*)?없")),
]

_COMPLIANCE = re.compile(
    r"\b(?:here\s+(?:is|are|'s)|here’s|heres|below\s+(?:is|are)|the\s+following\s+is|as\s+requested|"
    r"(?:the|your|an?)\s+(?:rewritten|re-written|anonymi[sz]ed|sanitized|sanitised|paraphrased|revised|updated|redacted|edited|"
    r"modified|de-identified)\s+(?:text|version|record|note|document|passage|claims?)\s*(?:is|follows|:)|"
    r"aquí\s+(?:está|tienes|tiene|va|van|están)|a\s+continuación|voici|voilà|hier\s+(?:ist|sind|die|der|das)|ecco|aqui\s+está|"
    r"hieronder|вот\b)"
    r"|以下是|如下|下面是|以下は|다음은",
    re.IGNORECASE,
)
_STRIP = re.compile(r"[*_`>#]+|^\W+", re.MULTILINE)
# after a compliance phrase only a decline of the request itself counts, in the first sentence of what it
# introduces ("Here is my answer: I'm sorry, I can't help with that."), not one with another object ("Here is
# the text: I'm sorry, but I cannot help you with your homework, said the tutor."); the other English forms
# (bare "I can't.", "must decline", "against my guidelines", "as an AI ...") count as they are
_AFTER_COMPLIANCE = [re.compile(_EN_SUBJECT + _EN_INABILITY + _EN_GAP + _EN_TASK + r"\w*(?:\s+(?:you\s+)?(?:with\s+|on\s+)?"
                                r"(?:that|this|it|(?:your|this|the)\s+(?:request|task|query))\b)?\s*(?:[.!]|$)", re.IGNORECASE)]
_AFTER_COMPLIANCE += [p for lang, p in _PATTERNS if lang == "en"][1:]
# in the other languages any decline of a task verb there counts ("Aquí está mi respuesta: Lo siento, no puedo ayudar con
# eso."): their patterns need a first-person decline and a task verb, and a record opening with one fails (toward leakage)
_AFTER_COMPLIANCE += [p for lang, p in _PATTERNS if lang != "en"]
_INTRO_END, _SENTENCE_END = re.compile(r"[:.!?](?=\s|$)"), re.compile(r"[.!?](?=\s|$)")


def _head(text: str) -> str:
    """The opening of an answer, normalised (NFKC, markdown marks and quote marks removed, spaces folded)."""
    head = unicodedata.normalize("NFKC", text[: HEAD_CHARS * 2])
    head = _STRIP.sub(" ", head).replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", head).strip()[:HEAD_CHARS]


def refusal_match(text: str | None) -> str | None:
    """The phrase that makes ``text`` a refusal (for logs and reports), or None when it is not one."""
    if not text or not text.strip():
        return None
    head = _head(text)
    comply = _COMPLIANCE.search(head)
    limit = comply.start() if comply else len(head)
    for _lang, pattern in _PATTERNS:
        m = pattern.search(head, 0, limit)
        if m:
            return m.group(0)
    if comply:  # what the compliance phrase introduces: its first sentence (after a colon or the phrase's own sentence)
        rest = head[comply.end():]
        intro = None if comply.group(0).endswith(":") else _INTRO_END.search(rest)
        start = intro.end() if intro else 0
        end = _SENTENCE_END.search(rest, start)
        opening = rest[start:end.end() if end else len(rest)].strip()
        for pattern in _AFTER_COMPLIANCE:
            m = pattern.search(opening)
            if m:
                return m.group(0)
    return None


def is_refusal(text: str | None) -> bool:
    """Whether an answer declines the task instead of doing it (see the module docstring)."""
    return refusal_match(text) is not None
