"""Judging-order strategies (see base.py): pool order, random, move-to-front, bandits, and the
learned judge's uncertainty."""
