"""Input guardrails (Vexora `InputGuardrails.validate`): sanitize, then length, injection and
per-user rate checks. Blocked input gets a reason a person can read, never an exception.

Injection detection lives in rag.injection (several views of the text, many languages).
Sanitization: Unicode NFKC (full-width and compatibility forms to their plain letters), control
and invisible format characters removed (zero-width, bidi overrides: Unicode TR36 / TR39),
whitespace collapsed. Checks run on the sanitized text so hidden characters cannot split a
pattern, and on every decoded view of the raw text (rag.decoders: tag characters, base64, Morse …),
so what the sanitizer drops or an encoding hides is judged too. Mixed scripts are allowed; a word
mixing scripts is a homoglyph warning and is replaced by its ASCII look-alike in the clean text
(confusables.txt), so later stages read "ignore", not "іgnоrе".

The clean text is what every later stage reads: the guard stage puts it in `PipelineState.query`
(rag.query.stage), so the raw text of a cleaned question never reaches retrieval or a prompt.
"""

from __future__ import annotations

import re
import threading
import time
import unicodedata
from collections import deque
from dataclasses import dataclass, replace
from typing import Literal

from rag.decoders.base import Decoded
from rag.decoders.confusables import skeleton
from rag.decoders.unicode_hidden import stripped_views
from rag.guard_model.detector import load_model
from rag.guard_model.e5 import load_e5
from rag.guard_model.stack import ALWAYS_BLOCK, Signals, family_name, load_stack, variant_of
from rag.hidden_chars import Stripped, strip_hidden
from rag.injection import decoded_views, detect, views
from rag.injection_mentions import mask_for_detector
from rag.settings.query import GuardConfig
from rag.text import mixed_script_words, scripts

Verdict = Literal["ok", "empty", "too_long", "injection", "rate_limited"]

_KEEP_CONTROLS = {"\n", "\t"}
_CIPHERS = frozenset({"rot13", "atbash"})
_MIN_LEARNED_WORDS = 4
_MIN_E5_CHARS = 12
NO_VIEW = "none"  # the n-gram detector's view when no view had enough words to score


@dataclass(frozen=True)
class LearnedVerdict:
    """The learned detector's verdict: its highest probability over the text and every decoded
    view, the view it came from, and the threshold it was held to."""

    probability: float
    view: str
    threshold: float
    model: str
    detector: str = "learned_detector"  # learned_detector: n-grams; e5_detector: e5 embeddings

    @property
    def flagged(self) -> bool:
        return self.probability >= self.threshold

    @property
    def label(self) -> str:
        return f"{self.detector} ({self.view}, p={self.probability:.2f} >= {self.threshold:.2f})"


@dataclass(frozen=True)
class GuardVerdict:
    """What the guard decided: `text` is the sanitized query to use when `allowed`."""

    allowed: bool
    verdict: Verdict
    text: str
    reason: str = ""
    original_chars: int = 0
    removed_chars: int = 0  # control / invisible characters dropped by sanitization
    truncated: bool = False
    matched_patterns: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    learned: LearnedVerdict | None = None  # the learned detector's score (None: off or missing)
    e5: LearnedVerdict | None = None  # the multilingual e5 detector's score (None: off or missing)
    e5_note: str = ""  # why the e5 detector did not run (missing model: the n-gram detector alone)
    unmixed: tuple[str, ...] = ()  # words mixing scripts, spelled with their ASCII look-alikes in `text`
    families: tuple[str, ...] = ()  # pattern families found (with their views), blocking or not
    e5_extraction: float | None = None  # cosine to the closest request for the assistant's setup
    stacked: LearnedVerdict | None = None  # the stacked decision (None: "either fires" decided)
    outweighed: tuple[str, ...] = ()  # what a detector found that the stacked score outweighed

    @property
    def signals(self) -> Signals:
        """What the detectors said, as the stacked decision reads it."""
        learned = self.learned.probability if self.learned and self.learned.view != NO_VIEW else None
        return Signals(self.text, self.families, learned, self.e5.probability if self.e5 else None,
                       self.e5_extraction)


def sanitize(text: str) -> tuple[str, int]:
    """NFKC; control characters (Cc, except newline/tab) become spaces, invisible format
    characters (Cf: zero-width, bidi overrides) vanish; whitespace collapses. Returns the clean
    text and how many characters were removed."""
    normalized = unicodedata.normalize("NFKC", text)
    kept: list[str] = []
    removed = 0
    for ch in normalized:
        category = unicodedata.category(ch)
        if ch in _KEEP_CONTROLS or category not in ("Cc", "Cf", "Cs", "Co"):
            kept.append(ch)
        else:  # a control char may separate words (space); an invisible one may split them
            removed += 1
            kept.append(" " if category == "Cc" else "")
    return re.sub(r"\s+", " ", "".join(kept)).strip(), removed


class RateLimiter:
    """Sliding-window limit per user: at most `limit` queries in any `window_s` seconds."""

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit = limit
        self.window_s = window_s
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()  # one limiter serves every streamlit session

    def check(self, user: str, now: float | None = None) -> float | None:
        """Record a query; None when allowed, else seconds until the next one is allowed."""
        now = time.monotonic() if now is None else now
        with self._lock:
            seen = self._seen.setdefault(user, deque())
            while seen and seen[0] <= now - self.window_s:
                seen.popleft()
            if len(seen) >= self.limit:
                return seen[0] + self.window_s - now
            seen.append(now)
            return None


def guard(
    query: str, cfg: GuardConfig, user: str | None = None, limiter: RateLimiter | None = None,
    now: float | None = None, hidden: Stripped | None = None,
) -> GuardVerdict:
    """Sanitize `query` and decide whether it may go on; rate-limits only when `user` is given.
    `hidden`: what the pipeline's edge already stripped from `query` (rag.hidden_chars); a raw
    text passed directly is stripped here the same way, so both paths judge the same views."""
    stripped = strip_hidden(query)
    hidden = stripped if hidden is None or stripped.count else hidden
    original = len(query) + (hidden.count if hidden is not stripped else 0)
    query = stripped.text
    extra = stripped_views(hidden)
    sanitized, removed = sanitize(query)
    removed += hidden.count
    text = _unmix(sanitized)
    ok = GuardVerdict(True, "ok", text, original_chars=original, removed_chars=removed,
                      scripts=tuple(sorted(scripts(text))), unmixed=tuple(mixed_script_words(sanitized)))
    if not cfg.enabled:
        return replace(ok, reason="guard disabled")
    if not text:
        gone = f" after removing {removed} control/hidden characters" if removed else ""
        return replace(ok, allowed=False, verdict="empty",
                       reason=f"the query is empty{gone}: type a question")
    if len(text) > cfg.max_chars:
        if cfg.on_too_long == "block":
            return replace(ok, allowed=False, verdict="too_long", text="",
                           reason=f"the query is {len(text):,} characters; the limit is "
                                  f"{cfg.max_chars:,} (query.guard.max_chars)")
        cut = text[: cfg.max_chars]
        ok = replace(ok, text=cut.rsplit(" ", 1)[0] if " " in cut else cut, truncated=True)
    custom = tuple(f"custom:{p}" for p in cfg.extra_patterns if re.search(p, ok.text, re.I))
    # the unsanitized text: its decoders see what sanitizing hides (encodings, spacing); the
    # hidden characters' views come from the strip
    learned = _learned(query, cfg, extra)
    e5, e5_note, e5_extraction = _e5(ok.text, cfg)
    flagged = tuple(v.label for v in (learned, e5) if v is not None and v.flagged)
    ok = replace(ok, learned=learned, e5=e5, e5_note=e5_note, e5_extraction=e5_extraction,
                 families=detect(query, extra))
    stacked = _stacked(ok, cfg)
    found = ok.families + flagged
    if stacked is None:  # "either fires": any family, any detector over its own threshold
        matched = found + custom
    elif stacked.flagged:
        matched = (*found, stacked.label, *custom)
        ok = replace(ok, stacked=stacked)
    else:  # smuggling findings block whatever the score (rag.guard_model.stack.ALWAYS_BLOCK)
        hard = tuple(f for f in ok.families if family_name(f) in ALWAYS_BLOCK)
        matched = hard + custom
        ok = replace(ok, stacked=stacked, outweighed=tuple(f for f in found if f not in hard))
    ok = replace(ok, matched_patterns=matched)
    if matched and cfg.block_injection:
        return replace(ok, allowed=False, verdict="injection",
                       reason=f"the query looks like a prompt-injection attempt ({', '.join(matched)}); "
                              "rephrase it as a question about the documents")
    if user is not None and limiter is not None:
        wait = limiter.check(user, now)
        if wait is not None:
            return replace(ok, allowed=False, verdict="rate_limited",
                           reason=f"too many queries from {user!r}: the limit is {limiter.limit} "
                                  f"per {limiter.window_s:g} s; try again in {wait:.0f} s")
    return replace(ok, warnings=_warnings(ok))


def _learned(query: str, cfg: GuardConfig, extra: tuple[Decoded, ...] = ()) -> LearnedVerdict | None:
    """The learned detector over the text and its decoded views (the patterns' views)."""
    model = load_model() if cfg.learned_detector else None
    if model is None:
        return None
    threshold = cfg.learned_threshold if cfg.learned_threshold is not None else model.threshold
    # a cipher's form of plain text is gibberish, which a model of n-grams scores as odd: the
    # detector reads cipher forms only when they decoded to readable English (kind "decoded")
    decoded = decoded_views(query) + extra
    kept = tuple(d for d in decoded if not (d.view in _CIPHERS and d.kind == "normalised"))
    # a view of a few words is too little evidence for n-grams ("reset my password" scores like
    # Gandalf's "password?" games): the patterns judge those alone
    best = max(((model.probability(text), name) for name, text in views(query, decoded=kept).items()
                if len(text.split()) >= _MIN_LEARNED_WORDS), default=(0.0, NO_VIEW))
    return LearnedVerdict(round(best[0], 4), best[1], threshold, model.version)


def _e5(text: str, cfg: GuardConfig) -> tuple[LearnedVerdict | None, str, float | None]:
    """The multilingual e5 detector on the clean text (its head: rag.guard_model.e5) and the
    text's closeness to a request for the assistant's setup, or why not.
    Either detector firing blocks: on the dev sets' validation half the e5 detector catches
    jailbreaks and "ignore" orders in languages the n-grams never saw, and the n-grams catch
    appended attacks past the e5 detector's head (eval/results/guard_e5_detector.json)."""
    if not cfg.e5_detector:
        return None, "", None
    model = load_e5()
    if isinstance(model, str):
        return None, model, None
    # a quoted phrase talked about, a conversion's payload, a section's topic are not orders
    text = mask_for_detector(text)
    if len(text) < _MIN_E5_CHARS:  # a word or two: too little for either detector
        return None, "", None
    threshold = cfg.e5_threshold if cfg.e5_threshold is not None else model.threshold
    probability, similarity = model.read(text)
    return (LearnedVerdict(round(probability, 4), "text", threshold, model.version, "e5_detector"), "",
            round(similarity, 4))


def _stacked(verdict: GuardVerdict, cfg: GuardConfig) -> LearnedVerdict | None:
    """The stacked score over the detectors' outputs (rag.guard_model.stack), or None when the
    guard decides by "either fires": asked to, no stack card, or no variant trained for the
    detectors that are on and loaded (the card holds the stack over both)."""
    stack = load_stack() if cfg.decision == "stacked" else None
    if stack is None:
        return None
    # a detector that ran but had too little text to score counts as absent in the signals
    variant = variant_of(verdict.learned is not None, cfg.e5_detector and not verdict.e5_note)
    if variant is None or (scored := stack.score(verdict.signals, variant)) is None:
        return None
    probability, threshold = scored
    if cfg.stack_threshold is not None:
        threshold = cfg.stack_threshold
    return LearnedVerdict(round(probability, 4), variant, threshold, stack.version, "stacked")


def _unmix(text: str) -> str:
    """Words that mix scripts (a Cyrillic "о" in a Latin word) spelled with the ASCII letters
    they imitate; words in one script, Russian or Greek included, are left as they are."""
    def unmix(word: re.Match[str]) -> str:
        return skeleton(word.group()) if len(scripts(word.group())) > 1 else word.group()

    return re.sub(r"[^\W_]+", unmix, text)


def _warnings(verdict: GuardVerdict) -> tuple[str, ...]:
    found = [f"possible homoglyphs: {w!r} mixes {'+'.join(sorted(scripts(w)))}"
             for w in mixed_script_words(verdict.text)]
    if verdict.unmixed:
        found += [f"possible homoglyphs: {w!r} mixes {'+'.join(sorted(scripts(w)))}; read as its ASCII "
                  "look-alike" for w in verdict.unmixed]
    if verdict.e5_note:
        found.append(verdict.e5_note)
    if verdict.truncated:
        found.append(f"query truncated to {len(verdict.text):,} characters (query.guard.max_chars)")
    if verdict.removed_chars:
        found.append(f"removed {verdict.removed_chars} control/invisible characters")
    if verdict.matched_patterns:
        found.append(f"injection patterns matched but not blocked: {', '.join(verdict.matched_patterns)}")
    if verdict.outweighed and verdict.stacked is not None:
        found.append(f"found {', '.join(verdict.outweighed)}, but the stacked score "
                     f"{verdict.stacked.probability:.2f} < {verdict.stacked.threshold:.2f}: not blocked")
    return tuple(found)
