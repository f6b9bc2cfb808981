"""Context building: parent/document expansion, compression, de-duplication, ordering, token budget."""
