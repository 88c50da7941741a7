"""edgar-rag bench."""
