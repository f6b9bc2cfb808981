"""Turning a heading into a question, only where a small rule makes that safe.

Each rule returns the question and its name, which goes into the row's provenance:

- `question-heading`: the heading already is a question ("How do I reset my password?").
- `faq-entry`: a "Q: …" line of an FAQ (the caller strips the marker).
- `wh-heading`: a heading that starts like a question but lacks the "?" ("How to install
  Lumen" -> "How do I install Lumen?", "Why sync fails" -> "Why sync fails?" is NOT made: only
  headings starting with a question word followed by an auxiliary or "to" are accepted).
- `gerund-heading`: "Installing packages" -> "How do I install packages?", only when the first
  word is the -ing form of a verb in VERBS (a closed list: English -ing words are often nouns,
  "Building", "Meeting", "Listing"), "your" becoming "my".
- `definition-heading`: "The sources.list file" -> "What is the sources.list file?" (a heading
  of 2-6 words starting with The/A/An, holding no verb form from VERBS, whose section's first
  sentence names the term; "are" for a plural).
- `definition-sentence`: a short term heading ("APT", "Vault notes") whose section's first
  sentence defines it ("APT is the …", "Vault notes are …") -> "What is APT?" / "What are …?".

Generic headings (Introduction, Overview, See also, …) never become questions.
"""

from __future__ import annotations

import re

_BASES = """
access activate add adjust allow analyse analyze apply archive assign attach authenticate back
backup block boot browse build calculate call cancel capture change check choose clean clear
clone close collect combine compare compile compress configure connect convert copy count create
customize customise debug decrypt define delete deploy design detect disable download drag drop
edit embed emulate enable encrypt enter erase estimate evaluate export extend extract filter find
fix format generate get group handle hide highlight host identify import improve index ingest
initialize initialise insert inspect install integrate invite keep label launch link list load
lock log login manage map mark measure merge migrate mirror modify monitor mount move name
navigate open optimize optimise organize organise pair parse partition paste patch pause pin
plan play plug prepare preview print protect publish pull purge push query read rebuild recover
reduce refresh register reinstall reload remove rename render reorder repair replace report
request reset resize resolve restart restore resume retrieve review revoke rotate run save scale
scan schedule search secure select send set share show sign skip sort specify split start stop
store submit subscribe summarize summarise switch sync synchronize synchronise tag test track
train transfer translate troubleshoot turn type uninstall unlock unmount update upgrade upload
use validate verify view write
""".split()
# one-syllable verbs ending consonant-vowel-consonant double it: run -> running
_DOUBLE = frozenset("run get set stop plan put cut ship log map drop shut swap tag pin zip plug "
                    "scan skip step strip trim wrap debug submit commit permit forget split drag "
                    "grab tap".split())


def _gerund(base: str) -> str:
    if base in _DOUBLE:
        return base + base[-1] + "ing"
    if base.endswith("ie"):
        return base[:-2] + "ying"
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
        return base[:-1] + "ing"
    return base + "ing"


VERBS: dict[str, str] = {_gerund(b): b for b in _BASES}  # gerund -> base form
GENERIC = frozenset("""
introduction overview summary contents conclusion conclusions references notes note appendix
index preface foreword acknowledgements acknowledgments license licence abstract glossary faq
questions answers contact changelog history examples example see also background purpose scope
details description general miscellaneous other misc getting started next steps prerequisites
requirements troubleshooting tips about usage options synopsis author authors bugs files
warning caution tip important table
""".split())
_WH = re.compile(r"^(how|what|why|when|where|which|who|can|could|does|do|is|are|should|will)\b",
                 re.IGNORECASE)
_WH_OK = re.compile(r"^(how|what|why|when|where|which|who)\s+(to|do|does|did|is|are|can|should|"
                    r"will|would|could|happens)\b|^(can|could|does|do|is|are|should|will)\s+\w+",
                    re.IGNORECASE)
_ING_NOUNS = frozenset("string strings thing things nothing something everything anything ring "
                       "spring morning evening ceiling".split())
_ARTICLE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][\w.+/-]*")
MAX_QUESTION_WORDS = 45  # FAQ questions run long ("I am making a special Linux distribution …?")
_PRONOUNS = {"your": "my", "yours": "mine", "yourself": "myself", "you": "I"}


def _words(text: str) -> list[str]:
    return text.split()


def is_generic(heading: str) -> bool:
    """A heading every document has (Introduction, See also): no question to ask of it."""
    words = [w.strip(":.").lower() for w in _words(heading)]
    return all(w in GENERIC or w in ("and", "the", "a", "of", "&") for w in words)


def _first_person(words: list[str]) -> list[str]:
    return [_PRONOUNS.get(w.lower(), w) for w in words]


def from_heading(heading: str, first_sentence: str | None = None) -> tuple[str, str] | None:
    """(question, rule) for a heading, or None when no rule applies safely. `first_sentence`:
    the section's first sentence (the definition rule needs the section to name the term)."""
    text = " ".join(heading.split()).strip()
    words = _words(text)
    if len(words) < 2 or len(words) > MAX_QUESTION_WORDS or is_generic(text):
        return None
    if "?" in text and not text.endswith("?"):
        text = text[: text.rindex("?") + 1]  # "How can you help? (official)": the question
        words = _words(text)
    if text.endswith("?"):
        ok = len(words) >= 3 and not looks_like_code(text)
        return (text, "question-heading") if ok else None
    if any(c in text for c in "()[]/\\") or ". " in text:
        return None  # a sentence, a path or an aside: no safe question

    if text.endswith((".", ":", ";", ",", "!")):
        return None
    if _WH.match(text):
        if not _WH_OK.match(text) or words[1].lower() in ("not", "n't"):
            return None  # "Do not reinvent the wheel" is advice, not a question
        if words[1].lower() == "to" and len(words) < 4:
            return None  # "What to send": too little to ask without the document around it
        if re.match(r"^how\s+to\s+", text, re.IGNORECASE):
            rest = _first_person(words[2:])
            return (f"How do I {' '.join(rest)}?", "wh-heading") if rest else None
        return f"{text}?", "wh-heading"
    if not is_phrase(text):
        return None  # a sentence, a piece of one, or code: no safe question
    first = words[0].lower()
    if first in VERBS:
        rest = words[1:]
        converted = [VERBS[w.lower()] if i > 0 and rest[i - 1].lower() in ("and", "or")
                     and w.lower() in VERBS else w for i, w in enumerate(rest)]
        if any((w.lower().endswith("ing") and w.lower() not in _ING_NOUNS)
               or w.lower() in ("versus", "vs", "vs.") for w in converted):
            return None  # "Deleting versus editing": a second -ing form has no safe base form
        return f"How do I {' '.join([VERBS[first], *_first_person(converted)])}?", "gerund-heading"
    if _ARTICLE.match(text) and 2 <= len(words) <= 6:
        if any(w.lower() in VERBS or w.lower() in _BASES for w in words[1:]):
            return None
        term = " ".join(words[1:])
        # the section must be about the term: "The console tips" over "There are some utility
        # programs …" made "What is the console tips?" (debian-reference, issue 36)
        if first_sentence is None or term.lower() not in " ".join(first_sentence.split()).lower():
            return None
        verb = "are" if _plural(words[-1]) else "is"
        return f"What {verb} {words[0].lower()} {term}?", "definition-heading"
    return None


def _plural(word: str) -> bool:
    """"tips", "files": plural; "process", "status", "analysis", "tmpfs": not."""
    low = word.lower()
    return (low.endswith("s") and not low.endswith(("ss", "us", "is", "fs", "ics"))
            and low.isalpha() and len(low) > 3)


def from_definition(term: str, first_sentence: str,
                    names: frozenset[str] | None = None) -> tuple[str, str] | None:
    """"What is TERM?" when the section's first sentence defines the term ("TERM is …"). With
    `names` (the document's capitalised words), a term capitalised only because it opens the
    sentence is lower-cased ("Colorized commands are …" -> "What are colorized commands?")."""
    term = " ".join(term.split())
    words = _words(term)
    if not 1 <= len(words) <= 6 or is_generic(term) or not _WORD.match(term):
        return None
    if term.endswith(("?", ".", ":", "!")) or not is_phrase(term):
        return None
    pattern = rf"^((?:the|a|an)\s+)?({re.escape(term)})\s+(is|are|means|refers to)\s+\S"
    found = re.match(pattern, " ".join(first_sentence.split()), re.IGNORECASE)
    if found is None:
        return None
    verb = "are" if found.group(3).lower() == "are" else "is"
    # as the sentence writes it: "the data security infrastructure", not "Data security …"
    term = found.group(2)
    first = term.split()[0]
    if names is not None and not found.group(1) and _TITLED.match(first) and first.lower() not in names:
        term = first.lower() + term[len(first):]  # "Colorized commands are …": sentence-initial capital
    if found.group(1) and found.group(1).strip().lower() == "the":
        term = f"the {term}"
    return f"What {verb} {term}?", "definition-sentence"


# -- guards and clean-up applied to every mined question (issue 36) -------------------------------

_SQL = re.compile(r"\b(?:select\b.+\bfrom|insert\s+into|update\b.+\bset|delete\s+from|create\s+"
                  r"(?:table|index|view)|where\b.+[=<>]|values\s*\()", re.IGNORECASE)
# braces, comparisons, "= ?" placeholders, arrows, prompts, a closing ";". Not "f()" nor "x=y":
# prose questions name functions ("Why is join() a string method?") and forms ("METHOD=POST")
_CODE = re.compile(r"[{}]|==|!=|=\s*\?|\(\s*\?|->|=>|^\s*[$#>]\s|;\s*$")
_FINITE = frozenset("is are was were has have had can cannot can't will won't would should must "
                    "does doesn't do don't isn't aren't may might not".split())


def looks_like_code(text: str) -> bool:
    """A line of code or SQL ("SELECT * FROM t WHERE id = ?"): never a question or a heading."""
    return bool(_SQL.search(text) or _CODE.search(text))


def is_phrase(text: str) -> bool:
    """A heading phrase ("Installing packages", "The spool folder"), not a sentence or a piece
    of one ("Deleting a file is not safe, but it"): no comma, no finite verb, no code."""
    words = [w.strip(".,;:!?()\"'").lower() for w in text.split()]
    return ("," not in text and ": " not in text and not _FINITE.intersection(words)
            and not looks_like_code(text))


_TITLED = re.compile(r"^[A-Z][a-z][a-z'’-]*$")  # "Export", "Notebook": not "GNU", "iPhone", "I"
_MID_SENTENCE = re.compile(r"(?<=[a-z0-9,;] )([A-Za-z][A-Za-z'’-]+)")


def capitalised_words(text: str) -> frozenset[str]:
    """Words a document writes capitalised mid-sentence more often than not: its names
    ("Debian", "Google"), which stay capitalised when a Title Case heading is normalised."""
    counts: dict[str, list[int]] = {}
    for found in _MID_SENTENCE.finditer(text):
        word = found.group(1)
        pair = counts.setdefault(word.lower(), [0, 0])
        if word.islower():
            pair[1] += 1
        elif _TITLED.match(word):
            pair[0] += 1
    return frozenset(w for w, (upper, lower) in counts.items() if upper > lower)


def sentence_case(question: str, names: frozenset[str] = frozenset()) -> str:
    """"How do I export An Entire Notebook To A Text File?" -> "How do I export an entire notebook
    to a text file?": in a question mostly in Title Case, Title-cased words after the first become
    lower case unless they are names (`names`); acronyms, "I" and mixed-case words are kept."""
    words = question.split(" ")
    candidates = [w.strip("?!.,:;\"'()") for w in words[1:]]
    candidates = [w for w in candidates if len(w) >= 2 and w.isalpha()]
    titled = [w for w in candidates if _TITLED.match(w)]
    if len(titled) < 3 or len(titled) < 0.6 * len(candidates):
        return question
    out = [words[0]]
    for word in words[1:]:
        core = word.strip("?!.,:;\"'()")
        if core == "A" or (_TITLED.match(core) and core.lower() not in names):
            word = word.replace(core, core.lower(), 1)
        out.append(word)
    return " ".join(out)
