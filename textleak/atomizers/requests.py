"""Claims of chat requests for the rule atomizer (issue 25.5): the facts a user's request states, in
the third person ("The user ...").

:class:`textleak.atomizers.rules.RuleAtomizer` splits a record into clauses; for a record that reads
as a user's request (English, not a clinical profile: :func:`is_request`) each clause is rewritten by
:func:`request_claims` and the record's values are added by :func:`value_claims`:

- **first person made third**: "I'm a nurse" -> "The user is a nurse.", "my GP" -> "the user's GP"
  ("their" after the first mention), "we"/"us" -> "the user and others", "our" -> "the user's";
- **requests**: "Write me a bio for ..." -> "The user asks to write a bio for ...", "Can you list ...?"
  -> "The user asks the assistant to list ...", "How do I ...?" -> "The user asks how to ...", other
  questions quoted: 'The user asks: "Why has Caroline Regis been successful ...?"'. Text pasted after a
  colon or in quotes is a clause of its own;
- **greetings and sign-offs** of a pasted message: "Hi May," -> "The message is addressed to May.",
  "Best, Vicky" -> "The message is signed by Vicky.";
- **relations and roles**: "my sister Anna" -> "The user has a sister.", "The user's sister is named
  Anna."; "my name is ..." -> "The user's name is ..."; "I'm a nurse in Leeds" -> "The user is a
  nurse.", "The user is in Leeds.";
- **values** the record writes: web and e-mail addresses, amounts of money, dates, numbers with their
  unit, names (capitalised words, acronyms; "the person X", "Ms. X") -> "The user mentions ...",
  unless a claim already states the value with at most two other content words.

No padding: a claim whose only content words are framing ("The user asks to rewrite this text.") is
dropped, and so is a claim with the content words of an earlier one. Every word of a claim is a word of
the record or one of the few these rules add (:data:`ADDED_WORDS`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from textleak.text.voice import FIRST_PERSON, quote_mask, user_voice

# ---------------------------------------------------------------------------------------------------
# vocabulary

#: words these rules write that need not be in the record
ADDED_WORDS = frozenset("""
the user user's users is are was were has have does did not cannot would will their them themselves they and others
asks to ask the assistant how about what who message addressed signed by named name mentions a an person web address
e-mail amount of date year in at with that which whether
""".split())

_CLINICAL = re.compile(r"\b(?:patients?|\d+[\s-](?:year|month|week|day)s?[\s-]old|mm\s?hg|physician|emergency department|"
                       r"clinic|vital signs|vitals|examination shows|laboratory|hemoglobin|temperature|pulse|"
                       r"blood pressure|g/dl|mg/dl|meq/l|mm3|presents with|diagnos[a-z]*|treatment|randomi[sz]ed|"
                       r"clinical trial|symptoms?|therapy|disease|dose|prescribed)\b|/min\b", re.IGNORECASE)

#: verbs that open a request ("write ...", "please translate ..."): a superset of the clause splitter's
_REQUEST_VERBS = frozenset("""
write make create give tell send help provide explain describe list rewrite translate check use show find suggest
generate summarize summarise correct improve edit draft prepare analyze analyse express add include compose design fix
paraphrase reply respond answer convert format review outline identify compare calculate determine keep mention
highlight focus ask apologize apologise inform thank say revise proofread shorten expand continue act imagine
incorporate incoprate extend elaborate rephrase reword polish complete recommend brainstorm build develop plan craft
introduce name get search read evaluate assess discuss define clarify simplify modify update change remove delete
insert put turn split merge sort organize organise rank rate grade solve prove code debug optimize optimise refactor
implement construct produce publish post share forward schedule book order buy cancel contact call email text
""".split())
#: objects after which "me" is the indirect object ("write me a bio", "tell me about ...")
_GIVE_VERBS = frozenset("write make give tell send show create generate find draft prepare build suggest recommend get "
                        "provide list compose craft design produce teach".split())
_RELATIONS = ("sister brother mother father mom mum dad wife husband partner boyfriend girlfriend son daughter "
              "friend boss manager colleague coworker co-worker teacher professor supervisor client customer landlord "
              "doctor cousin aunt uncle grandmother grandfather grandma grandpa niece nephew fiance fiancé fiancee fiancée "
              "roommate neighbour neighbor child children kids baby parents company startup business employer school "
              "university college team brand shop store website app channel dog cat practice firm office department "
              "organization organisation agency restaurant family thesis").split()
_REL_ALT = "|".join(sorted(_RELATIONS, key=len, reverse=True))
_RELATION = re.compile(
    r"(?:\b[Mm]y|\b[Oo]ur|\bI (?:have|own|run|manage|started|founded) (?:a|an))\s+(?P<adj>(?:new|old|best|younger|older|little|big|late|ex|current|former|own)[\s-])?(?P<rel>" + _REL_ALT + r")(?![\w-])"
    r"(?:\s*(?:,|\(|named|called|is)?\s*(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’-]*){0,3}))?"
    r"(?:\s+(?:named|called)\s+(?P<named>[\w'’.-]+(?:\s+[A-Z][\w'’-]*){0,3}))?",
)
_NAME_IS = re.compile(r"\bmy name is\s+(?P<name>[A-Z<][\w'’<>.-]*(?:\s+[A-Z][\w'’-]*){0,3})")
_ROLE = re.compile(r"^(?P<subj>The user) (?P<cop>is|was) (?P<role>(?:a|an) (?:[\w-]+ ){0,3}?[\w-]+) "
                   r"(?P<prep>in|at|with|from) (?P<where>[A-Z][\w'’&.-]*(?: [A-Z][\w'’&.-]*){0,4})$")

_STOP = frozenset("""
a an the and or but if of to in on at for with from by as is are was were be been being am do does did has have had this
that these those it its they them their there here he she his her him we us our you your i me my not no so than then
too very can could will would should may might must shall about into over under up down out off just also some any all
each every what which who whom whose when where why how please kindly thanks thank hi hello hey dear ok okay
""".split())
#: content-free words of a request: a claim made only of these and stop words states nothing
_FRAMING = frozenset("""
user user's users asks ask asked asking wants want wanted request requests mentions mention assistant others question
questions text texts help something anything thing things following below above way better good correct correctly
same please like need needs needed way it's let's let go one more few lines line sentence sentences paragraph version
""".split()) | (_REQUEST_VERBS - set("email text call post plan design name order book code".split()))

# values
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"'”)]+[^\s<>\"'”).,;:!?]"
                  r"|(?<![\w@.-])[a-z0-9][\w-]*(?:\.[\w-]+)*\.(?:com|org|net|io|ai|co|edu|gov|info|biz|me|app|dev|uk|in|de)\b(?![\w@-])",
                  re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s?(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?(?:,?\s+\d{{4}})?"
    rf"|{_MONTH}\.?\s+\d{{1,2}}(?:\s?(?:st|nd|rd|th))?(?:,?\s+\d{{4}})?"
    r"|\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4})\b", re.IGNORECASE)
_AMOUNT = r"\d(?:[\d,.]|[ \u00a0\u202f](?=\d{3}(?!\d)))*"  # digits with their separators, spaces between thousands too ("1 234")
_MONEY = re.compile(rf"(?:[$£€¥₹]\s?{_AMOUNT}(?:\s?(?:million|billion|thousand|k|m|bn))?"
                    rf"|\b{_AMOUNT}\s?(?:million\s|billion\s)?(?:usd|eur|gbp|inr|aed|sar|qar|cad|aud|rmb|cny|jpy|dollars?|euros?|"
                    r"pounds?|rupees?|riyals?|dirhams?|yuan)\b)", re.IGNORECASE)
_QUANTITY = re.compile(r"\b\d[\d,.]*(?:\s?-\s?\d[\d,.]*)?\s?(?:[a-z]+\s(?=(?:employees|staff|students|members|people|customers|clients|users)\b))?(?:%|percent|words?|characters?|pages?|years?|months?|weeks?|"
                       r"days?|hours?|minutes?|people|persons|employees|staff|students|members|customers|clients|users|"
                       r"kg|km|miles?|rooms?|flights?|times|x)(?![\w])", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:in|since|from|of|for|until|by)\s+((?:19|20)\d{2})\b", re.IGNORECASE)
_TITLE = re.compile(r"\b(?:mr|mrs|ms|miss|dr|prof|engr|eng|sir|madam|mx)\.?\s*$", re.IGNORECASE)
_CUE_NOUNS = frozenset("company person film movie book university college school job position role app application "
                       "website site team hotel program programme course project product brand platform city country "
                       "town village firm bank hospital organisation organization store shop restaurant channel game "
                       "song album artist author tool software library framework band group department ministry".split())
_NAME_WORD = r"(?:[A-Z]\.\s?[A-Z][a-z][\w'’-]*|[A-Z][\w'’&-]*|[A-Z]{2,}[\w-]*|\d+(?!st\b|nd\b|rd\b|th\b)[A-Za-z][\w-]*|[A-Z][a-z]*[A-Z][\w-]*)"
_NAME_SPAN = re.compile(rf"(?<![\w'’-]){_NAME_WORD}(?:(?:\s+(?:of|de|del|la|le|van|von|da|du|and|&)\s+|\s+){_NAME_WORD})*")
_NOT_NAMES = frozenset("""
i i'm i've i'd i'll please dear hi hello hey thanks thank regards best the this that these those it its a an my our your we
you he she they his her their what which who why how when where if and or but so also then now yes no ok okay note sure
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september
october november december url pdf cv hr ai api usd ok fyi asap pm am etc eg ie vs ps id faq tbd n/a english
since because although though while after before during among as in on at for with from by to of into about
let's lets let kindly write rewrite re ltd inc co llc corp plc gmbh room page section chapter step table figure no
number kind warm yours sincerely cheers mr mrs ms dr prof engr eng sir madam
""".split())


# ---------------------------------------------------------------------------------------------------
# helpers


_CLINICAL_OPENER = re.compile(r"^\s*(?:a|an)\s+(?:[\w'’-]+\s+){0,3}?\d+(?:\.\d+)?[\s-](?:year|month|week|day|hour)s?[\s-]old\b",
                              re.IGNORECASE)
_REQUEST_SIGNAL = re.compile(r"(?<![\w'’-])(?:i|me|my|we|our|us|you|your|please|pls|kindly|dear|hi|hello)(?![\w'’-])|[^\W\d_]\?|"
                             r"(?<![\w'’-])i['’]", re.IGNORECASE)


_VERB_OPENS_SENTENCE = re.compile(r"(?:^|[.!?:]\s+|[\"”]\s*)(?:\w+ly\s+)?(?:" + "|".join(sorted(_REQUEST_VERBS)) +
                                  r")\s+(?:a|an|the|my|our|this|these|me|us|some|all|\d+)\s", re.IGNORECASE)
_LOWER_CONTENT_NEXT = re.compile(r"^\s+(?!(?:" + "|".join(sorted(_STOP)) + r")\b)[a-z]")


def is_request(text: str) -> bool:
    """Whether an English record is read as a user's request (chat, e-mail, pasted text) rather than a
    clinical profile, whose rules stay exactly as they were: a record that opens like a MedQA profile
    ("A 45-year-old man ..."), has three clinical words, or has one and does not speak to or for
    anyone (no first or second person, "please", greeting or question) is clinical."""
    head = text[:4000]
    if _CLINICAL_OPENER.match(head):
        return False
    markers = {m.group(0).lower() for m in _CLINICAL.finditer(head)}
    if len(markers) >= 3:
        return False
    return _asks(head)


def _asks(text: str) -> bool:
    """Whether a text speaks to or for someone: a first or second person, "please", a greeting, a
    question, a request verb opening a sentence ("Describe the ..."), or a lower-case start ("who is
    ...", "example for ..."), as typed into a chat box."""
    stripped = text.lstrip(" \"“'‘(*#-•")
    if not stripped:
        return False
    first = stripped.split(None, 1)[0].lower().strip(",:;.!")
    if stripped[0].islower() or first in _REQUEST_VERBS or _WH.match(stripped):
        return True
    if _REQUEST_SIGNAL.search(text):
        return True
    if re.match(r"^[^\x00-\u024f]", stripped) and re.search(r"[A-Za-z]{3,}", stripped):
        return True  # "翻译成中文:Kazuo Ueda, ...": an instruction in another language before pasted text
    return bool(_VERB_OPENS_SENTENCE.search(text))


@lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """The words of ``text`` that say something: not stop words, not framing ("user", "asks", "write")."""
    words = re.findall(r"[\w][\w'’.@/:-]*[\w]|\w", text.lower())
    return frozenset(w for w in words if w not in _STOP and w not in _FRAMING)


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    if first[:1].isupper() and (len(first) == 1 or first[1:].islower()) and first not in ("I",):
        return text[0].lower() + text[1:]
    return text


_LEAD = re.compile(r"^(?:(?:please|pls|plz|kindly|so|and|also|now|ok|okay|then|hey|just|can you please|"
                   r"could you please)[\s,]+)+", re.IGNORECASE)
_GREETING = re.compile(r"^(?:dear|hi|hello|hey|good (?:morning|afternoon|evening)|attn:?|to)\s+(?P<name>[^,!:\n]{1,40}?)\s*(?:[,!:]\s*|$)"
                       r"|^(?:dear|hi|hello)\s+(?P<name2>\S+(?:\s+[A-Z]\S*)?)\s+(?=(?:i|we|please|kindly|this|the|hope)\s)", re.IGNORECASE)
_SIGNOFF = re.compile(r"^(?:best|regards|best regards|kind regards|warm regards|thanks|thank you|many thanks|sincerely|"
                      r"yours sincerely|yours faithfully|cheers|yours)\s*[,!]?\s+(?P<name>.{1,40})$", re.IGNORECASE)
_ASK_ASSISTANT = re.compile(r"^(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+)?(?P<rest>.+)$", re.IGNORECASE)
_HOW_DO_I = re.compile(r"^how\s+(?:do|can|should|could|would|shall)\s+(?:i|we)\s+(?P<rest>.+)$", re.IGNORECASE)
_TELL_ABOUT = re.compile(r"^what\s+(?:can|do)\s+you\s+(?:tell|know)\s+(?:me\s+)?about\s+(?P<rest>.+)$", re.IGNORECASE)
_WHO_IS = re.compile(r"^(?P<wh>who|what)\s+(?P<cop>is|are|was|were)\s+(?P<rest>[^,;]+)$", re.IGNORECASE)
_WH = re.compile(r"^(?:who|what|when|where|why|how|which|whose|is|are|does|do|did|can|could|should|would|will)\b",
                 re.IGNORECASE)


def _request(core: str) -> str | None:
    """A request or question made a claim about the user ("The user asks ..."); None when ``core``
    is neither."""
    words = core.split()
    if not words:
        return None
    m = _ASK_ASSISTANT.match(core)
    if m:
        rest = re.sub(r"^(?:help me(?: to)?|tell me|let me know)\b", lambda x: {"t": "tell", "l": "tell"}.get(x.group(0)[0].lower(), "help"), m.group("rest"))
        return "The user asks the assistant to " + user_voice(_drop_me(rest))
    m = _TELL_ABOUT.match(core)
    if m:
        return "The user asks about " + user_voice(m.group("rest").rstrip(" ?"))
    m = _HOW_DO_I.match(core)
    if m:
        return "The user asks how to " + user_voice(m.group("rest").rstrip(" ?"))
    m = _WHO_IS.match(core)
    if m and len(m.group("rest").split()) <= 8 and not FIRST_PERSON.search(m.group("rest")) \
            and not _DANGLING.search(m.group("rest").rstrip(" ?")):
        return f"The user asks {m.group('wh').lower()} {m.group('rest').rstrip(' ?')} {m.group('cop').lower()}"
    first = words[0].lower().strip(",:")
    second = words[1].lower().strip(",:") if len(words) > 1 else ""
    verb_at = 1 if first.endswith("ly") and second in _REQUEST_VERBS else 0  # "critically analyze ..."
    verb = words[verb_at].lower().strip(",:")
    title = len(words) > verb_at + 1 and words[verb_at + 1][:1].isupper() and words[verb_at + 1] != "I" and not words[0].isupper()
    if verb in _REQUEST_VERBS and not title:
        rest = " ".join(words[verb_at + 1:])
        if verb in ("tell", "teach") and re.match(r"^me\s+(?:about|how|what|why|who|when|where|whether|if)\b", rest, re.IGNORECASE):
            return "The user asks " + user_voice(rest.split(" ", 1)[1])
        if verb == "help" and re.match(r"^me\b", rest, re.IGNORECASE):
            after = rest[2:].strip()
            after = re.sub(r"^to\s+", "", after)
            if re.match(r"^(?:with|on|in|about)\b", after, re.IGNORECASE):
                return "The user asks for help " + user_voice(after)
            return "The user asks for help to " + user_voice(after) if after else None
        body = " ".join(words[:verb_at + 1]).lower().rstrip(",:") + (" " + rest if rest else "")
        if verb in _GIVE_VERBS:
            body = _drop_me(body)
        return "The user asks to " + user_voice(body)
    m = _WHY.match(core)
    if m and not FIRST_PERSON.search(core):
        return f"The user asks why {m.group('subj')} {m.group('aux').lower()} {m.group('rest').strip()}"
    core = core.strip(" \"“”") if core.count('"') % 2 or core[:1] in "\"“" else core
    if core.rstrip().endswith("?") or re.match(r"^(?:how|what|why|where|when|who)\s+(?:is|are|was|were|does|do|did|can|could|should)\b",
                                                core, re.IGNORECASE):
        return f'The user asks: "{_upper_first(core.rstrip(" ?"))}?"'
    return None


def _has_first_person_subject(core: str) -> bool:
    return bool(re.match(r"^(?:i|we)\b", core, re.IGNORECASE))


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:] if text[:1].islower() else text


def _drop_me(body: str) -> str:
    """"write me a bio" -> "write a bio"; "give me ideas" -> "give ideas" (the user is the asker)."""
    return re.sub(r"^(\S+)\s+me\s+(?=\S)", r"\1 ", body, count=1, flags=re.IGNORECASE)


def _split_pasted(core: str) -> list[tuple[str, bool]]:
    """A request and the text it is about: "rewrite this text: Brno COMAC team obtained ..." ->
    [("rewrite this text", False), ("Brno COMAC team obtained ...", True)] (True: pasted); a quoted
    passage likewise."""
    m = re.match(r"^(?P<req>[^:\"“]{2,120}?)\s*:\s*(?P<text>\S.{6,})$", core)
    if m and not re.search(r"https?$|^\d", m.group("req")) and len(m.group("req").split()) <= 16:
        return [(m.group("req"), False), (m.group("text").strip(" \"“”"), True)]
    m = re.match(r"^(?P<req>(?:\S+\s+){1,8}?)(?P<text>(?:Hi|Hello|Dear|Hey)\s+[A-Z].{10,})$", core)
    if m and m.group("req").split()[0].lower() in _REQUEST_VERBS:
        return [(m.group("req").strip(), False), (m.group("text"), True)]  # "improve Hi Elle Thanks for ...": a message follows
    m = re.match(r"^(?P<req>[^-–:\"“]{2,60}?)\s+[-–]+\s+(?P<text>\S.{10,})$", core)
    if m and m.group("req").split()[0].lower() in _REQUEST_VERBS:
        return [(m.group("req"), False), (m.group("text"), True)]
    m = re.match(r"^(?P<req>[^\"“]{2,80}?)\s*[\"“](?P<text>[^\"”]{10,})[\"”]?\s*(?P<after>[^\"“”]*)$", core)
    if m and len(m.group("req").split()) <= 8:
        parts = [(m.group("req"), False), (m.group("text"), True)]
        if m.group("after").strip():
            parts.append((m.group("after"), False))
        return parts
    m = re.match(r"^[\"“](?P<text>[^\"”]{10,})[\"”]\s*(?P<req>.{2,80})$", core)
    if m:
        return [(m.group("text"), True), (m.group("req"), False)]
    return [(core, False)]


def _relation_claims(clause: str, who: str = "The user") -> list[str]:
    """"my sister Anna" -> "The user has a sister.", "The user's sister is named Anna."; "my name is X"
    -> "The user's name is X."."""
    out = []
    for m in _RELATION.finditer(clause):
        rel = m.group("rel")
        adj = (m.group("adj") or "").strip(" -")
        noun = f"{adj} {rel}".strip() if adj and adj not in ("own", "late", "ex", "current", "former") else rel
        plural = rel.lower() in ("children", "kids", "parents")
        out.append(f"{who} has {'' if plural else ('an ' if noun[0].lower() in 'aeiou' else 'a ')}{noun}.")
        name = m.group("named") or m.group("name")
        if name and name.split()[0].lower() not in _NOT_NAMES and name.split()[0].lower() not in _STOP:
            name = name.rstrip(".,)")
            out.append(f"{who}'s {rel} is named {name}.")
    for m in _NAME_IS.finditer(clause):
        out.append(f"{who}'s name is {m.group('name').rstrip('.,')}.")
    return out


def _role_claims(claim: str) -> list[str] | None:
    """"The user is a night-shift nurse in Leeds." -> "The user is a night-shift nurse.", "The user is in
    Leeds." (None when the claim is not a role with a place or organisation)."""
    m = _ROLE.match(claim.rstrip(" ."))
    if not m:
        return None
    return [f"{m.group('subj')} {m.group('cop')} {m.group('role')}", f"{m.group('subj')} {m.group('cop')} {m.group('prep')} {m.group('where')}"]


_ASKED = re.compile(r"^(?P<lead>The user (?:asks(?: the assistant)? to|wants(?: the assistant)? to|would like(?: the assistant)? to|"
                    r"needs(?: the assistant)? to|plans to|is going to|asks for help to)) (?P<verb>[a-z]+) (?P<rest>.+)$")
_SPLIT_WORDS = frozenset("to for about regarding from with on at explaining saying informing asking telling describing "
                         "including highlighting showing introducing thanking apologizing apologising requesting "
                         "announcing inviting confirming expressing mentioning stating".split())
_OBJECT_START = re.compile(r"^(?:(?:a|an|the|some|all|any|my|our|their|this|these|\d[\d,.-]*)\s+)", re.IGNORECASE)
_PARTICIPLE_CUT = re.compile(r"^[a-z]+ing$")


_COORD_OBJECT = re.compile(r"^(?P<lead>The user asks to (?P<verb>[a-z]+)) (?P<first>(?:a|an|the|all|some|\d+)\s[^,]{3,80}),\s+and\s+"
                           r"(?P<second>(?:their|its|the|a|an|all|some)\s.{3,80})$")


def _coordinated_request(claim: str) -> list[str] | None:
    """"The user asks to list the top 25 ad agencies, and their creative directors" -> "The user asks to
    list the top 25 ad agencies.", "The user asks to list their creative directors."."""
    m = _COORD_OBJECT.match(claim.rstrip(" .?!"))
    if not m or _has_verb_start(m.group("second")):
        return None
    return [f"{m.group('lead')} {m.group('first')}", f"{m.group('lead')} {m.group('second')}"]


def _has_verb_start(text: str) -> bool:
    words = text.split()
    return len(words) > 1 and words[1].lower() in ("is", "are", "was", "were", "has", "have", "will", "can")


def _request_parts(claim: str) -> list[str] | None:
    """"The user asks to write a letter to the royal college explaining the war situation in Sudan" ->
    "The user asks to write a letter.", "The requested letter is to the royal college.", "The requested
    letter is explaining the war situation in Sudan." (the object's first two modifiers; None when the
    claim is not a request with an object and a modifier)."""
    m = _ASKED.match(claim.rstrip(" .?!"))
    if not m or quote_mask(claim)[-1]:
        return None
    words = m.group("rest").split()
    if not _OBJECT_START.match(m.group("rest")) or len(words) < 3:
        return None
    comma = next((j for j, w in enumerate(words) if w.endswith((",", ";", ":"))), len(words))
    cuts = [j for j in range(2, min(len(words), comma + 1)) if words[j].lower() in _SPLIT_WORDS and not words[j - 1].endswith((",", ":"))
            and words[j - 1].lower() not in _STOP]
    if not cuts or cuts[0] > 8:
        return None
    obj = words[:cuts[0]]
    head_words = obj[1:] if obj[0].lower() in ("a", "an", "the", "some", "all", "any", "my", "our", "their", "this", "these") else obj
    if " of " in " ".join(head_words):
        head_words = " ".join(head_words).split(" of ")[0].split()
    head = " ".join(w.strip(",;:()") for w in head_words)
    if not head or not re.search(r"[a-z]", head) or any(w.lower() in _STOP or w.lower().startswith("user") for w in head_words) \
            or len(head_words) > 4:
        return None
    # a participle's own phrases stay with it ("saying thanks for X for attending ..."): no cut after one
    first_participle = next((k for k, j in enumerate(cuts) if _PARTICIPLE_CUT.match(words[j].lower())), None)
    if first_participle is not None:
        cuts = cuts[:first_participle + 1]
    cuts = cuts[:2] + [len(words)]
    out = [f"{m.group('lead')} {m.group('verb')} {' '.join(obj)}"]
    for a, b in zip(cuts, cuts[1:]):
        seg = " ".join(words[a:b]).strip(" ,")
        seg = re.split(r",?\s+and\s+(?:also\s+)?(?=to\s)|,\s+and\s+", seg)[0]  # "... and also to let him know ...": another request
        if len(seg.split()) < 2:
            continue
        copula = "are" if head_words[-1].lower().endswith("s") and not head_words[-1].lower().endswith("ss") else "is"
        out.append(f"The requested {head} {copula} {seg}")
    return out if len(out) > 1 else None


_USER_CLAUSE = re.compile(r",?\s+(?:where|when|while|because|since|as|so|but|and|though|although|after|before|then|"
                          r"and then|and also|also)\s+(?=the user (?!and others)(?:\w+ly\s+)?(?:is|was|has|had|can|will|would|"
                          r"could|should|does|did|[a-z]+(?:ed|s))\b)|,\s+(?=the user (?!and others))")


_HOWEVER = re.compile(r",?\s+however,?\s+(?=(?:there|it|this|the|we|they|he|she|you|[A-Z])\w*\s+\w)", re.IGNORECASE)


def _clause_like(text: str) -> bool:
    """Whether ``text`` has a finite verb (the clause splitter's list, or "the user <verb>ed/-s")."""
    from textleak.atomizers.rules import _has_finite  # the rule atomizer imports this module

    return _has_finite(text) or bool(re.search(r"\b(?:the user|the writer|this|that|it|he|she|they|we|i|you)\s+(?:\w+ly\s+)?"
                                               r"\w+(?:ed|s)\b", text, re.IGNORECASE))


def _user_clauses(voiced: str, who: str = "the user") -> list[str]:
    """"During the user's work at google, the user worked for the google pay team where the user launched
    campaigns" -> the clause before and each clause with the user as its subject (a subordinate
    clause is kept whole when it is a condition: "if", "unless", "until" are not split points)."""
    mask = quote_mask(voiced)
    pieces, last = [], 0
    pattern = _USER_CLAUSE if who == "the user" else re.compile(_USER_CLAUSE.pattern.replace("the user", who))
    splits = sorted(list(pattern.finditer(voiced)) + list(_HOWEVER.finditer(voiced)), key=lambda m: m.start())
    for m in splits:
        if mask[m.start()] or m.start() <= last:
            continue
        left = voiced[last:m.start()].strip(" ,")
        if len(left.split()) < 3 or not _clause_like(left):
            continue  # "During the user's work at google": an adverbial, it stays with its clause
        pieces.append(left)
        last = m.end()
    pieces.append(voiced[last:].strip(" ,"))
    return [_upper_first(p) for p in pieces if p]


_LEADING_REASON = re.compile(r"^(?P<sub>since|because|as|although|though|while|now that)\s+(?P<reason>[^,]{8,120}?),\s+(?P<main>\S.{8,})$",
                             re.IGNORECASE)
_RELATIVE = re.compile(r"(?P<np>\b(?:the user's|their|the|a|an)\s+(?:[\w-]+\s+){0,2}?[\w-]+(?:\s+\([^)]{1,40}\))?)\s*,?\s+"
                       r"(?:which|who)\s+(?P<verb>is|are|was|were|specializes|specialises|provides|offers|sells|makes|helps|"
                       r"bridges|works|operates)\s+(?P<rest>[^;:()]{4,120}?)"
                       r"(?=\s*(?:[;:()]|,\s+(?:which|who|that|but|so|and\s+(?:i|we|the user))\b|\.\s|\.$|$))")
_THAT_CLAUSE = re.compile(r"\b(?:(?:inform(?:s|ing)?|tell(?:s|ing)?|explain(?:s|ing)?|saying|stating|confirm(?:s|ing)?|notify(?:ing)?|"
                          r"remind(?:s|ing)?|assur(?:e|es|ing))\s+"
                          r"(?:(?:him|her|them|the \w+|\w+)\s+)?that|let(?:ting)?\s+(?:him|her|them|\w+)\s+know(?:\s+that)?)\s+"
                          r"(?!(?:when|whether|if|what|who|how|why|where|which)\b)(?P<clause>\S.{10,})$", re.IGNORECASE)


_THANKED = re.compile(r"\bthank(?:s|ing)?(?:\s+you)?\s+(?:for\s+|to\s+)?(?P<who><[A-Z_]+>|[A-Z][\w.’'-]*(?:\s+[A-Z][\w’'-]*){0,3})\s+"
                      r"for\s+(?P<what>[a-z]+ing\b[^,.;]*?)(?=\s+and\b|[,.;]|$)")
_PAREN_NAME = re.compile(r"\((?P<name>[A-Z][^()]{1,40})\)\s+(?P<verb>[a-z]+(?:s|ed))\s+(?P<rest>[^.;()]{4,100})")
_WHY = re.compile(rf"^(?i:why)\s+(?P<aux>(?i:has|have|is|are|was|were))\s+(?P<subj>{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,3}})\s+"
                  r"(?P<rest>[^?]+)\?*$")
_AND_THIS = re.compile(r"\s+and\s+(?P<clause>(?:this|that|it)\s+(?:is|was|causes|caused|makes|made|has|had)\s+[^,;]{3,80}?)"
                       r"(?=\s+and\b|[,;.]|$)")


def _embedded_claims(voiced: str) -> list[str]:
    """Facts a request states inside another clause: "... my company (MIH) which is a supplier of X" ->
    "The user's company (MIH) is a supplier of X."; "draft a mail to Blessing informing her that the
    branches have been rejecting our transactions" -> "The branches have been rejecting the user's
    transactions."."""
    out = []
    for m in _RELATIVE.finditer(voiced):
        np = re.sub(r"^(?:their|the user's)\b", "The user's", m.group("np"))
        np = re.sub(r"^(?:a|an|the)\b", "The", np, flags=re.IGNORECASE)
        if np.lower().startswith("the user's") or len(np.split()) >= 2:
            out.append(f"{np} {m.group('verb')} {m.group('rest').strip()}")
    m = _THAT_CLAUSE.search(voiced)
    if m:
        out.append(_upper_first(m.group("clause").strip()))
    for m in _THANKED.finditer(voiced):
        out.append(f"{m.group('who')} is thanked for {m.group('what').strip()}")  # "thanks for X for attending the meeting"
    for m in _PAREN_NAME.finditer(voiced):
        out.append(f"{m.group('name')} {m.group('verb')} {m.group('rest').strip()}")  # "(Mishdad Beauty) specializes in ..."
    for m in _AND_THIS.finditer(voiced):
        out.append(_upper_first(m.group("clause")))  # "..., and this causes misunderstanding"
    m = _LOOKING_FORWARD.search(voiced)
    if m and not voiced.lower().startswith(("the user", "the writer")):
        out.append(f"{m.group('who') or 'The writer'} is looking forward to {m.group('what').strip()}")
    return [p for c in out for p in (_object_list(c) or [c])]


_LOOKING_FORWARD = re.compile(r"(?:^|,\s+)(?:(?P<who>The user|The writer)\s+(?:is|am)\s+)?looking forward to\s+(?P<what>[^,.;!?]{3,80})",
                              re.IGNORECASE)
_OBJECT_LIST = re.compile(r"^(?P<head>.{3,80}?\b(?:specializes in|specialises in|focuses on|deals in|sells|offers|provides|"
                          r"supplier of|includes?|including))\s+(?P<body>.+)$")


def _object_list(claim: str) -> list[str] | None:
    """"Mishdad Beauty specializes in health, hair and body care" -> one claim per item (the clause
    splitter's own list rules decide what is a list)."""
    from textleak.atomizers.rules import _list_items  # the rule atomizer imports this module

    m = _OBJECT_LIST.match(claim.rstrip(" ."))
    if not m:
        return None
    found = _list_items(m.group("body"))
    if not found or len(found[1]) < 2:
        return None
    extra, items = found
    return [f"{m.group('head')} {extra}{item}" for item in items]


def request_claims(clause: str, pasted: bool = False) -> list[str]:
    """The claims of one clause of a request, in the third person (see the module docstring); ``[]``
    for a bare greeting ("Dear sir"). ``pasted``: the clause is part of a text the user pasted (after
    "rewrite this:", inside a long document): its imperatives are not the user's requests and its
    first person is "the writer"."""
    core = clause.strip().rstrip(" .;,")
    core = _LEAD.sub("", core) or core
    core = re.sub(r"[\s,]+(?:thanks|thank you|thx|pls|please)$", "", core, flags=re.IGNORECASE) or core
    if not core:
        return []
    m = _GREETING.match(core)
    if m and (len(core) - m.end() > 0 or True):
        name = (m.group("name") or m.group("name2")).strip()
        rest = core[m.end():].strip()
        out = []
        if name and name[0].isupper() and name.split()[0].lower().rstrip(".") not in ("sir", "madam", "all", "team", "everyone"):
            out.append(f"The message is addressed to {name}")
        return out + (request_claims(rest, True) if rest else [])  # a message: its "I" is its writer
    m = _SIGNOFF.match(core)
    if m and m.group("name")[:1].isupper() and len(m.group("name").split()) <= 4:
        return [f"The message is signed by {m.group('name').strip()}"]
    m = _LEADING_REASON.match(core)
    if m and _clause_like(user_voice(m.group("reason"))):
        # "Since Hanisha is going on maternity, can you ...": the reason is a fact of its own
        return request_claims(m.group("reason"), pasted) + request_claims(m.group("main"), pasted)
    pieces = _split_pasted(core)
    if len(pieces) > 1:
        return [c for piece, inside in pieces for c in request_claims(piece, pasted or inside)]
    if pasted:
        voiced = user_voice(core, "the writer")
        return ([_upper_first(p) for p in _user_clauses(voiced, "the writer")] + _embedded_claims(voiced)
                + _relation_claims(core, "The writer"))
    out = _relation_claims(core)
    asked = _request(core)
    why = _WHY.match(core)
    if asked is not None and why and asked.startswith("The user asks why"):
        # "Why has Caroline Regis been successful ...?" states that she has been
        return [f"{why.group('subj')} {why.group('aux').lower()} {why.group('rest').strip()}", asked] + out
    if asked is not None:
        app = _APPOSITIVE.search(asked)
        if app and app.start() > len(asked) // 3:
            # "make a presentation of Mickael BAUMAN, currently working at ...": the apposition is a
            # claim of its own (value_claims), the request ends at the name
            asked = asked[:app.start("name") + len(app.group("name"))]
        parts = [p for c in (_coordinated_request(asked) or [asked]) for p in (_request_parts(c) or [c])]
        return parts + _embedded_claims(asked) + out
    voiced = _upper_first(user_voice(core))
    out = _embedded_claims(voiced) + out
    claims = []
    for piece in _user_clauses(voiced):
        claims.extend(_role_claims(piece) or _request_parts(piece) or [piece])
    return claims + out


# ---------------------------------------------------------------------------------------------------
# values


def _mostly_upper(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and sum(ch.isupper() for ch in letters) > 0.5 * len(letters)


def _name_spans(text: str) -> list[tuple[int, int]]:
    """Capitalised words and acronyms that are not a sentence's first word alone, nor framing."""
    spans = []
    tokens = set(re.findall(r"[\w][\w'’-]*", text))
    for m in _NAME_SPAN.finditer(text):
        words = m.group(0).split()
        start = m.start()
        before = text[:start].rstrip()
        sentence_start = not before or not (before[-1].isalnum() or before[-1] in ",&'’")
        stripped = 0
        while words and (words[0].lower().strip(".,’'") in _NOT_NAMES or words[0].lower() in _STOP
                         or re.match(r"^I['’]", words[0])):
            start += len(words[0]) + (text[start + len(words[0]):].find(words[1]) if len(words) > 1 else 0)
            words = words[1:]
            sentence_start = False
            stripped += 1
        if stripped >= 2:
            cue = re.search(r"\b(?P<noun>[a-z]+)(?:\s+(?:named|called))?\s*$", before)
            if not (cue and cue.group("noun") in _CUE_NOUNS):
                continue  # "You Shall Not Kill": a title, not "Kill"
            words, start = m.group(0).split(), m.start()  # "the film You Shall Not Kill": the whole title
        while words and (words[-1].lower().strip(".,") in _NOT_NAMES or words[-1].lower() in _STOP
                         or words[-1].lower() in ("of", "de", "and", "&")):
            words = words[:-1]
        if not words or len(words) > 6:
            continue  # more than six capitalised words: a title-cased table or heading, not a name
        if sentence_start and len(words) == 1:
            continue
        if len(words) == 1 and (words[0].lower() in _FRAMING or words[0].lower() in _REQUEST_VERBS):
            continue
        if len(words) == 1 and not words[0].isupper() and (
                words[0].lower() in tokens or sentence_start and text[m.end():m.end() + 1] in (":", "*")):
            continue  # "Data" where the record also writes "data", "*Role*", "Candidate:": a word, a header
        if len(words) == 1 and not words[0].isupper() and "." not in words[0] and _LOWER_CONTENT_NEXT.match(
                                                                     text[m.end():m.end() + 30]):
            continue  # "Voice over script", "Christian drug rehab": a capitalised modifier, not a name
        end = text.find(words[-1], start) + len(words[-1])
        span = text[start:end].rstrip(".")
        if span.lower() in _NOT_NAMES or len(span) < 2:
            continue
        spans.append((start, start + len(span)))
    return spans


def value_claims(text: str) -> list[str]:
    """"The user mentions ..." for each value the record writes: web and e-mail addresses, amounts,
    dates, quantities, names (with the cue before them: "the person X", "Ms. X")."""
    out: list[str] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, claim: str) -> None:
        if any(a < end and start < b for a, b in taken):
            return
        taken.append((start, end))
        out.append(claim)

    for claim in appositive_claims(text):
        out.append(claim)
    for m in _URL.finditer(text):
        add(m.start(), m.end(), f"The user mentions the web address {m.group(0)}.")
    for m in _EMAIL.finditer(text):
        add(m.start(), m.end(), f"The user mentions the e-mail address {m.group(0)}.")
    for m in _MONEY.finditer(text):
        add(m.start(), m.end(), f"The user mentions an amount of {m.group(0).strip()}.")
    for m in _DATE.finditer(text):
        add(m.start(), m.end(), f"The user mentions the date {m.group(0).strip()}.")
    for m in _YEAR.finditer(text):
        add(m.start(1), m.end(1), f"The user mentions the year {m.group(1)}.")
    for m in _QUANTITY.finditer(text):
        add(m.start(), m.end(), f"The user mentions {m.group(0).strip()}.")
    if not _mostly_upper(text):
        for start, end in _name_spans(text):
            name = text[start:end]
            if "<" in name or "PRESIDIO" in name:
                continue
            before = text[max(0, start - 40):start]
            cue = re.search(r"\b(?:the|a|an|this|my|our)?\s*(?P<noun>[a-z]+)\s+(?:(?:named|called|of)\s+)?$", before)
            if _TITLE.search(before):
                title = before.rstrip().split()[-1]
                claim = f"The user mentions a person named {title}{'' if title.endswith('.') else ' '}{name}."
                claim = claim.replace(f"{title}{title}", title)
            elif cue and cue.group("noun") in _CUE_NOUNS:
                phrase = before[cue.start():].strip()
                phrase = re.sub(r"^(?:my|our)\b", "the user's", phrase)
                if not phrase.lower().startswith(("the", "a ", "an ", "this")):
                    phrase = "the " + phrase
                claim = f"The user mentions {phrase} {name}."
            else:
                claim = f"The user mentions {name}."
            add(start, end, claim)
    return out


_APPOSITIVE_AFTER = (r"\s*,\s*(?P<app>(?:(?:currently|now|formerly|also|still)\s+)?"
                     r"(?:(?P<part>working|based|living|located|studying|employed|born|headquartered|situated|founded|owned|run)"
                     r"|the|a|an)\s[^,;:.!?()\n]{3,80}?)(?=\s*(?:[,;.!?(]|$|\s(?:and|who|which|that)\s))")
_APPOSITIVE = re.compile(rf"(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,4}})" + _APPOSITIVE_AFTER)
_APP_AFTER = re.compile(_APPOSITIVE_AFTER)
_NAME_BEFORE = re.compile(rf"(?<![\w'’-])(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,4}})$")


class _Span:
    """A name and its apposition found in two steps (start, end, groups as a match object has them)."""

    def __init__(self, start: int, end: int, name: str, app: str):
        self._start, self._end, self._groups = start, end, {"name": name, "app": app}

    def start(self, group: str | None = None) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self, name: str) -> str:
        return self._groups[name]


def appositive_claims(text: str) -> list[str]:
    """"Mickael BAUMAN, currently working at Alexander Mann solutions, based in Bordeaux" -> "Mickael
    BAUMAN is currently working at Alexander Mann solutions.", "Mickael BAUMAN is based in Bordeaux."
    (a name followed by an appositive: a participle phrase or a noun phrase with its article)."""
    out = []
    for m in _APP_AFTER.finditer(text):  # the apposition first, then the name that ends where it starts (fast)
        named = _NAME_BEFORE.search(text[max(0, m.start() - 100):m.start()])
        if not named:
            continue
        name = named.group("name")
        m = _Span(m.start() - len(name), m.end(), name, m.group("app"))
        if name.split()[0].lower() in _NOT_NAMES or name.split()[0].lower() in _STOP or len(m.group("app").split()) < 2:
            continue
        before = text[max(0, m.start() - 40):m.start()]
        if re.search(r"(?:,|\band|\bor|&|[A-Z][\w-]*\s+of)\s*$", before) or re.match(r"^\s*,\s*(?:and|or|the|a|an)\s", text[m.end():]):
            continue  # "..., Children and Armed Conflict, the Ethics Office, ...": a list of names, not an apposition
        if text[max(0, m.start() - 4):m.start()].lower() == "the ":
            name = "The " + name
        out.append(f"{name} is {user_voice(m.group('app')).strip()}.")
        # a second appositive after the first: ", based in Bordeaux"
        rest = text[m.end():]
        m2 = re.match(r"^\s*,\s*(?P<app>(?:working|based|living|located|studying|employed|born|headquartered)\s[^,;:.!?()\n]{3,60}?)"
                      r"(?=\s*(?:[,;.!?]|$))", rest)
        if m2:
            out.append(f"{name} is {user_voice(m2.group('app')).strip()}.")
    return out


def opens_paste(clause: str) -> bool:
    """Whether a clause ends by opening a pasted text ("rewrite this text: I moved to Oslo"): the clauses
    the splitter cut from the rest of its sentence are pasted too."""
    core = _LEAD.sub("", clause.strip().rstrip(" .;,")) or clause
    pieces = _split_pasted(core)
    return len(pieces) > 1 and pieces[-1][1]


# ---------------------------------------------------------------------------------------------------
# the record


_DANGLING = re.compile(r"\b(?:a|an|the|and|or|but|of|to|in|on|at|for|with|from|by|as|into|about|via|through|per|like|my|your|their|his|her|"
                       r"our|its|this|these|those|than|because|if|when|while|that|which|who)[.!?]?$", re.IGNORECASE)


def is_fragment(claim: str) -> bool:
    """A claim that is not a statement: it ends on a function word ("The user is living in."), or is at
    most three words without a verb ("Formal email.", "Funding sources.")."""
    body = claim.rstrip(" .!?\"”")
    return bool(_DANGLING.search(body))


def _short_fragment(claim: str) -> bool:
    """At most four words and no verb: a header of a pasted text ("Formal email.", "To the following
    address.")."""
    body = claim.rstrip(" .!?\"”")
    named = any(w[:1].isupper() or any(ch.isdigit() for ch in w) for w in body.split()[1:])
    return len(body.split()) <= 4 and not named and not _clause_like(body)


def finish_request(claims: list[str], values: list[str]) -> list[str]:
    """The claims of a request without padding: a claim with no content word is dropped, as is one
    with the content words of an earlier claim, and a value claim whose value an earlier claim states
    with at most two other content words."""
    out: list[str] = []
    kept: list[frozenset[str]] = []
    value_words = {content_words(v) for v in values}
    for c in claims:
        words = content_words(c)
        if not words or words in kept or is_fragment(c) or len(claims) > 1 and _short_fragment(c):
            continue
        if words in value_words and len(c.split()) <= 6 and not _clause_like(c):
            continue  # "Epic Systems." (a list item): "The user mentions Epic Systems." says it as a sentence
        out.append(c)
        kept.append(words)
    for c in values:
        words = content_words(c)
        if not words or any(words <= k and len(k - words) <= 2 for k in kept):
            continue
        out.append(c)
        kept.append(words)
    return out
