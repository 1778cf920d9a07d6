"""The data pipeline under `tvis run`: DataLoader workers run in the main
process stay bit-identical to real workers, and each followed sample's
dataset item and transforms are recorded so that the test can recompute
every transform from its recorded input and random stream states.

scripts/pipeline_workers.py trains through RandomRotation (torch stream),
a NumPy/`random` transform, ToTensor and Normalize with a worker_init_fn;
its step lines carry losses, a weight digest, draws from the main process's
three streams, its thread count and the workers' thread count.
"""
import sys

import numpy as np
import pytest
import torch
from PIL import Image

from conftest import ROOT, SCRIPTS, inspect_json, load_run, run_file_of, run_plain, run_tvis, step_lines

sys.path.insert(0, str(SCRIPTS))
import pipeline_workers  # noqa: E402  (the transforms the script builds)

from tvis.captures.pipeline.rng import numpy_state_from, python_state_from  # noqa: E402
from tvis._read import _json  # noqa: E402

SCRIPT = SCRIPTS / "pipeline_workers.py"
_SAMPLE = {"id": 0, "dataset_index": -1, "batch_position": -1, "label_index": -1, "input": -1, "transforms": []}
_STEP = {"input": -1, "output": -1, "input_kind": "Tensor", "output_kind": "Tensor", "rng_state": -1}


def sample_batches(run):
    """SampleBatch chunks in file order, FlatBuffers defaults filled in."""
    out = []
    for ordinal, kind, *_ in run.chunks:
        if kind != "samples":
            continue
        body = _json(run.file.chunk_json(ordinal))["body"]
        body.setdefault("step", 0)
        for s in body.get("samples", []):
            for k, v in _SAMPLE.items():
                s.setdefault(k, v)
            for t in s["transforms"]:
                for k, v in _STEP.items():
                    t.setdefault(k, v)
        out.append(body)
    return out


def followed_batches(run, steps):
    """sample_batches(run), asserting that each of the ``steps`` recorded steps
    has its batch and that every batch follows at least one sample (so a loop
    over them checks something)."""
    batches = sample_batches(run)
    assert sorted(b["step"] for b in batches) == list(range(steps)), [b["step"] for b in batches]
    assert all(b.get("samples") for b in batches), "a batch without followed samples"
    return batches


def record(tvis, tmp_path, steps, *args, opts=()):
    """(plain step lines, tvis step lines, run, inspect json) for the script with args."""
    plain = run_plain(SCRIPT, "--steps", steps, *args)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, SCRIPT, "--steps", steps + 1, *args, steps=steps, out=tmp_path / "runs", opts=opts)
    assert rec.returncode == 0, rec.stderr
    path = run_file_of(rec.stdout)
    return step_lines(plain.stdout), step_lines(rec.stdout), load_run(path), inspect_json(tvis, path)


def notice_codes(run):
    return {n["code"] for n in run.meta.get("notices", [])}


def _as_recorded(value):
    if isinstance(value, Image.Image):
        return torch.from_numpy(np.array(value))
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value))
    return value


def recompute(run, step, transform):
    """The transform applied to the step's recorded input with its recorded stream states."""
    x = run.values(step["input"])
    if step["input_kind"] == "PILImage":
        x = Image.fromarray(x.numpy())
    elif step["input_kind"] == "NDArray":
        x = x.numpy()
    states = {t["name"]: run.values(t["id"]) for t in run.tensors.values() if t["event"] == step["event"]}
    if step["rng_state"] >= 0:
        torch.set_rng_state(run.values(step["rng_state"]))
    if "numpy_rng_state" in states:
        np.random.set_state(numpy_state_from(states["numpy_rng_state"]))
    if "python_rng_state" in states:
        import random
        random.setstate(python_state_from(states["python_rng_state"]))
    return _as_recorded(transform(x)), states


def check_transforms(run, batches, expect_indices=True, collate_scales=False):
    """Every followed sample went through the four transforms; each output
    recomputes bit for bit; the last one is the sample's row in the batch."""
    by_class = {type(t).__name__: t for t in pipeline_workers.pipeline().transforms}
    names = list(by_class)
    checked = 0
    for b in batches:
        rows = run.tensors[b["batch"][0]]["shape"][0]
        assert [s["id"] for s in b["samples"]] == list(range(min(4, rows)))
        for s in b["samples"]:
            assert [t["class_name"] for t in s["transforms"]] == names, s
            assert (s["dataset_index"] >= 0) == expect_indices
            assert s["label"] in ("red", "green", "blue") and s["label_index"] in (0, 1, 2)
            for t in s["transforms"]:
                got, states = recompute(run, t, by_class[t["class_name"]])
                assert torch.equal(got, run.values(t["output"])), (b["step"], s["id"], t["class_name"])
                checked += 1
            rot, jitter = s["transforms"][0], s["transforms"][1]
            assert rot["input_kind"] == "PILImage" and rot["output_kind"] == "PILImage" and rot["rng_state"] >= 0
            assert jitter["output_kind"] == "NDArray" and jitter["rng_state"] == -1
            jitter_states = {t["name"] for t in run.tensors.values() if t["event"] == jitter["event"]}
            assert {"numpy_rng_state", "python_rng_state"} <= jitter_states
            row, out = run.values(s["input"]), run.values(s["transforms"][-1]["output"])
            if collate_scales:  # by its worker's brightness (10 or 20), set by worker_init_fn on its copy
                assert any(torch.equal(out * (1.0 + b / 100.0), row) for b in (10, 20))
            else:
                assert torch.equal(out, row)
    return checked


def test_two_workers_bit_identical_and_transforms_recompute(tvis, tmp_path):
    # the sampler draws each index from the global torch stream: prefetching shows;
    # collate_fn is bound to the dataset: each worker's to its own copy
    plain, rec, run, info = record(tvis, tmp_path, 7, "--workers", 2, "--epochs", 2, "--sampler", "global",
                                   "--collate-method")
    assert len(plain) == 7 and rec == plain, "training differs with tvis's workers in the main process"
    assert "workers_in_main" in notice_codes(run)
    assert info["captured"]["pipeline"]["transforms"] == ["RandomRotation", "NumpyJitter", "ToTensor", "Normalize"]
    batches = sample_batches(run)
    assert [b["step"] for b in batches] == list(range(7))
    assert check_transforms(run, batches, collate_scales=True) == 7 * 4 * 4
    kinds = {e["kind"] for e in run.events.values()}
    assert {"DatasetGetItem", "Transform"} <= kinds


def test_persistent_workers_across_epochs_follow_same_indices(tvis, tmp_path):
    # each epoch is left after 3 of 5 batches: at the next iter() the workers
    # first finish the tasks prefetched for them, as real ones do
    plain, rec, run, _ = record(tvis, tmp_path, 7, "--workers", 2, "--persistent", "--sampler", "sequential",
                                "--break-after", 3)
    assert len(plain) == 7 and rec == plain
    batches = {b["step"]: b for b in sample_batches(run)}
    idx = {k: [s["dataset_index"] for s in b["samples"]] for k, b in batches.items()}
    assert idx[0] == [0, 1, 2, 3] and idx[1] == [8, 9, 10, 11]
    assert idx[3] == idx[6] == [0, 1, 2, 3]  # each epoch starts over: the same samples are followed again
    check_transforms(run, batches.values())


def test_iterable_dataset_two_workers(tvis, tmp_path):
    plain, rec, run, _ = record(tvis, tmp_path, 8, "--workers", 2, "--iterable", "--persistent")
    assert len(plain) == 8 and rec == plain
    assert "workers_in_main" in notice_codes(run)
    check_transforms(run, sample_batches(run), expect_indices=False)


def test_no_workers_exact_and_followed_rows_move(tvis, tmp_path):
    plain, rec, run, _ = record(tvis, tmp_path, 4, "--workers", 0, "--sampler", "mirror")
    assert len(plain) == 4 and rec == plain
    assert "pipeline_main_process" in notice_codes(run)
    batches = {b["step"]: b for b in sample_batches(run)}
    last = [(s["dataset_index"], s["batch_position"]) for s in batches[3]["samples"]]
    assert last == [(0, 7), (1, 6), (2, 5), (3, 4)]  # the mirror sampler's last batch is 7..0
    check_transforms(run, batches.values())


def test_uncopyable_dataset_keeps_real_workers(tvis, tmp_path):
    plain, rec, run, info = record(tvis, tmp_path, 3, "--workers", 2, "--lock")
    assert len(plain) == 3 and rec == plain
    notes = {n["code"]: n["message"] for n in run.meta["notices"]}
    assert "pipeline_not_observed" in notes and "copied" in notes["pipeline_not_observed"]
    assert "workers_in_main" not in notes
    assert info["captured"]["pipeline"]["transforms"] == []
    assert all(s["transforms"] == [] for b in sample_batches(run) for s in b["samples"])


def test_digits_cnn_pipeline(tvis, tmp_path):
    script = ROOT / "examples" / "digits_cnn.py"
    plain = run_plain(script, "--max-steps", 2)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, "--max-steps", 3, steps=2, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    assert len(step_lines(plain.stdout)) == 2
    assert step_lines(rec.stdout) == step_lines(plain.stdout)
    info = inspect_json(tvis, run_file_of(rec.stdout))
    assert info["captured"]["pipeline"]["transforms"] == ["Resize", "RandomRotation", "Normalize"]
    from torchvision import transforms
    same = {"Resize": transforms.Resize((16, 16), antialias=True), "RandomRotation": transforms.RandomRotation(10),
            "Normalize": transforms.Normalize((0.3,), (0.4,))}  # as examples/digits_cnn.py builds them
    run = load_run(run_file_of(rec.stdout))
    for b in followed_batches(run, 2):
        for s in b["samples"]:
            assert [t["input_kind"] for t in s["transforms"]] == ["Tensor"] * 3
            assert s["transforms"][1]["rng_state"] >= 0
            for t in s["transforms"]:
                got, _ = recompute(run, t, same[t["class_name"]])
                assert torch.equal(got, run.values(t["output"])), t["name"]


@pytest.mark.parametrize("k", [1, 6])
def test_samples_option(tvis, tmp_path, k):
    rec = run_tvis(tvis, SCRIPT, "--steps", 3, "--workers", 2, steps=2, out=tmp_path / "runs",
                   opts=("--samples", str(k)))
    assert rec.returncode == 0, rec.stderr
    run = load_run(run_file_of(rec.stdout))
    for b in followed_batches(run, 2):
        assert [s["id"] for s in b["samples"]] == list(range(k))
        assert all(len(s["transforms"]) == 4 for s in b["samples"])


def test_fork_copy_shares_memory_maps_only(tmp_path):
    from tvis.captures.pipeline.fork_copy import fork_copy

    class Holder(torch.utils.data.Dataset):
        pass

    mm = np.memmap(tmp_path / "data.bin", dtype=np.float32, mode="w+", shape=(4, 3))
    mm[:] = 1.5
    ds = Holder()
    ds.mm, ds.view, ds.arr, ds.items = mm, mm[1:], np.zeros(3), [[1], [2]]
    c = fork_copy(ds)
    assert c.mm is mm and c.view is ds.view  # a fork shares the file mapping
    assert c.arr is not ds.arr and c.items is not ds.items and c.items[0] is not ds.items[0]
    assert np.memmap not in __import__("copy")._deepcopy_dispatch


class _FirstDraws(torch.utils.data.Dataset):
    """Each item: its worker's id and seed and the worker's first draws from the three streams."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        import random
        info = torch.utils.data.get_worker_info()
        return info.id, info.seed, torch.rand(3), random.random(), float(np.random.rand())


def test_streams_seeded_like_real_workers():
    """Real worker processes' first draws equal those of Streams.seeded."""
    import random
    from tvis.captures.pipeline.rng import Streams
    loader = torch.utils.data.DataLoader(_FirstDraws(), batch_size=None, num_workers=2)
    for wid, seed, t, r, n in loader:
        main = Streams.capture()
        Streams.seeded(seed - wid, wid).apply()
        try:
            assert torch.equal(torch.rand(3), t) and random.random() == r and float(np.random.rand()) == n
        finally:
            main.apply()


def test_cuda_seed_guard_undoes_lazy_cuda_seeding():
    from tvis.captures.pipeline.rng import CudaSeedGuard
    if torch.cuda.is_initialized():
        pytest.skip("CUDA already initialized in this process")
    tracker = torch.cuda._lazy_seed_tracker
    before = (tracker.manual_seed_all_cb, tracker.manual_seed_cb, list(tracker.call_order))
    state = torch.get_rng_state()
    guard = CudaSeedGuard()
    torch.manual_seed(1234)  # what a worker_init_fn may do: it also queues a CUDA seed
    assert tracker.manual_seed_all_cb is not before[0]
    assert guard.restore()
    assert (tracker.manual_seed_all_cb, tracker.manual_seed_cb, list(tracker.call_order)) == before
    torch.set_rng_state(state)


def test_refusal_names_what_cannot_be_reproduced():
    import multiprocessing
    from torch.utils.data.datapipes.iter import IterableWrapper
    from tvis.captures.pipeline.workers import refusal

    ds = _FirstDraws()
    DL = torch.utils.data.DataLoader
    assert refusal(DL(ds, num_workers=2)) is None
    assert refusal(DL(ds, num_workers=2, multiprocessing_context="fork")) is None
    assert "spawn" in refusal(DL(ds, num_workers=2, multiprocessing_context="spawn"))

    class LoggingContext(type(multiprocessing.get_context("fork"))):
        pass

    assert "custom multiprocessing_context" in refusal(DL(ds, num_workers=2, multiprocessing_context=LoggingContext()))
    assert "DataPipe" in refusal(DL(IterableWrapper(range(4)), num_workers=2))


def test_torchvision_pipeline_with_loader_options(tvis, tmp_path):
    """Own generator, drop_last, collate_fn, prefetch_factor 3, 3 workers, a 1-worker validation
    loader between steps, FakeData reseeding torch inside __getitem__."""
    script = SCRIPTS / "pipeline_torchvision.py"
    plain = run_plain(script, "--steps", 10)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, "--steps", 11, steps=10, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    # the validation after step 10's update runs (unrecorded) and prints its line; the run stops at
    # the next training fetch
    assert step_lines(rec.stdout) == step_lines(plain.stdout) and len(step_lines(rec.stdout)) == 10
    info = inspect_json(tvis, run_file_of(rec.stdout))
    got = info["captured"]["pipeline"]["transforms"]
    assert {"RandomHorizontalFlip", "ToTensor", "RandomErasing", "main.<locals>.<lambda>"} <= set(got)
    assert {"ColorJitter", "RandomApply"} & set(got)  # RandomApply is a step only when it did not apply
    assert "workers_in_main" in notice_codes(load_run(run_file_of(rec.stdout)))


def test_image_folder_loader_function_is_a_step(tvis, tmp_path):
    """ImageFolder's `loader` (a plain function attribute) is recorded with the
    file path it read, which names the followed sample's dataset index."""
    script, root = SCRIPTS / "pipeline_image_folder.py", tmp_path / "images"
    plain = run_plain(script, root, "--steps", 4)
    assert plain.returncode == 0, plain.stderr
    rec = run_tvis(tvis, script, root, "--steps", 5, steps=4, out=tmp_path / "runs")
    assert rec.returncode == 0, rec.stderr
    assert step_lines(rec.stdout) == step_lines(plain.stdout)
    run = load_run(run_file_of(rec.stdout))
    for b in followed_batches(run, 4):
        for s in b["samples"]:
            steps = s["transforms"]
            assert [t["class_name"] for t in steps] == ["default_loader", "RandomResizedCrop", "ToTensor"]
            i = s["dataset_index"]
            path = root / ("cat" if i < 6 else "dog") / ("%d.png" % (i % 6))
            detail = {d["key"]: d["value"] for d in run.events[steps[0]["event"]]["detail"]}
            assert detail["input"] == "str %r" % str(path) and steps[0]["input"] == -1
            assert steps[0]["input_kind"] == "Other" and steps[0]["output_kind"] == "PILImage"
            assert s["label"] == ("cat" if i < 6 else "dog")
            assert torch.equal(run.values(steps[0]["output"]), torch.from_numpy(np.array(Image.open(path))))
