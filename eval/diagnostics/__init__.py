"""Diagnostics: ceiling analysis (fix retrieval or ranking?) and accuracy checks against
reference implementations."""
