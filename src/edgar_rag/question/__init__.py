"""Reading a question: its words, the fiscal years and companies it names, and its kind."""
