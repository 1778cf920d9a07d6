"""Where a run's bytes go: a table by record kind and phase.

    build/venv/bin/python tools/bench/recorder/byte_table.py RUN [--build DIR] [--steps N]

Rows: the kept values of tensor records, by role (Weight, Grad, Output,
GradOutput, Logits, Attention, ...) and the phase of the event they hang on
(Forward, Loss, Backward, Optimizer, Evaluation, ... ; `-` for none), then
every other chunk kind (events, tensor records, insights, sources, ...) as
one row each. Columns: raw MB (bytes before compression) and file MB (the
record's share of its chunk's compressed size, in proportion to its raw
bytes), each divided by --steps (MB a step; 1 gives the run's totals), their
ratio (raw / file), and the count of records. Records whose values lie in an
XOR delta chunk (a step boundary's weights stored against the previous
boundary's: run_builder.h) are the rows `ROLE (XOR delta)`. A stored copy several records point at (the same
chunk range, or a leading part of it: run_builder.h) counts once, for the first record by id; the
others are counted in rows `ROLE (shared copy)`, with no bytes. bench.py prints it for every recorded case.
"""
import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def rows_of(run):
    """{(kind, phase): [raw bytes, file bytes, records]} of a tvis._read.Run."""
    chunks = {c[0]: c for c in run.chunks}
    table = defaultdict(lambda: [0.0, 0.0, 0])
    data_raw = defaultdict(int)  # TensorData ordinal -> raw bytes its records account for
    stored = set()  # (chunk, offset, size): a stored copy several records may point at (run_builder.h)
    owners = []     # the records that own a stored copy (the first by id); the others share it
    spans = defaultdict(list)  # chunk -> [(offset, end)] of the stored copies in it
    for _, t in sorted(run.tensors.items()):
        if not t["data_size"]:
            continue
        where = (t["data_chunk"], t["data_offset"], t["data_size"])
        end = t["data_offset"] + t["data_size"]
        if where in stored or any(o <= t["data_offset"] and end <= e for o, e in spans[t["data_chunk"]]):
            ev = run.events.get(t["event"])
            table[("%s (shared copy)" % t["role"], ev["phase"] if ev else "-")][2] += 1
            continue
        stored.add(where)
        spans[t["data_chunk"]].append((t["data_offset"], end))
        owners.append(t)
        data_raw[t["data_chunk"]] += t["data_size"]
    for t in owners:
        size = t["data_size"]
        ev = run.events.get(t["event"])
        phase = ev["phase"] if ev else "-"
        c = chunks.get(t["data_chunk"])
        share = c[4] * size / max(data_raw[t["data_chunk"]], 1) if c else 0
        delta = c is not None and len(c) > 7 and c[7] == 1  # an XOR delta chunk (container.h)
        row = table[(t["role"] + (" (XOR delta)" if delta else ""), phase)]
        row[0] += size
        row[1] += share
        row[2] += 1
    for ordinal, kind, _, _, comp, raw, *_ in run.chunks:
        if kind == "tensor_data":
            accounted = data_raw.get(ordinal, 0)
            if accounted < raw:  # alignment padding, or values no record points at
                row = table[("(tensor_data padding)", "-")]
                row[0] += raw - accounted
            continue
        row = table[("(%s chunks)" % kind, "-")]
        row[0] += raw
        row[1] += comp
        row[2] += 1
    return table


def ratio(raw, comp):
    """raw / file bytes (the compression of a row), '-' for a row that stores nothing."""
    return "%.1fx" % (raw / comp) if comp > 0 and raw > 0 else "-"


def format_table(table, steps, title=""):
    """A markdown table, largest file share first, MB per step."""
    lines = ["%s| kind | phase | raw MB/step | file MB/step | ratio | records |" % (title + "\n\n" if title else ""),
             "|---|---|---|---|---|---|"]
    total_raw = total_file = 0.0
    for (kind, phase), (raw, comp, n) in sorted(table.items(), key=lambda kv: -kv[1][1]):
        total_raw += raw
        total_file += comp
        if comp < 5e3 * steps and raw < 5e3 * steps and not kind.endswith("(shared copy)"):
            continue  # under 5 kB a step: in the total only
        lines.append("| %s | %s | %.2f | %.2f | %s | %d |" % (kind, phase, raw / 1e6 / steps, comp / 1e6 / steps,
                                                             ratio(raw, comp), n))
    lines.append("| **total** | | %.2f | %.2f | %s | |" % (total_raw / 1e6 / steps, total_file / 1e6 / steps,
                                                        ratio(total_raw, total_file)))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--build", default=str(ROOT / "build" / "native"), help="a build folder with python/_tvis_native")
    ap.add_argument("--steps", type=int, default=1, help="divide by this many steps")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "recorder" / "python"))
    from tvis import native
    native.load([str(Path(args.build) / "python"), str(ROOT / "build" / "native-torch1" / "python")])
    from tvis import _read
    print(format_table(rows_of(_read.load(args.run)), args.steps))


if __name__ == "__main__":
    main()
