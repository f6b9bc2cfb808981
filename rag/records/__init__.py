"""The records every stage passes around, below all of them: a parsed Document, a Chunk, and
the search hits (Candidate, RankedList, SearchQuery). They import only settings, so a stage
package reads them without stacking on rag.documents, rag.chunking or rag.index."""
