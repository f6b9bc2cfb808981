"""Test sets made from a collection's own documents: stored with the collection (store), mined
from its kept text (mine), questions it cannot answer (unanswerable), LLM-generated (generate)."""
