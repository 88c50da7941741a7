"""edgar-rag retrieve."""
