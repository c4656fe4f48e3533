"""The referee: a pure state machine that follows a match at the table (events in, commands out).

- ``api``: the contract with the runtime (events, commands, the BoardView protocol).
- ``config``: one table's settings (players, length, rules, layout, clock sides, thresholds).
- ``recognition``: engine-in-the-loop recognition of a move from still frames.
- ``machine``: :class:`~controller.referee.machine.Referee`, the state machine itself.
- ``resume``: rebuilding a referee from its journal after a restart.
"""
