"""Decoders: every form of a text a model could read that a pattern would not (base16/32/64, hex,
ROT13, atbash, Morse, Braille, leetspeak, spread-out letters, Unicode tag characters, confusable
letters, zero-width and bidi controls). One module per family, one registry; see base.py."""
