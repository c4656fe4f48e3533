"""What a table writes down: the journal (source of truth) and the records derived from it."""
