"""Which source files are the project's own code (Python side of the rule).

Contract: the same rule as the native CodeFilter (recorder/src/code_filter.h):
a file is project code when its absolute path lies under the project directory,
not under tvis's own package and not inside a site-packages / dist-packages
folder (a virtual environment kept in the project). Verdicts are cached per
file name; the cache only grows with the number of distinct source files.
"""

import os

_VENV_PARTS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


class ProjectFiles:
    def __init__(self, project_dir):
        self._root = os.path.abspath(project_dir).rstrip(os.sep) + os.sep
        self._tvis = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # the tvis package
        self._cache = {}

    def contains(self, filename):
        verdict = self._cache.get(filename)
        if verdict is None:
            verdict = self._decide(filename)
            self._cache[filename] = verdict
        return verdict

    def _decide(self, filename):
        if not filename or not os.path.isabs(filename):
            return False
        path = os.path.abspath(filename)
        if not path.startswith(self._root) or path.startswith(self._tvis):
            return False
        return not any(part in path for part in _VENV_PARTS)
