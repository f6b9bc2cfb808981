"""Layer 0 of Axiom's intent router: deterministic hard rules (< 1 ms).

Garbage rules are Axiom's (≤ 1 char, no letters, > 90% one character, stopword density > 90%
in ≤ 5 words) plus a keyboard-mash rule; greeting and gratitude fire only when the whole input
is one (so "hi, what is a vault?" goes on to the question layers); a leading imperative verb
("summarize", "compare", "list all") is a command, as in Axiom's command exemplars.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from rag.text import QUESTION_WORDS, STOPWORDS, words

_GREETING = re.compile(
    r"(hi|hello|hey|heya|hiya|howdy|yo|sup|greetings|good (morning|afternoon|evening|day)|"
    r"morning|evening)( there| all| everyone| folks| team| bot)?", re.I)
_GRATITUDE = re.compile(
    r"(thanks?( you)?|thank u|thx|ty|tysm|cheers|much appreciated|appreciate (it|that)|"
    r"many thanks)( (so|very) much| a lot| a ton| again| for (the|your) help)?", re.I)
_COMMAND = re.compile(
    r"(summari[sz]e|compare|contrast|list( all| every)?|enumerate|outline|tabulate|"
    r"give me (an? )?(overview|summary|list|table|breakdown))\b", re.I)
_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_TRAILING = " !.?,;:)(*~-_'\"" + "🙂😊🙏👍❤️👋"


@dataclass(frozen=True)
class RuleHit:
    """The intent a hard rule decided and the rule's name (shown in the trace)."""

    intent: str
    rule: str


def _core(text: str) -> str:
    """Lower-cased text without surrounding punctuation and emoji; commas become spaces."""
    return " ".join(text.strip(_TRAILING + " \n\t").lower().replace(",", " ").split())


def _keyboard_run(word: str, run: int = 4) -> bool:
    """True when `word` holds `run` consecutive keys of a keyboard row, e.g. "asdf"."""
    return any(
        row[i : i + run] in word or row[i : i + run][::-1] in word
        for row in _KEYBOARD_ROWS for i in range(len(row) - run + 1)
    )


def _garbage_rule(text: str) -> str | None:
    stripped = "".join(text.split())
    if len(stripped) <= 1:
        return "too_short"
    if not any(ch.isalpha() for ch in stripped):
        return "no_letters"
    top = Counter(stripped.lower()).most_common(1)[0][1]
    if len(stripped) >= 3 and top / len(stripped) > 0.9:
        return "repetitive"
    tokens = words(text)
    asks = "?" in text or (tokens and tokens[0] in QUESTION_WORDS)
    stopwords = sum(t in STOPWORDS for t in tokens)
    if tokens and len(tokens) <= 5 and not asks and stopwords / len(tokens) > 0.9:
        return "stopwords_only"  # (a bare "why?" asks something: not garbage)
    if len(tokens) <= 2 and any(
        len(t) >= 5 and t.isalpha() and t.isascii() and (not set(t) & set("aeiouy") or _keyboard_run(t))
        for t in tokens
    ):
        return "keyboard_mash"
    return None


def hard_rules(text: str) -> RuleHit | None:
    """The intent the rules decide for `text`, or None to go on to the semantic layer."""
    garbage = _garbage_rule(text)
    if garbage:
        return RuleHit("garbage", garbage)
    core = _core(text)
    if _GREETING.fullmatch(core):
        return RuleHit("greeting", "greeting_phrase")
    if _GRATITUDE.fullmatch(core):
        return RuleHit("gratitude", "gratitude_phrase")
    if _COMMAND.match(core):
        return RuleHit("command", "imperative_command")
    return None
