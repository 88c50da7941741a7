"""edgar-rag eval."""
