"""edgar-rag service."""
