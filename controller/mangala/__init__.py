"""The Mangala table: the referee of a round on the 15-minute set clock, its runtime glue, the
round's records and the rendered demo (MG-*, MG-T-*, MG-CLOCK-*).

``view`` is what the referee asks of a still frame, ``recognition`` picks the legal sowing that
best explains it, ``referee`` is the pure state machine (its state and journal fold in
``state``, the clock's side in ``clock``, frame verdicts in ``verdicts``, the sets in ``sets``,
the director's actions in ``director``, its settings in ``config``), ``records`` turns its
journal into the engine's round record, ``pipeline`` wires camera frames and the clock to it,
``demo`` plays a whole rendered round in front of it.
"""
