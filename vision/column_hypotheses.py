"""The ways a slot's column can look that the checker reader weighs (:class:`Hypothesis`,
:func:`hypotheses`): checkers in a line from the edge, or a full column with checkers laid
over it; and the same as 0/1 matrices (:func:`terms`), so that every slot is weighed at once.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Hypothesis:
    """One way a column can look: ``n0`` checkers touching from the edge, and (only when the
    column is full) checkers laid over column checkers ``j`` and ``j + 1`` for ``j`` in
    ``overlays`` (0, 1, ...: from the edge inward).

    Per position m (``t = (m + 1) / 2`` diameters from the edge), ``expect`` says whether a
    whole disc shows there (1), a checker laid over others does (3: its rim may be faint on
    the side facing the light, so one of its two arcs is enough), nothing does (0), or either
    may (-1); ``line`` says whether a
    rim crosses the column's axis there (1: the seam between two touching checkers of a full
    column, or a covered checker's middle, crossed by the rim of the one laid over it), whether
    none should (0: the middle of a checker laid over others), or -1 (no opinion).
    """

    n0: int
    overlays: tuple[int, ...]
    expect: tuple[int, ...]
    line: tuple[int, ...]

    @property
    def count(self) -> int:
        return self.n0 + len(self.overlays)


@functools.lru_cache(maxsize=4)
def hypotheses(cap: int) -> tuple[Hypothesis, ...]:
    """Every column appearance the counter weighs: 0..cap in a line, then a full column with
    1..cap-1 checkers laid over it from the edge inward (the sixth or later checkers)."""
    m_count = 2 * cap - 1
    out = []
    for n0 in range(cap + 1):
        subsets: list[tuple[int, ...]] = [()]
        if n0 == cap:
            subsets += [tuple(range(n1)) for n1 in range(1, cap)]
        for over in subsets:
            expect = []
            line = []
            for m in range(m_count):
                if m % 2 == 0:  # the centre of column position k
                    k = m // 2
                    covered = k in over or (k - 1) in over
                    expect.append(0 if k >= n0 else -1 if covered else 1)
                    line.append(1 if covered else 0 if k < n0 else -1)
                else:  # between column positions j and j + 1
                    j = m // 2
                    if j in over:
                        expect.append(3)
                        line.append(0)
                    elif j + 1 < n0:
                        expect.append(-1)
                        line.append(1 if n0 == cap else -1)  # the seam of two touching
                    else:
                        expect.append(0)
                        line.append(-1)
            out.append(Hypothesis(n0, over, tuple(expect), tuple(line)))
    return tuple(out)


@dataclass(frozen=True)
class _Terms:
    """The hypotheses' expectations as 0/1 matrices, so every slot is weighed at once."""

    shows: np.ndarray  # (H, M) a whole disc shows
    empty: np.ndarray  # (H, M) nothing shows
    laid: np.ndarray  # (H, M) a checker laid over others shows
    plain: np.ndarray  # (H,) no checker laid over
    full: np.ndarray  # (H,) a full column
    full_idx: np.ndarray  # (K,) indices of the full hypotheses
    plain_full: int
    over_k: np.ndarray  # (K,) the full hypothesis has checkers laid over it
    line_off: np.ndarray  # (K, M) no rim across the axis
    line_on: np.ndarray  # (K, M) a seam's rim across the axis
    covered: np.ndarray  # (K, M) bool: covered middles (one of them shows a rim)
    has_covered: np.ndarray  # (K,) bool: the full hypothesis has covered middles
    n_terms: np.ndarray  # (K,) how many line terms each full hypothesis has
    overlays: np.ndarray  # (K,) checkers laid over
    first: np.ndarray  # (K,) one lies over the first seam
    side_on: np.ndarray  # (K, M) seams (past the first) with a checker laid over
    side_off: np.ndarray  # (K, M) seams (past the first) without


@functools.lru_cache(maxsize=4)
def terms(cap: int) -> _Terms:
    """The hypotheses for ``cap`` (:func:`hypotheses`) as 0/1 matrices, worked out once."""
    hyps = hypotheses(cap)
    expect = np.array([h.expect for h in hyps])
    plain = np.array([not h.overlays for h in hyps])
    full = np.array([h.n0 == cap for h in hyps])
    full_idx = np.nonzero(full)[0]
    m_count = expect.shape[1]
    k_count = len(full_idx)
    off = np.zeros((k_count, m_count))
    on = np.zeros((k_count, m_count))
    cov = np.zeros((k_count, m_count), bool)
    s_on = np.zeros((k_count, m_count))
    s_off = np.zeros((k_count, m_count))
    for k, h in enumerate(full_idx):
        hyp = hyps[int(h)]
        for m, v in enumerate(hyp.line):
            if v == 0:
                off[k, m] = 1.0
            elif v == 1:
                if m % 2:
                    on[k, m] = 1.0
                else:
                    cov[k, m] = True
        for j in range(1, cap - 1):
            (s_on if j in hyp.overlays else s_off)[k, 2 * j + 1] = 1.0
    n_terms = off.sum(axis=1) + on.sum(axis=1) + cov.any(axis=1)
    return _Terms(
        shows=(expect == 1).astype(np.float64),
        empty=(expect == 0).astype(np.float64),
        laid=(expect == 3).astype(np.float64),
        plain=plain,
        full=full,
        full_idx=full_idx,
        plain_full=int(np.nonzero(plain & full)[0][0]),
        over_k=np.array([bool(hyps[int(h)].overlays) for h in full_idx]),
        line_off=off,
        line_on=on,
        covered=cov,
        has_covered=np.asarray(cov.any(axis=1), dtype=bool),
        n_terms=np.maximum(n_terms, 1.0),
        overlays=np.array([float(len(hyps[int(h)].overlays)) for h in full_idx]),
        first=np.array([0 in hyps[int(h)].overlays for h in full_idx]),
        side_on=s_on,
        side_off=s_off,
    )
