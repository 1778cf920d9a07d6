"""Old import path of ``tvis.captures.pipeline.rng``, kept for tests/recorder/test_pipeline.py."""
import sys

from tvis.captures.pipeline import rng as _module

sys.modules[__name__] = _module
