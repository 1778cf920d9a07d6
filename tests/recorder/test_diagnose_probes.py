"""The recorder's probes for `tvis diagnose` (recorder/python/tvis/session:
modes.py, dead_units.py), called directly: which modules carry a mode, and
the dead-unit reduction on a known output. Neither changes its input."""
import torch

from tvis.session.dead_units import DeadUnitProbe, unit_dim
from tvis.session.modes import mode_detail, mode_sensitive


class _Details:
    """The native Recorder's dead-unit reduction (a real Recorder writing
    into `folder`), keeping the details it was given."""

    def __init__(self, folder):
        from conftest import NATIVE_PY  # noqa: F401 (the build's module is loaded)
        import tvis.native
        self._rec = tvis.native.load().Recorder(str(folder / "run.tvis"), {"max_elems": 1000, "samples": 1, "project_dir": str(folder)})
        self.details = {}

    def dead_units(self, output, unit_dim):
        return self._rec.dead_units(output, unit_dim)

    def add_detail(self, eid, detail):
        self._rec.add_detail(eid, detail)  # the native check: EventDetail fields of their types
        self.details.setdefault(eid, {}).update(detail)


def test_mode_sensitive_modules():
    assert mode_sensitive(torch.nn.Dropout(0.1)) and mode_sensitive(torch.nn.Dropout2d(0.5))
    assert mode_sensitive(torch.nn.BatchNorm1d(4)) and mode_sensitive(torch.nn.BatchNorm2d(4))
    assert not mode_sensitive(torch.nn.Dropout(0.0))  # the same in both modes
    assert not mode_sensitive(torch.nn.BatchNorm1d(4, track_running_stats=False))  # always the batch's statistics
    assert not mode_sensitive(torch.nn.Linear(2, 2))


def test_mode_detail():
    drop = torch.nn.Dropout(0.1).eval()
    assert mode_detail(drop, top=False) == {"training": False}
    assert mode_detail(drop, top=True) == {"model_training": False, "training": False}
    assert mode_detail(torch.nn.Linear(2, 2), top=False) is None
    net = torch.nn.Sequential(torch.nn.Linear(2, 2))
    assert mode_detail(net, top=True) == {"model_training": True}
    assert mode_detail(net, top=True) is mode_detail(net, top=True)  # built once, not per call


def test_unit_dim():
    assert [unit_dim(r) for r in (2, 3, 4, 5)] == [1, 2, 1, 1]


def test_dead_units_of_a_known_output(tmp_path):
    rec = _Details(tmp_path)
    probe = DeadUnitProbe(rec)
    x = torch.relu(torch.randn(8, 6, 3, 3))
    x[:, 2] = 0  # channel 2 off for every sample and position
    x[:, 4] = 0
    x[0, 4, 1, 1] = 0.5  # channel 4 alive in one position of one sample
    before = x.clone()
    probe.after_call(torch.nn.ReLU(), 7, x)
    probe.after_call(torch.nn.GELU(), 8, x)  # not a ReLU: nothing
    probe.resolve()
    assert rec.details[7] == {"dead_units": 1, "units": 6, "unit_samples": 72}
    assert 8 not in rec.details
    assert torch.equal(x, before)
