"""Unicode Braille patterns (U+2800–U+28FF) read as English grade-1 Braille: letters a–z, the
capital sign (dot 6), the number sign (dots 3-4-5-6, then a–j are 1–0). The cell U+2800 is a
space. Any run of Braille cells is decoded."""

from __future__ import annotations

import re

from rag.decoders.base import DECODERS, Decoded, readable

_DOTS = {
    "a": "1", "b": "12", "c": "14", "d": "145", "e": "15", "f": "124", "g": "1245", "h": "125",
    "i": "24", "j": "245", "k": "13", "l": "123", "m": "134", "n": "1345", "o": "135", "p": "1234",
    "q": "12345", "r": "1235", "s": "234", "t": "2345", "u": "136", "v": "1236", "w": "2456",
    "x": "1346", "y": "13456", "z": "1356", ",": "2", ";": "23", ":": "25", ".": "256", "!": "235",
    "?": "236", "'": "3", "-": "36",
}  # fmt: skip


def _cell(dots: str) -> str:
    return chr(0x2800 + sum(1 << (int(d) - 1) for d in dots))


_LETTERS = {_cell(dots): ch for ch, dots in _DOTS.items()}
_CAPITAL, _NUMBER, _BLANK = _cell("6"), _cell("3456"), "\u2800"
_DIGITS = dict(zip("abcdefghij", "1234567890", strict=True))
_RUN = re.compile(r"[\u2800-\u28ff][\u2800-\u28ff\s]*")


def _read(run: str) -> str:
    out: list[str] = []
    capital = number = False
    for cell in run:
        if cell == _CAPITAL:
            capital = True
        elif cell == _NUMBER:
            number = True
        elif cell == _BLANK or cell.isspace():
            out.append(" ")
            number = False
        else:
            ch = _LETTERS.get(cell, "")
            ch = _DIGITS.get(ch, ch) if number else ch
            out.append(ch.upper() if capital else ch)
            capital = False
    return "".join(out).strip()


def decode_braille(text: str) -> tuple[Decoded, ...]:
    found = []
    for match in _RUN.finditer(text):
        plain = _read(match.group())
        if readable(plain, min_letters=3):
            found.append(Decoded("braille", "decoded", plain, f"{len(match.group())} Braille cells"))
    return tuple(found)


DECODERS.add("braille", decode_braille)
