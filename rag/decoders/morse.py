"""International Morse code (ITU-R M.1677-1): runs of dot-dash letters separated by spaces,
words by "/" or wider gaps. Only runs of several letters are decoded ("-" and "..." alone are
punctuation)."""

from __future__ import annotations

import re

from rag.decoders.base import DECODERS, Decoded, readable

_CODE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h",
    "..": "i", ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p",
    "--.-": "q", ".-.": "r", "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x",
    "-.--": "y", "--..": "z", "-----": "0", ".----": "1", "..---": "2", "...--": "3", "....-": "4",
    ".....": "5", "-....": "6", "--...": "7", "---..": "8", "----.": "9", ".-.-.-": ".", "--..--": ",",
    "..--..": "?", "-..-.": "/", ".----.": "'", "-.-.--": "!",
}  # fmt: skip
_RUN = re.compile(r"(?:[.\-·•−–]{1,7}(?:\s*/\s*|\s+|$)){4,}")


def decode_morse(text: str) -> tuple[Decoded, ...]:
    found: list[Decoded] = []
    for match in _RUN.finditer(text):
        run = match.group().translate(str.maketrans("·•−–", "..--"))
        words = re.split(r"\s*/\s*|\s{2,}", run.strip())
        plain = " ".join("".join(_CODE.get(code, "") for code in w.split()) for w in words)
        if readable(plain):
            found.append(Decoded("morse", "decoded", plain, f"{len(run.split())} Morse letters"))
    return tuple(found)


DECODERS.add("morse", decode_morse)
