"""The answering core: a question searched, prompted, verified and checked (``answerer``,
``checks``), or answered in code from reported figures (``computed``); it talks to a model only
through the ``Generator`` port (the generators themselves are ``edgar_rag.model``'s) and touches
no HTTP client, database driver or web framework (``.importlinter``)."""
