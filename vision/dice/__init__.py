"""Dice vision: find dice, read their upward faces, judge how they rest, render them as props.

- ``detect.find_dice(image)``: every die in any photo, no board (``hakem vision dice``);
  ``pips``, ``faces``: its pip candidates and the trained upward-face scorer.
- ``board.read_board_dice(image, to_mm)``: dice on a calibrated board: pips, flat or cocked,
  on a checker, half (BG-ROLL-2); ``reading.read_dice_and_cube`` adds the cube
  (``vision.cube``) and gives the ``hakem vision read`` JSON fields.
- ``render.DieProp``: a die as a prop for the scene renderer; ``synth``: synthetic throws.
- ``train``, ``train_cocked``: fit the small models from the photos' training split and from
  synthetic throws (``pip_model.json``, ``cocked_model.json``).
"""
