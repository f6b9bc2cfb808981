"""A small list of the most common English words, to tell whether a shifted alphabet (ROT13,
atbash) turned gibberish into English. Frequent function words only: any English sentence has
several, a ROT13'd one almost none."""

from __future__ import annotations

import re

COMMON = frozenset(
    """the of and to a in is it you that he was for on are with as his they be at one have this
    from or had by not word but what some we can out other were all there when up use your how
    said an each she which do their time if will way about many then them write would like so
    these her long make thing see him two has look more day could go come did number sound no most
    people my over know water than call first who may down side been now find any new work part
    take get place made live where after back little only round man year came show every good me
    give our under name very through just form sentence great think say help low line differ turn
    cause much mean before move right boy old too same tell does set three want air well also play
    small end put home read hand port large spell add even land here must big high such follow act
    why ask men change went light kind off need house picture try us again animal point mother world
    near build self earth father instructions ignore previous system prompt tell reveal secret
    password all above everything i am should into its our your yours please now""".split()
)  # fmt: skip
# whole words in any script: "phở" is one word, not "ph" (a fragment that a cipher could turn into
# "cu", or that could happen to be a common English word); a word with a letter outside ASCII is
# never a common English word, so it counts against the share
_WORD = re.compile(r"[^\W\d_]+")


def english_words(text: str) -> int:
    """How many of the words of `text` (lower-cased letter runs) are common English words."""
    return sum(w in COMMON for w in _WORD.findall(text.lower()))


def english_share(text: str) -> float:
    found = _WORD.findall(text.lower())
    return sum(w in COMMON for w in found) / len(found) if found else 0.0


def ascii_letter_share(text: str) -> float:
    """Share of the letters of `text` that are ASCII (1.0 when it has none)."""
    letters = [c for c in text if c.isalpha()]
    return sum(c.isascii() for c in letters) / len(letters) if letters else 1.0
