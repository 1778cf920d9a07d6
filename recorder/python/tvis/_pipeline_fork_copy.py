"""Old import path of ``tvis.captures.pipeline.fork_copy``, kept for tests/recorder/test_pipeline.py."""
import sys

from tvis.captures.pipeline import fork_copy as _module

sys.modules[__name__] = _module
