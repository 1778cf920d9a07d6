"""No import cycle between tvis.session and tvis.captures (issue 45): the
session dispatches on its hook bus and names its subscribers only in
tvis.subscribers (module paths as strings, imported at install), so the
session package never imports a capture; captures may import session helpers
(followed rows). Checked two ways: the module graph read from the sources
(every import statement, relative ones resolved), and a fresh interpreter
that imports every session module and then lists what got loaded."""
import ast
import subprocess
import sys
from pathlib import Path

from conftest import PYTHON, ROOT

PKG = ROOT / "recorder" / "python"


def _module_of(path):
    rel = path.relative_to(PKG).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path):
    """The tvis modules `path` imports (from x import y: x, and x.y when that is a module)."""
    mod = _module_of(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            out.add(target)
            out.update(target + "." + a.name for a in node.names)
    return {m for m in out if m == "tvis" or m.startswith("tvis.")}


def _graph():
    files = sorted((PKG / "tvis").rglob("*.py"))
    known = {_module_of(f) for f in files}
    return {_module_of(f): {m for m in _imports(f) if m in known} for f in files}


def _in(pkg, mod):
    return mod == pkg or mod.startswith(pkg + ".")


def test_module_graph_has_no_session_captures_cycle():
    graph = _graph()
    assert "tvis.session.session" in graph and "tvis.captures.pipeline.observe" in graph  # the walk found them
    # captures do import the session's helpers: the check below has something to find
    assert any(_in("tvis.session", m) for c, deps in graph.items() if _in("tvis.captures", c) for m in deps)
    session_to_captures = sorted((s, m) for s, deps in graph.items() if _in("tvis.session", s)
                                 for m in deps if _in("tvis.captures", m))
    assert session_to_captures == []

    # no cycle anywhere in tvis's module graph that passes through both packages
    def reach(start):
        seen, todo = set(), [start]
        while todo:
            for m in graph.get(todo.pop(), ()):
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        return seen
    for s in (m for m in graph if _in("tvis.session", m)):
        back = [c for c in reach(s) if _in("tvis.captures", c) and s in reach(c)]
        assert back == [], (s, back)


def test_importing_the_session_loads_no_capture():
    code = ("import sys, pkgutil, importlib; sys.path.insert(0, %r)\n"
            "import tvis.session\n"
            "for m in pkgutil.iter_modules(tvis.session.__path__):\n"
            "    importlib.import_module('tvis.session.' + m.name)\n"
            "print(sorted(n for n in sys.modules if n.startswith('tvis.')))\n" % str(PKG))
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = eval(out.strip().splitlines()[-1])
    assert "tvis.session.session" in loaded and "tvis.session.hook_bus" in loaded
    assert [m for m in loaded if _in("tvis.captures", m)] == []
