"""Call sites: each recorded module call points at the line of the user's code
that called it (not at torch's Module._call_impl), and its definition at the
class's forward."""
from conftest import SCRIPTS, load_run, run_file_of, run_tvis


def _line_of(path, text):
    lines = open(path).read().splitlines()
    hits = [i + 1 for i, l in enumerate(lines) if text in l]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def test_module_calls_point_at_the_calling_line(tvis, tmp_path):
    script = SCRIPTS / "golden_tiny.py"
    p = run_tvis(tvis, script, steps=1, out=tmp_path)
    assert p.returncode == 0, p.stderr
    run = load_run(run_file_of(p.stdout))
    files = {s["id"] if "id" in s else i: s["path"] for i, s in enumerate(run.sources)}
    calls = [e for e in run.events.values() if e["kind"] == "ModuleCall" and e["step"] == 0]
    by_name = {e["name"]: e for e in calls}
    expect = {
        "Tiny": _line_of(script, "loss = F.cross_entropy(model(xb), yb)"),
        "conv": _line_of(script, "x = F.max_pool2d(self.relu(self.conv(x)), 2)"),
        "relu": _line_of(script, "x = F.max_pool2d(self.relu(self.conv(x)), 2)"),
        "fc": _line_of(script, "return self.fc(torch.flatten(x, 1))"),
    }
    for name, line in expect.items():
        e = by_name[name]
        assert files[e["call_file"]].endswith("golden_tiny.py"), (name, files[e["call_file"]])
        assert e["call_line"] == line, (name, e["call_line"], line)
    tiny = by_name["Tiny"]
    assert files[tiny["def_file"]].endswith("golden_tiny.py")
    assert tiny["def_line"] == _line_of(script, "def forward(self, x):")


def test_function_calls_from_tvis_itself_have_no_call_site(tvis, tmp_path):
    """The script's `<module>` is started by tvis's runner: no call site (line 0)
    rather than a line of tvis's own code; `main` points at the script's call."""
    script = SCRIPTS / "golden_tiny.py"
    p = run_tvis(tvis, script, steps=1, out=tmp_path)
    assert p.returncode == 0, p.stderr
    run = load_run(run_file_of(p.stdout))
    files = {s["id"]: s["path"] for s in run.sources}
    functions = {e["name"]: e for e in run.events.values() if e["kind"] == "FunctionCall"}
    assert functions["<module>"]["call_line"] == 0
    assert all("/tvis/" not in files[e["call_file"]] for e in run.events.values() if e["call_line"])
    main = functions["main"]
    assert files[main["call_file"]].endswith("golden_tiny.py")
    assert main["call_line"] == _line_of(script, "    main()")
