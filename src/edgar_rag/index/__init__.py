"""edgar-rag index."""
