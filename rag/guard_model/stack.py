"""The guard's decision: one logistic score over what its three detectors found — the pattern
families hit, the n-gram detector's and the e5 detector's probabilities — and a few cheap facts
about the question (a request to transform text the user supplies, talk of the assistant's own
rules, a question mark, length). "Either detector fires at a fixed threshold" blocked ordinary
work requests ("act as a proofreader", "translate 'ignore the previous email'") whenever one
detector was unsure; a stacked score lets a pattern hit, a confident detector and the request's
shape weigh against each other.

Weights and the threshold chosen by leave-one-set-out over the dev sets live in stack.json
(trained by eval/guard_detector/train_stack.py; figures in eval/results/guard9_loso.json). The
card holds the stack over both detectors (variant "full"); when the card is missing or a detector
is off or not installed, the guard decides as before ("either fires": any pattern family, or a
detector over its own threshold), and the verdict's `stacked` is None.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from rag.guard_model.logistic import sigmoid
from rag.injection import fold

MODEL_DIR = Path(__file__).resolve().parent
STACK_CARD = MODEL_DIR / "stack.json"
_CLIP = 8.0  # detector logits beyond ±8 carry no more information than ±8

# A request to work on text the user supplies: translate / summarise / convert / proofread /
# rewrite / list from / draft. The detectors read the supplied text's words as if they were the
# user's own order; the request's shape says they are material. Folded (no accents, lower case).
_TRANSFORM = re.compile(
    r"(?:^|[.!?:]\s|\b(?:please|pls|kindly|can you|could you|would you|help me|i need you to|bitte|"
    r"por favor|s'il (?:te|vous) plait|per favore|prosze|пожалуйста|lutfen|tolong|vui long)\s+)"
    r"(?:translate|summari[sz]e|sum up|convert|proofread|rewrite|rephrase|paraphrase|reword|edit|"
    r"correct|fix|reformat|format|decode|encode|extract|list|draft|compose|shorten|condense|polish|"
    r"outline|tabulate|turn|make|write|check|spell-?check|tidy|clean up|transcribe|calculate|"
    r"tradu\w*|ubersetz\w*|traduc\w*|переведи|перевести|resum\w*|fass\w* zusammen|zusammenfass\w*|"
    r"riassum\w*|samenvat\w*|vat \w+ samen|podsumuj|streszcz\w*|przetlumacz\w*|vertaal|oversaet\w*|"
    r"oversett?\w*|kaanna|ceviri?\w*|tercume\w*|dich|tom tat|terjemah\w*|ringkas\w*|umrechn\w*|"
    r"konvert\w*|converti\w*|corrig\w*|korrigier\w*|schreib\w*|redige\w*|escrib\w*|scrivi|napisz|"
    r"напиши|составь|сократи|исправь)\b"
    r"|翻译|翻訳|总结|概括|要約|まとめ|번역|요약|ترجم|لخص")
# The object of such a request: a text the user hands over.
_SUPPLIED = re.compile(
    r"\b(?:this|the following|following|the attached|attached|the below|below|my|our|the|these)\s+"
    r"(?:\w+\s+){0,2}(?:text|e-?mails?|message|paragraph|sentences?|phrase|document|article|report|"
    r"notes?|memo|letter|log|file|transcript|minutes|url|table|list|call|snippet|passage|string|"
    r"reminder|announcement|post|review|contract|policy|chapter|section|slides?|invoice|amount)\b")
# Talk of the assistant's own setup: its rules, instructions, prompt.
_OWN_RULES = re.compile(
    r"\byour\b[\w\s]{0,25}\b(?:instructions?|rules|prompt|guidelines|programming|setup|configuration|"
    r"restrictions|filters?|directives|training|policy|policies|guardrails)\b"
    r"|\b(?:previous|prior|above|earlier|initial|original|system|hidden|secret|developer|preceding)\s+"
    r"(?:instructions?|prompts?|rules|messages?|directives|guidelines)\b"
    r"|system ?prompt|systemprompt|prompt (?:du )?systeme|prompt del sistema|prompt di sistema"
    r"|системн\w* (?:промпт|инструкц\w*)|系统提示|システムプロンプト|시스템 프롬프트")
# Asking for no limits at all: what jailbreaks want and work requests do not.
_UNBOUNDED = re.compile(
    r"\b(?:no|without|free (?:of|from)|beyond|ignore|bypass|drop|remove)\s+(?:any\s+|all\s+|your\s+)?"
    r"(?:rules|limits|limitations|restrictions|filters?|guidelines|censorship|boundaries|ethics|"
    r"policies|safeguards|guardrails)\b|uncensored|unrestricted|unfiltered|jailbr\w*|\bdan\b|"
    r"do anything now|developer mode|god mode")
_PERSONA = re.compile(
    r"\b(?:act as|acting as|pretend (?:to be|you are|you're)|role-?play|you are now|you're now|"
    r"from now on|imagine you are|play the role|stay in character)\b")
_QUESTION_END = ("?", "？", "؟")

# Pattern families, as the guard names them; any other family counts as "other".
FAMILIES = (
    "ignore_instructions", "reveal_prompt", "override_answer", "role_override", "claimed_authority",
    "fake_delimiter", "exfiltration_link", "encoded_instruction", "addresses_assistant",
    "encoded_text", "hidden_text", "homoglyph_words", "spread_out_letters",
)
# Smuggling findings (tag characters, words mixing scripts) block whatever the score: what hidden
# characters carry is judged by the hidden-character handling, which the stack does not reweigh.
ALWAYS_BLOCK = frozenset({"hidden_text", "homoglyph_words"})
_ZH = {"ignore_instructions_zh": "ignore_instructions", "reveal_prompt_zh": "reveal_prompt",
       "override_answer_zh": "override_answer"}
VARIANTS = {"full": ("learned", "e5"), "no_e5": ("learned",), "no_learned": ("e5",)}


@dataclass(frozen=True)
class Signals:
    """What the guard's detectors said about one question (None: that detector did not run)."""

    text: str  # the clean text
    families: tuple[str, ...]  # pattern families found, as the guard labels them
    learned: float | None  # None: did not run, or no score (a text too short for it)
    e5: float | None
    extraction: float | None = None  # e5 cosine to the closest request for the assistant's setup


def family_name(label: str) -> str:
    """'reveal_prompt (rot13)' -> 'reveal_prompt'; the Chinese families count as their kind."""
    name = label.split(" (", 1)[0]
    return _ZH.get(name, name)


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return max(-_CLIP, min(_CLIP, math.log(p / (1 - p)))) / _CLIP


def variant_of(learned: bool, e5: bool) -> str | None:
    """Which trained variant fits the detectors that are on and loaded (None: neither is)."""
    if learned and e5:
        return "full"
    if learned:
        return "no_e5"
    if e5:
        return "no_learned"
    return None


def features(signals: Signals, variant: str) -> dict[str, float]:
    """The stacked model's inputs: detector logits (scaled to [-1, 1]), family hits, shape facts,
    and the detectors' logits again inside a transform request and inside a question (so the
    model can trust a detector less there)."""
    folded = fold(signals.text)
    transform = 1.0 if _TRANSFORM.search(folded) else 0.0
    question = 1.0 if signals.text.rstrip().endswith(_QUESTION_END) else 0.0
    hit = {family_name(f) for f in signals.families}
    found: dict[str, float] = {f"family:{f}": 1.0 for f in FAMILIES if f in hit}
    if hit - set(FAMILIES):
        found["family:other"] = 1.0
    found.update({
        "families": min(len(hit), 3) / 3,
        "transform": transform,
        "supplied_text": 1.0 if transform and _SUPPLIED.search(folded) else 0.0,
        "own_rules": 1.0 if _OWN_RULES.search(folded) else 0.0,
        "unbounded": 1.0 if _UNBOUNDED.search(folded) else 0.0,
        "persona": 1.0 if _PERSONA.search(folded) else 0.0,
        "question": question,
        "length": min(math.log1p(len(signals.text)) / 8, 1.0),
    })
    if "e5" in VARIANTS[variant] and signals.extraction is not None:
        # e5 cosines of related questions sit around 0.8-0.95: centred and scaled to about [-1, 1]
        found["e5_extraction"] = max(-1.0, min(1.0, (signals.extraction - 0.85) / 0.1))
    for detector in VARIANTS[variant]:
        p = getattr(signals, detector)
        # no score (a text too short for the detector) is no evidence either way, not a 0
        z = _logit(p) if p is not None else 0.0
        if p is None:
            found[f"{detector}_absent"] = 1.0
        found[detector] = z
        found[f"{detector}*transform"] = z * transform
        found[f"{detector}*question"] = z * question
    return found


@dataclass(frozen=True)
class StackVariant:
    weights: dict[str, float]
    bias: float
    threshold: float

    def probability(self, feats: dict[str, float]) -> float:
        z = self.bias + sum(self.weights.get(k, 0.0) * v for k, v in feats.items())
        return sigmoid(z)


@dataclass(frozen=True)
class StackModel:
    variants: dict[str, StackVariant]
    version: str

    def score(self, signals: Signals, variant: str | None) -> tuple[float, float] | None:
        """(probability, threshold) of `variant`, or None when it was not trained (or is None)."""
        if variant is None or variant not in self.variants:
            return None
        chosen = self.variants[variant]
        return chosen.probability(features(signals, variant)), chosen.threshold


@functools.lru_cache(maxsize=1)
def load_stack() -> StackModel | None:
    """The committed stacked decision, or None when its card is missing."""
    if not STACK_CARD.exists():
        return None
    card = json.loads(STACK_CARD.read_text())
    variants = {name: StackVariant({k: float(w) for k, w in v["weights"].items()}, float(v["bias"]),
                                   float(v["threshold"]))
                for name, v in card["variants"].items()}
    return StackModel(variants, str(card["version"]))
