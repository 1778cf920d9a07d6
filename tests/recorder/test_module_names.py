"""Module paths follow modules, not ids: a module created after another was
freed, with its id reused, gets its own path (not the freed one's, e.g. the
trained model's `act` recorded as `15` of a throwaway Sequential).
"""
from conftest import SCRIPTS, load_run, record_matching_plain


def test_reused_ids_get_their_own_module_paths(tvis, tmp_path):
    script = SCRIPTS / "module_names_reused_ids.py"
    path, out, _ = record_matching_plain(tvis, script, 2, tmp_path / "runs")
    run = load_run(path)
    calls = [e for e in run.events.values() if e["kind"] == "ModuleCall"]
    nets = {e["id"] for e in calls if e["class_name"] == "Net"}
    assert len(nets) == 2 and {e["name"] for e in calls if e["id"] in nets} == {"Net"}


    def in_net(e):
        p = e["parent"]
        while p >= 0 and p not in nets:
            p = run.events[p]["parent"]
        return p in nets

    by_class = {}
    for e in calls:
        if in_net(e):
            by_class.setdefault(e["class_name"], set()).add(e["name"])
    assert by_class == {"Linear": {"enc", "head"}, "ReLU": {"act"}}, by_class
