"""Fixtures for the library-loop tests: the recorder tests' own helpers
(tests/recorder/conftest.py: the build under test, tvis run beside a plain
run, reading runs back), loaded under another module name so both folders
keep one conftest each. These tests need the libraries of build/venv
(tools/requirements-venv.txt), so they run on the newest torch only."""
import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "recorder_conftest", Path(__file__).resolve().parents[1] / "recorder" / "conftest.py")
recorder_conftest = importlib.util.module_from_spec(_spec)
sys.modules["recorder_conftest"] = recorder_conftest
_spec.loader.exec_module(recorder_conftest)

build = recorder_conftest.build
tvis = recorder_conftest.tvis
pytest_report_header = recorder_conftest.pytest_report_header
