"""The recorder's statistics of large float32 host tensors run in pieces on
torch's intra-op threads (recorder/src/tensor_capture.cpp). at::parallel_for
is a header template: compiled without the parallel backend torch uses
(OpenMP) it silently runs on the calling thread alone, so the build must
reach every thread torch has (`statistics_threads` in the recorder's
stats), and the numbers must not depend on how many threads did the work:
the same tensors recorded with 1 and with 2 threads give bit-identical
statistics, histograms and kept bytes. Both torches (tools/test runs this
file under each)."""
import json
import subprocess

import torch

from conftest import PYTHON, load_run

# Records tensors above and below the parallel threshold (2^19 values) with
# `torch.set_num_threads(N)`; prints the recorder's statistics_threads and
# torch's parallel backend as JSON.
RECORD = r"""
import json, sys, torch
sys.path.insert(0, sys.argv[3])
import _tvis_native
torch.set_num_threads(int(sys.argv[2]))
g = torch.Generator().manual_seed(5)
ts = [torch.randn(3, 400_000, generator=g) * 3 + 1,          # 1.2M values: 5 pieces
      torch.randn(2_400_000, generator=g).abs(),              # a conv weight's size
      torch.randn(1_000, 700, generator=g).t(),               # non-contiguous
      torch.randn(4_000, generator=g)]                        # below the threshold
ts[0][1, 12345] = float("nan")                                 # a NaN: the careful path
rec = _tvis_native.Recorder(sys.argv[1], {"project_dir": "."})
ids = [rec.tensor(t, 4, -1, "t%d" % i) for i, t in enumerate(ts)]
threads = rec.stats()["statistics_threads"]
rec.finalize({"script": "x.py"})
info = torch.__config__.parallel_info()
print(json.dumps({"ids": ids, "statistics_threads": threads, "torch_threads": torch.get_num_threads(),
                  "openmp": "parallel backend: OpenMP" in info}))
"""


def _record(tmp_path, threads):
    import conftest
    out = tmp_path / ("threads%d.tvis" % threads)
    p = subprocess.run([PYTHON, "-c", RECORD, str(out), str(threads), str(conftest.NATIVE_PY)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1]), load_run(out)


def test_statistics_reach_torchs_threads_and_do_not_depend_on_them(tmp_path):
    one, run1 = _record(tmp_path, 1)
    two, run2 = _record(tmp_path, 2)
    assert one["statistics_threads"] == 1
    assert two["torch_threads"] == 2
    # torch 1.13 and 2.x on Linux are OpenMP builds; another backend would need its own build flags
    assert two["openmp"], "torch's parallel backend is not OpenMP: the recorder's build does not match it"
    assert two["statistics_threads"] == 2, two
    assert one["ids"] == two["ids"] and len(one["ids"]) == 4
    for i in one["ids"]:
        a, b = run1.tensors[i]["stats"], run2.tensors[i]["stats"]
        assert a == b, (i, a, b)
        assert len(a["histogram"]) == 64
        assert run1.values(i).view(torch.uint8).numpy().tobytes() == \
            run2.values(i).view(torch.uint8).numpy().tobytes()
    assert run1.tensors[one["ids"][0]]["stats"]["nan_count"] == 1
