"""Generation: the answerer (LLM or offline extractive), answer clean-up and whole-sentence quotes."""
