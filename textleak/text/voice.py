"""The first person made third: "I want to write my resume" -> "the user wants to write their
resume" (:func:`user_voice`).

One rewrite used by two stages: the request atomizer states a user's request in the third person
(:mod:`textleak.atomizers.requests`), and the NLI judge reads a released first-person sentence in a
claim's voice (:func:`textleak.judges.nli.in_claim_voice`); it lives here so neither stage imports
the other.
"""

from __future__ import annotations

import re

#: a first-person word ("I", "my", "we", "I'm", ...): a clause without one is left as it is
FIRST_PERSON = re.compile(r"(?<![\w'’.-])(?:i|me|my|mine|myself|we|us|our|ours|ourselves)(?![\w'’-]|\.\w)|"
                          r"(?<![\w'’-])(?:i|we)['’](?:m|ve|d|ll|re)\b", re.IGNORECASE)

#: verbs that keep their form after "the user" ("I can" -> "the user can", "I went" -> "the user went")
_MODALS = frozenset("can could will would should may might must shall".split())
_IRREGULAR_PAST = frozenset("""
was were had did said went came took made got gave saw knew thought felt told left kept began brought bought found sent
spent built paid met heard held ran wrote lost put set sat stood understood won taught caught became fell forgot grew
drove ate slept woke spoke chose broke wore threw flew drew read let cut hit hurt quit shut meant led fed fought sold
""".split())
#: an auxiliary before "I" asks a question ("What do I need", "Can I get"): it agrees with "the user"
#: instead of the verb after it ("What does the user need", "Can the user get")
_INVERTED = {"do": "does", "am": "is", "are": "is", "have": "has", "were": "was", **{m: m for m in _MODALS},
             **{w: w for w in "does did was is has had".split()}}
#: words after "I" that are not its verb ("I and my brother", "I too")
_NOT_VERBS = frozenset("and or nor but too also as than cannot".split())
#: adverbs between "I" and its verb ("I really want")
_ADVERB = re.compile(r"^(?:also|then|now|currently|recently|never|often|still|later|first|again|already|usually|always|"
                     r"sometimes|just|only|even|really|actually|finally|truly|\w{3,}ly)$", re.IGNORECASE)
_CONTRACTIONS = [
    (re.compile(r"\bi['’]m\b", re.IGNORECASE), "I am"), (re.compile(r"\bi['’]ve\b", re.IGNORECASE), "I have"),
    (re.compile(r"\bi['’]d\b", re.IGNORECASE), "I would"), (re.compile(r"\bi['’]ll\b", re.IGNORECASE), "I will"),
    (re.compile(r"\bwe['’]re\b", re.IGNORECASE), "we are"), (re.compile(r"\bwe['’]ve\b", re.IGNORECASE), "we have"),
    (re.compile(r"\bwe['’]ll\b", re.IGNORECASE), "we will"), (re.compile(r"\bwe['’]d\b", re.IGNORECASE), "we would"),
    (re.compile(r"\bdon['’]t\b", re.IGNORECASE), "do not"), (re.compile(r"\bdidn['’]t\b", re.IGNORECASE), "did not"),
    (re.compile(r"\bcan['’]t\b", re.IGNORECASE), "cannot"), (re.compile(r"\bhaven['’]t\b", re.IGNORECASE), "have not"),
    (re.compile(r"\bwon['’]t\b", re.IGNORECASE), "will not"),
]
_TOKEN = re.compile(r"\S+")
_WANT_YOU = re.compile(r"\b(?P<v>want|wants|need|needs|would like|like)\s+you\s+(?:to\s+)?(?P<verb>[a-z]+)(?:\s+me\b(?=\s+(?:a|an|the|some|\d)))?",
                       re.IGNORECASE)


def quote_mask(text: str) -> list[bool]:
    """True inside quotation marks: quoted text is left as written."""
    out, inside = [], False
    for ch in text:
        if ch in "\"“”":
            inside = not inside if ch == '"' else ch == "“"
            out.append(True)
            continue
        out.append(inside)
    return out


def _third_singular(verb: str) -> str:
    """"want" -> "wants", "am" -> "is"; modals, past forms and words that are not verbs stay."""
    low = verb.lower()
    if low in _MODALS or low in _NOT_VERBS or low in _IRREGULAR_PAST or low.endswith("ed") or not low.isalpha():
        return verb
    special = {"am": "is", "are": "is", "were": "was", "have": "has", "do": "does", "go": "goes", "was": "was", "'m": "is"}
    if low in special:
        return special[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _inverted_auxiliary(out: list[str], before: str) -> bool:
    """Whether the words written so far end with an auxiliary asking a question of "I" ("What do I",
    "Why can't I" (expanded to "cannot"), "Why do not I", "Shouldn't I"); if so the auxiliary is made to
    agree with the third person in place ("do" -> "does"). The verb after "I" then stays bare."""
    def agree(k: int, word: str) -> None:
        aux = _INVERTED[word]
        if out[k].lower().endswith(word):  # its letters contiguous at the end ("d-o" or "İs" are left as written)
            tail = out[k][len(out[k]) - len(word):]
            out[k] = out[k][: len(out[k]) - len(word)] + (aux if tail.islower() else aux.capitalize())

    if before in _INVERTED:
        agree(len(out) - 2, before)
        return True
    if before == "cannot":
        return True
    if before.endswith("nt") and out[-2].lower().rstrip(".,;:!?").endswith(("n't", "n’t")) and before[:-2] in _INVERTED:
        stem = before[:-2]  # "shouldn't", "doesn't", "aren't"
        if _INVERTED[stem] != stem:
            out[-2] = re.sub(stem + r"(?=n['’]t)", lambda m: _INVERTED[stem] if m.group(0).islower() else _INVERTED[stem].capitalize(),
                             out[-2], count=1, flags=re.IGNORECASE)
        return True
    if before == "not" and len(out) > 2:
        prev = re.sub(r"[^a-z]", "", out[-3].lower())
        if prev in _INVERTED:  # "Why do not I" (from "Why don't I")
            agree(len(out) - 3, prev)
            return True
    return False


#: words before "mine" that make it the noun whatever follows ("a mine", "the coal mine."), words that make it the noun
#: when another word follows ("that mine closed", but "Is that mine?"), and words after the pronoun ("mine is",
#: "a friend of mine from work"): any other word right after "mine" makes it a noun ("mine workers")
_BEFORE_MINE_NOUN = frozenset("a an the every each coal gold copper salt diamond iron silver uranium open-pit abandoned land "
                              "sea naval".split())
_BEFORE_MINE_EITHER = frozenset("this that these those no any one old".split())
_AFTER_MINE_PRONOUN = frozenset("and or nor but is was are were too also as than so that which who has had will would can "
                                "could should does did isn't wasn't from at in on to for with since because if when while "
                                "here there now".split())


def _mine_is_a_noun(out: list[str], nxt: str, trail: str) -> bool:
    """"mine" the place, not the pronoun: after an article or a mineral, or followed straight by a word that does not
    continue a pronoun ("a mine electrician", "the mine.", "that mine closed"; but "a friend of mine from work",
    "No, mine is red", "Is that mine?"). A word before it that ends in punctuation ("No,") determines nothing."""
    prev = out[-1] if out else ""
    before = re.sub(r"[^a-z-]", "", prev.lower()) if prev[-1:].isalpha() else ""
    if before in _BEFORE_MINE_NOUN:
        return True
    if trail:
        return False
    after = nxt.lower().rstrip(".,;:!?")
    return bool(nxt[:1].isalpha()) and after not in _AFTER_MINE_PRONOUN


def user_voice(clause: str, who: str = "the user") -> str:
    """The clause with the first person made third ("I want" -> "the user wants", "my" -> "the user's",
    then "their"); quoted text is left as written. A clause without a first person is returned as is.
    ``who`` is "the writer" for text the user pasted (a letter, a job advert: its "I" may be someone
    else)."""
    if not FIRST_PERSON.search(clause):
        return clause
    for pattern, repl in _CONTRACTIONS:
        if pattern.search(clause):
            clause = pattern.sub(lambda m, r=repl: r if m.group(0)[0].islower() or r[0] == "I" else r.capitalize(), clause)
    clause = _WANT_YOU.sub(lambda m: f"{m.group('v')} the assistant to {m.group('verb')}", clause)
    mask = quote_mask(clause)
    tokens = [(m.start(), m.group(0)) for m in _TOKEN.finditer(clause)]
    out: list[str] = []
    named = False  # "the user" was written once: later possessives read "their"
    conj_next = False
    for k, (pos, tok) in enumerate(tokens):
        if mask[pos] or pos and mask[pos - 1] and tok[0] not in "\"“”":
            out.append(tok)
            continue
        m = re.match(r"^([(\[]?)([A-Za-z]+)([^A-Za-z]*)$", tok)
        if not m:
            out.append(tok)
            conj_next = False  # "I shouldn't go": the verb after "I" was this contraction, written as it is
            continue
        lead, word, trail = m.groups()
        low = word.lower()
        if conj_next and re.fullmatch(r"[.,;:!?)]*", trail):
            # the verb after "I" (adverbs kept): "I really want" -> "the user really wants"
            if _ADVERB.match(low) and k + 1 < len(tokens):
                out.append(tok)
                continue
            if low == "not" or low in ("is", "has", "does"):
                out.append(tok)
            else:
                out.append(lead + _third_singular(word) + trail)
            conj_next = False
            continue
        conj_next = False
        if word == "I" or (word == "i" and not trail.startswith(".")):
            out.append(lead + who + trail)
            named = True
            nxt = tokens[k + 1][1] if k + 1 < len(tokens) else ""
            before = re.sub(r"[^a-z]", "", out[-2].lower()) if len(out) > 1 and out[-2][-1:].isalpha() else ""
            inverted = _inverted_auxiliary(out, before)
            # "my wife and I are": a plural subject, its verb stays as written ("... and I want" joins two clauses)
            plural = before in ("and", "or", "nor") and nxt.lower().rstrip(".,;:!?") in ("are", "were")
            conj_next = not trail and nxt[:1].islower() and not inverted and not plural
        elif low in ("my", "our"):
            out.append(lead + ("their" if named else who + "'s") + trail)
            named = True
        elif low in ("mine", "ours") and not (low == "mine" and _mine_is_a_noun(out, tokens[k + 1][1] if k + 1 < len(tokens) else "", trail)):
            out.append(lead + ("theirs" if named else who + "'s") + trail)
        elif low in ("me",):
            out.append(lead + ("them" if named else who) + trail)
            named = True
        elif low in ("myself", "ourselves"):
            out.append(lead + ("themselves" if named else who) + trail)
        elif low in ("we",):
            out.append(lead + who + " and others" + trail)
            named = True
        elif low == "us" and word != "US":
            out.append(lead + ("them" if named else who + " and others") + trail)
        else:
            out.append(tok)
    return " ".join(out)
