"""Identity releases disguised in ways a reader sees through at once (issue 25's table), scored with the
default pipeline on MedQA profiles beside the undisguised identity release.

    OMP_NUM_THREADS=1 python benchmarks/adversarial_reader.py                    # first eight profiles
    OMP_NUM_THREADS=1 python benchmarks/adversarial_reader.py --records 8 --judge nli --unreadable judge

Prints one line per disguise: semantic privacy, linkage rate, lexical privacy and ``n_unreadable``.
The records are ``../shared/data/medqa/sampled_50.jsonl`` (``--data``); the Spanish row uses the hand
translations in ``tests/data/medqa_es.jsonl`` (present for the first eight profiles). tests/
test_adversarial_reader.py pins each row within 0.05 of the identity release.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

from textleak.data.medqa import read_medqa_jsonl
from textleak.leakage import evaluate_leakage

REPO = Path(__file__).resolve().parent.parent


def _words(text: str, after: str) -> str:
    return " ".join(w + after for w in text.split(" "))


DISGUISES = {
    "identity": lambda t: t,
    "every e as &#101;": lambda t: t.replace("e", "&#101;"),
    "U+034F after each word": lambda t: _words(t, "\u034f"),
    "U+FE0F after each word": lambda t: _words(t, "\ufe0f"),
    "U+3164 for each space": lambda t: t.replace(" ", "\u3164"),
    "U+3164 beside each space": lambda t: t.replace(" ", " \u3164"),
    "ɑ ı ɡ for a i g": lambda t: t.replace("a", "\u0251").replace("i", "\u0131").replace("g", "\u0261"),
    "small capitals ᴏ ꜱ ᴜ": lambda t: t.replace("o", "\u1d0f").replace("s", "\ua731").replace("u", "\u1d1c"),
    "RLO + record reversed": lambda t: "\u202e" + t[::-1] + "\u202c",
    "letters spaced out": lambda t: "  ".join(" ".join(w) for w in t.split(" ")),
    "letters joined by hyphens": lambda t: " ".join("-".join(w) if w.isalpha() else w for w in t.split(" ")),
    "accents on every vowel": lambda t: t.translate(str.maketrans("aeiou", "áéïôü")),
    "two marks on every letter": lambda t: "".join(c + "\u0336\u0352" if c.isalpha() else c for c in t),
    "one word per line": lambda t: "\n".join(t.split(" ")),
    "spaces removed": lambda t: t.replace(" ", ""),
    "leetspeak": lambda t: t.translate(str.maketrans("aeiot", "43107")),
    "parenthesized letters": lambda t: "".join(chr(0x249C + ord(c) - 97) if "a" <= c <= "z" else c for c in t),
    "negative squared capitals": lambda t: "".join(chr(0x1F170 + ord(c) - 65) if "A" <= c <= "Z" else c for c in t.upper()),
    "spaces as %20": lambda t: t.replace(" ", "%20"),
    "spaces as dots": lambda t: t.replace(" ", "."),
    "spaces as underscores": lambda t: t.replace(" ", "_"),
    "empty tags inside words": lambda t: " ".join(w[:2] + "<b></b>" + w[2:] if len(w) > 3 else w for w in t.split(" ")),
    "every word reversed": lambda t: " ".join(w[::-1] for w in t.split(" ")),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "medqa" / "sampled_50.jsonl"))
    parser.add_argument("--records", type=int, default=8)
    parser.add_argument("--judge", default="nli")
    parser.add_argument("--unreadable", default="leak", choices=("leak", "exclude", "judge"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    records = list(read_medqa_jsonl(args.data))[: args.records]
    texts, ids = [r["text"] for r in records], [r["id"] for r in records]
    spanish = {r["id"]: r["text"] for r in map(json.loads, (REPO / "tests" / "data" / "medqa_es.jsonl").read_text("utf-8").splitlines())}
    rows = {name: [f(t) for t in texts] for name, f in DISGUISES.items()}
    if all(i in spanish for i in ids):
        rows["translated into Spanish"] = [spanish[i] for i in ids]
    for name, released in rows.items():
        t = time.perf_counter()
        r = evaluate_leakage(texts, released, original_ids=ids, judge=args.judge, unreadable=args.unreadable,
                             bootstrap=0, use_cache=False)
        print(f"{name:28s} semantic {r.semantic_privacy:.3f}  linkage {r.linkage_rate:.2f}  lexical {r.lexical_privacy:.3f}  "
              f"n_unreadable {r.n_unreadable}  ({time.perf_counter() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
