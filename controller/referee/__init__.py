"""The referee: a pure state machine that follows a match at the table (events in, commands out)."""
