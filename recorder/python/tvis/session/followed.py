"""Which rows of a batch are followed, under which sample ids.

Sample ids are slots 0..K-1 (``--samples K``) that keep their meaning for a
DataLoader's dataset across steps: ``FollowedIndices.plan(indices)`` takes the
dataset indices of a batch in row order and returns ``[[id, row,
dataset_index]]`` sorted by id. The first batch seen fixes the dataset index
each id follows (its first K rows). In later batches an id whose dataset
index is in the batch follows it there (a sequential sampler's next epoch,
a sampler that repeats indices); an id whose index is absent takes the first
row no other id took, and its ``dataset_index`` says which sample that is.

``first_rows(k, rows)`` is the plan when dataset indices are unknown
(iterable datasets, real worker processes): ids = rows 0..K-1, index -1.

``followed_rows(session, batch_rows)`` is what captures record per sample:
[(sample id, batch position, label index or None)] for this step, the
session's followed samples (``session.followed``, set when a batch is
recorded) whose position lies inside the batch. A script that builds its
batches without a DataLoader has no followed samples; then the first
``session.samples`` rows are followed (ids = positions, labels unknown), the
same leading rows the native recorder keeps of batch tensors.
"""

import numbers

import torch


def index_value(idx):
    """A dataset index as an int for the record, -1 when it is not an integer."""
    if isinstance(idx, torch.Tensor) and idx.dim() == 0 and not idx.is_floating_point():
        return int(idx)
    if isinstance(idx, numbers.Integral):
        return int(idx)
    return -1


def _key(idx):
    v = index_value(idx)
    if v >= 0:
        return v
    try:
        hash(idx)
        return idx
    except TypeError:
        return None


def first_rows(k, rows):
    return [[i, i, -1] for i in range(min(k, rows))]


class FollowedIndices:
    def __init__(self, k):
        self.k = k
        self.tracked = None   # dataset index key per sample id

    def plan(self, indices):
        keys = [_key(i) for i in indices]
        if self.tracked is None:
            self.tracked = keys[: self.k]
        rows = {}
        for pos, key in enumerate(keys):
            if key is not None:
                rows.setdefault(key, pos)
        taken, plan = set(), {}
        for sid, key in enumerate(self.tracked):
            pos = rows.get(key) if key is not None else None
            if pos is not None and pos not in taken:
                taken.add(pos)
                plan[sid] = pos
        free = (p for p in range(len(keys)) if p not in taken)
        for sid in range(self.k):
            if sid not in plan:
                pos = next(free, None)
                if pos is None:
                    break
                plan[sid] = pos
        return [[sid, pos, index_value(indices[pos])] for sid, pos in sorted(plan.items())]


def followed_rows(session, batch_rows):
    if session.followed:
        return [(s["id"], s["batch_position"], s.get("label_index"))
                for s in session.followed if 0 <= s["batch_position"] < batch_rows]
    return [(i, i, None) for i in range(min(session.samples, batch_rows))]
