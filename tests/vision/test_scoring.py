"""The hypothesis score the referee uses: the truth beats near misses; hidden slots are mute."""

from __future__ import annotations

from vision.board_reader import read_board
from vision.render import random_scene, render_scene
from vision.scoring import hypothesis_log_likelihood, rank_hypotheses


def test_true_counts_outscore_one_checker_moved() -> None:
    frame = render_scene(random_scene(31, hand_probability=0.0))
    reading = read_board(frame.image, corners=frame.corners)
    truth = [tuple(s) for s in frame.contents.slots]
    best = hypothesis_log_likelihood(reading, truth, frame.contents.bar)
    assert best.compared == 25
    src = next(i for i, s in enumerate(truth) if sum(s) > 0)
    dst = next(i for i, s in enumerate(truth) if sum(s) == 0)
    moved = list(truth)
    a, b = moved[src]
    colour = 0 if a else 1
    moved[src] = (a - 1, b) if colour == 0 else (a, b - 1)
    moved[dst] = (1, 0) if colour == 0 else (0, 1)
    worse = hypothesis_log_likelihood(reading, moved, frame.contents.bar)
    assert worse.log_likelihood < best.log_likelihood - 3.0
    assert worse.worst_slot in (src, dst)
    ranked = rank_hypotheses(reading, [(moved, frame.contents.bar), (truth, frame.contents.bar)])
    assert ranked[0][0] == 1


def test_hidden_slots_take_no_part() -> None:
    for seed in range(40):
        frame = render_scene(random_scene(seed, hand_probability=1.0))
        reading = read_board(frame.image, corners=frame.corners)
        if reading.hidden_slots:
            break
    else:  # pragma: no cover - the seeds above always include a detected hand
        raise AssertionError("no occluded frame found")
    truth = [tuple(s) for s in frame.contents.slots]
    hidden = reading.hidden_slots[0]
    other = list(truth)
    other[hidden] = (9, 0)
    a = hypothesis_log_likelihood(reading, truth)
    b = hypothesis_log_likelihood(reading, other)
    assert a.log_likelihood == b.log_likelihood
    assert a.compared == 24 - len(reading.hidden_slots)
