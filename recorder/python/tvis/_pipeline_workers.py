"""Old import path of ``tvis.captures.pipeline.workers``, kept for tests/recorder/test_pipeline.py."""
import sys

from tvis.captures.pipeline import workers as _module

sys.modules[__name__] = _module
