"""Dev check of a question-prompt variant on datasets/beir_sample — not a corpus we report on,
so a prompt chosen here is not tuned on the validation sets (docs/testset-validation.md):

    python -m eval.testsets.prompt_check v2 8      # OPENAI_BASE_URL set; "v1" = the prompt in use
"""

from __future__ import annotations

import sys
import time

import eval.testsets.generate as generation
from eval.data.beir import load_beir
from eval.runs.beir_index import beir_collection
from rag.config import load_preset, with_overrides
from rag.paths import PROJECT_ROOT

V2 = """Passage:
{passage}
{rule}

Write one question that someone could type into a search box to find the information in this
passage. Name what the question is about (a product, command, setting or event the passage
mentions), so that it makes sense to someone who has not read the passage: never write "this
passage", "the text" or "the author". Use your own words. Reply as JSON: {{"question": "..."}}"""


def main(argv: list[str]) -> int:
    variant, n = argv[0], int(argv[1])
    if variant == "v2":
        generation.QUESTION_PROMPT = V2
    bm25 = load_preset("bm25")
    name = beir_collection(load_beir(PROJECT_ROOT / "datasets" / "beir_sample"), bm25).name
    config = with_overrides(bm25, {"generation.model": "smollm2-135m-instruct"})
    started = time.time()
    report = generation.generate_questions(name, config, n, seed=5, consistency=False)
    print(variant, round(time.time() - started), {k: v for k, v in report.filtered.items() if v},
          len(report.rows))
    for row in report.rows:
        print("KEPT", row["question"])
    for dropped in report.dropped:
        print("DROP", dropped["reason"], dropped["question"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
