"""Evaluation data: BEIR shapes and folders, QA sets (files and Hugging Face datasets), and the
evaluation sets the workbench can score."""
