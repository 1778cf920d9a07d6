"""The batch rows the attention and embedding captures record (shared by both).

Contract: ``followed_rows(session, batch_rows)`` returns [(sample id, batch
position, label index or None)] for this step. These are the session's followed
samples (``session.followed``, set when a DataLoader batch is recorded) whose
position lies inside the batch. A script that builds its batches without a
DataLoader has no followed samples; then the first ``session.samples`` rows are
followed (ids = positions, labels unknown), the same leading rows the native
recorder keeps of batch tensors.
"""


def followed_rows(session, batch_rows):
    if session.followed:
        return [(s["id"], s["batch_position"], s.get("label_index"))
                for s in session.followed if 0 <= s["batch_position"] < batch_rows]
    return [(i, i, None) for i in range(min(session.samples, batch_rows))]
