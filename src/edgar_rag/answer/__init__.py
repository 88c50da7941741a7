"""edgar-rag answer."""
