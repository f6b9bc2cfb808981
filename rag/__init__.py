"""RAG Workbench: every stage of a retrieval-augmented generation pipeline, inspectable."""
