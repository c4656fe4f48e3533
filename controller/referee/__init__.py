"""The referee: a pure state machine that follows a match at the table (events in, commands out).

- ``api``: the contract with the runtime (events, commands, the BoardView protocol).
- ``config``: one table's settings (players, length, rules, layout, clock sides, thresholds).
- ``recognition``: engine-in-the-loop recognition of a move from still frames.
- ``machine``: :class:`~controller.referee.machine.Referee`, the state machine itself: the
  events' dispatch and the decisions between them, put together from mixins that each hold
  one part of it: ``state`` (the state and the journal's fold), ``clock`` (presses, flags,
  the lights), ``dice`` (which dice are a throw, phantoms), ``flags`` (flags and "cannot
  read"), ``setup_check`` (BG-EQ-3, BG-EQ-4), ``throws``, ``verdicts`` (the move and the cube
  at a press), ``unseen_turns`` (TTB-6.1) and ``director``.
- ``resume``: rebuilding a referee from its journal after a restart.
"""
