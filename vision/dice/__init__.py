"""Dice vision: find dice, read their upward faces, judge how they rest, render them as props.

- ``detect.find_dice(image)``: every die in any photo, no board (``hakem vision dice``);
  ``pips``, ``faces``: its pip candidates and the trained upward-face scorer.
- ``board.read_board_dice(image, to_mm, geometry)``: every die on a calibrated board (pip
  layout, flat or cocked, on a checker, half: BG-ROLL-2), each candidate read closely in the
  camera frame, candidates from a small top-down raster of the case (``raster``); the referee
  and the board pass both call it (``spots=True``, candidates from pip spots over the whole
  frame, is slower and kept for training; figures of both in ``board``'s docstring).
- ``board_pass.read_frame(frame)``: the dice (``read_board_dice``) and the
  cube (by ``vision.cube``) on the board reader's prepared frame, the ``dice`` and ``cube``
  fields of ``hakem vision read``; ``reading.read_dice_and_cube`` gives the same for a frame
  and its corners.
- ``render.DieProp``: a die as a prop for the scene renderer; ``synth``: synthetic throws.
- ``train_raster`` fits the raster's candidate model (``raster_model.json``); ``train``,
  ``train_cocked`` fit the photo scorer and the board reader's die and cocked models
  (``pip_model.json``, ``cocked_model.json``).
"""
