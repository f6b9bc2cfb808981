"""Embedding backends behind one interface (see rag/embed/base.py); `get_embedder(cfg)` builds one."""
