"""Training loops of the shapes users bring (scripts/): nanoGPT's evaluation
passes, LBFGS closures, a GAN's two models and optimizers, logging after the
update, no torch.optim. Each runs plainly and under `tvis run` with the same
output; the run's picture of each step is checked against what the script
itself saved (--dump).
"""
import json
import os

import torch

from conftest import SCRIPTS, inspect_json, load_run, record_matching_plain, run_plain, run_tvis, run_file_of


def script_lines(stdout):
    """What the script printed (tvis's own lines left out)."""
    return [l for l in stdout.splitlines() if not l.startswith("tvis")]


def top_level_calls(run, step):
    """Module calls of `step` whose parent is no module call, in order."""
    ev = run.events
    out = []
    for e in sorted(ev.values(), key=lambda e: e["id"]):
        if e["kind"] != "ModuleCall" or e["step"] != step:
            continue
        p = e["parent"]
        while p >= 0 and ev[p]["kind"] != "ModuleCall":
            p = ev[p]["parent"]
        if p < 0:
            out.append(e)
    return out


def inside(run, event, ancestor):
    p = event["parent"]
    while p >= 0:
        if p == ancestor:
            return True
        p = run.events[p]["parent"]
    return False


def followed_inputs(run, step):
    batches = [b for b in run.samples if b["step"] == step]
    assert len(batches) == 1, "step %d has %d sample batches" % (step, len(batches))
    return [(s["batch_position"], run.values(s["input"])) for s in batches[0]["samples"]]


def test_gpt_evaluation_passes_are_not_the_training_forward(tvis, tmp_path):
    dump = tmp_path / "dump"
    path, out, plain = record_matching_plain(tvis, SCRIPTS / "gpt_eval_passes.py", 3, tmp_path / "runs",
                                             "--dump", dump)
    assert script_lines(out) == script_lines(plain)[:len(script_lines(out))]
    run = load_run(path)
    for step, evals in ((0, 40), (1, 0), (2, 40)):
        calls = [e for e in top_level_calls(run, step) if e["class_name"] == "GPT"]
        phases = [e["phase"] for e in calls]
        assert phases.count("Evaluation") == evals and phases.count("Forward") == 1, (step, phases)
        assert phases[-1] == "Forward"  # estimate_loss() runs before the iteration's own forward
    eval_events = {e["id"] for e in run.events.values() if e["phase"] == "Evaluation"}
    eval_tensors = [t for t in run.tensors.values() if t["event"] in eval_events]
    assert eval_tensors and all(t["kept"] == "None" for t in eval_tensors)
    for step in range(3):  # followed samples come from the training batch, not an evaluation batch
        x = torch.load(dump / ("x_step%d.pt" % step))
        rows = followed_inputs(run, step)
        assert len(rows) == 4
        for row, values in rows:
            assert torch.equal(values, x[row]), (step, row)
    # Per step, the run holds a few times the model's size (weights, gradients
    # and updates, the training forward's activations), not the evaluations.
    params = json.loads((dump / "model.json").read_text())["parameters"]
    per_step = os.path.getsize(path) / 3
    assert per_step < 8 * 4 * params, "%.1f MB per step for a %.2f M-parameter model" % (per_step / 1e6,
                                                                                         params / 1e6)


def test_eval_values_flag_keeps_evaluation_values(tvis, tmp_path):
    p = run_tvis(tvis, SCRIPTS / "gpt_eval_passes.py", "--steps", 3, steps=1, out=tmp_path / "runs",
                 opts=["--eval-values"])
    assert p.returncode == 0, p.stderr
    run = load_run(run_file_of(p.stdout))
    eval_events = {e["id"] for e in run.events.values() if e["phase"] == "Evaluation"}
    kept = [t["kept"] for t in run.tensors.values() if t["event"] in eval_events]
    assert kept and "Full" in kept


def test_lbfgs_closure_calls_are_forward_loss_backward(tvis, tmp_path):
    dump = tmp_path / "dump"
    path, out, plain = record_matching_plain(tvis, SCRIPTS / "lbfgs_closure.py", 3, tmp_path / "runs",
                                             "--dump", dump)
    # the last step's test prediction, printed after optimizer.step(), is there
    assert script_lines(out) == script_lines(plain)[:len(script_lines(out))]
    assert "test 2 loss" in out
    run = load_run(path)
    for step in range(3):
        opt = [e for e in run.events.values() if e["kind"] == "OptimizerStep" and e["step"] == step]
        assert len(opt) == 1
        calls = top_level_calls(run, step)
        # The closure's first call computes the gradients the step uses: it comes before the step's
        # event opens (phases data, forward, loss, backward, optimizer); LBFGS's later calls lie inside.
        closure = [e for e in calls if e["class_name"] in ("Sequence", "MSELoss") and e["phase"] != "Evaluation"]
        first, later = closure[:2], closure[2:]
        assert [e["class_name"] for e in first] == ["Sequence", "MSELoss"]
        assert not any(inside(run, e, opt[0]["id"]) for e in first) and first[1]["id"] < opt[0]["id"]
        assert later and all(inside(run, e, opt[0]["id"]) for e in later)
        forwards = [e for e in closure if e["class_name"] == "Sequence"]
        losses = [e for e in closure if e["class_name"] == "MSELoss"]
        assert len(forwards) >= 2 and len(forwards) == len(losses)  # LBFGS evaluates the closure repeatedly
        assert {e["phase"] for e in forwards} == {"Forward"} and {e["phase"] for e in losses} == {"Loss"}
        backwards = [e for e in run.events.values() if e["kind"] == "BackwardCall" and e["step"] == step]
        assert len(backwards) == len(forwards) and {e["phase"] for e in backwards} == {"Backward"}
        assert len([l for l in run.losses if l["step"] == step]) == len(forwards)
        evaluations = [e for e in calls if e["class_name"] == "Sequence" and e["phase"] == "Evaluation"]
        # the previous step's test prediction under no_grad, after its optimizer.step()
        assert len(evaluations) == (1 if step > 0 else 0)
        assert all(not inside(run, e, opt[0]["id"]) for e in evaluations)
    inp = torch.load(dump / "input.pt")
    for step in range(3):
        rows = followed_inputs(run, step)
        assert len(rows) == 4
        for row, values in rows:
            assert torch.equal(values, inp[row])


def test_gan_step_is_an_iteration_of_both_models(tvis, tmp_path):
    dump = tmp_path / "dump"
    path, out, plain = record_matching_plain(tvis, SCRIPTS / "gan_two_models.py", 3, tmp_path / "runs",
                                             "--dump", dump)
    assert len([l for l in out.splitlines() if l.startswith("step ")]) == 3  # three whole iterations
    summary = inspect_json(tvis, path)
    assert summary["steps"] == 3
    run = load_run(path)
    assert [(o["step"], o["params"][0]["name"].split(".")[0]) for o in run.optimizer_steps] == \
        [(0, "netD"), (0, "netG"), (1, "netD"), (1, "netG"), (2, "netD"), (2, "netG")]
    modules = set(summary["modules"])
    assert {"netD", "netG", "netD.main.0", "netG.main.0", "netD.main.6", "netG.main.7"} <= modules, modules
    assert not [m for m in modules if m.startswith("main")]
    embedded = summary["captured"]["embeddings"]  # the captures use the qualified paths too
    assert "netD.main" in embedded and not [m for m in embedded if m.startswith("main")], embedded
    names = {p["name"] for o in run.optimizer_steps for p in o["params"]}
    assert "netD.main.0.weight" in names and "netG.main.1.bias" in names
    expected = torch.load(dump / "losses.pt")  # [errD_real, errD_fake, errG] per iteration
    assert summary["step_losses"] == expected
    assert summary["losses"] == [s[0] for s in expected]
    # the fixed-noise sample after iteration 0 ends (gradients on, no backward reaches it): an
    # evaluation at the head of step 1
    fixed = [e for e in top_level_calls(run, 1) if e["name"] == "netG" and e["phase"] == "Evaluation"]
    assert len(fixed) == 1


def test_logging_after_the_last_step_runs(tvis, tmp_path):
    dump = tmp_path / "dump"
    path, out, plain = record_matching_plain(tvis, SCRIPTS / "eval_after_step.py", 3, tmp_path / "runs",
                                             "--dump", dump)
    lines = script_lines(out)
    assert lines[0].startswith("before training val") and lines[-1].startswith("step 2 ")
    assert lines == script_lines(plain)[:len(lines)]
    run = load_run(path)
    fetches = [e for e in run.events.values() if e["kind"] == "DataFetch" and e["step"] == 0]
    assert [e["phase"] for e in fetches][:2] == ["Evaluation", "Evaluation"]  # the validation before training
    assert "Data" in [e["phase"] for e in fetches]
    for step in range(3):
        x = torch.load(dump / ("batch_step%d.pt" % step))
        for row, values in followed_inputs(run, step):
            assert torch.equal(values, x[row])


def test_a_run_without_an_optimizer_counts_backward_passes(tvis, tmp_path):
    p = run_tvis(tvis, SCRIPTS / "manual_sgd.py", "--steps", 5, steps=3, out=tmp_path / "runs")
    assert p.returncode == 0, p.stderr
    notices = inspect_json(tvis, run_file_of(p.stdout))["notices"]
    assert "stopped after 3 steps (backward passes) as requested" in notices, notices
    plain = run_plain(SCRIPTS / "manual_sgd.py", "--steps", 5)
    assert script_lines(p.stdout) == script_lines(plain.stdout)[:3]


def test_forwards_no_backward_reaches_are_evaluations(tvis, tmp_path):
    """A probe forward with gradients on (its graph never backpropagated) and
    a frozen teacher (no graph) are Evaluation; the student's forward is the
    step's Forward and, without a DataLoader, its batch is the one followed."""
    dump = tmp_path / "dump"
    path, out, plain = record_matching_plain(tvis, SCRIPTS / "grad_on_side_forwards.py", 3, tmp_path / "runs",
                                             "--dump", dump)
    assert script_lines(out) == script_lines(plain)[:len(script_lines(out))]
    run = load_run(path)
    for step in range(3):
        calls = [(e["class_name"], e["phase"]) for e in top_level_calls(run, step)]
        assert calls == [("Sequential", "Evaluation"), ("Teacher", "Evaluation"), ("Sequential", "Forward")], \
            (step, calls)
        inner = [e for e in run.events.values() if e["step"] == step and e["kind"] == "ModuleCall"
                 and e["name"].startswith("teacher.body")]
        assert len(inner) == 4 and all(e["phase"] == "Evaluation" for e in inner), "the teacher's layers"
        x = torch.load(dump / ("x_step%d.pt" % step))
        rows = followed_inputs(run, step)
        assert len(rows) == 4 and all(torch.equal(values, x[row]) for row, values in rows), step
    # their time counts as Evaluation in every step's phase timings
    timed = {(t.get("step", 0), t["phase"]) for t in run.meta["phase_timings"]}
    assert all((step, "Evaluation") in timed for step in range(3)), timed


def test_an_optimizer_that_skips_iterations_still_ends_each_iteration(tvis, tmp_path):
    """WGAN's critic steps every iteration, its generator every second: a
    step is still one iteration (a D-only one ends at the next fetch)."""
    path, out, plain = record_matching_plain(tvis, SCRIPTS / "wgan_critic.py", 4, tmp_path / "runs")
    lines = script_lines(out)
    assert [l.split()[1] for l in lines if l.startswith("step ")] == ["0", "1", "2", "3"]
    assert lines == script_lines(plain)[:len(lines)]
    assert inspect_json(tvis, path)["steps"] == 4
    run = load_run(path)
    assert [(o["step"], o["params"][0]["name"].split(".")[0]) for o in run.optimizer_steps] == \
        [(0, "netD"), (1, "netD"), (1, "netG"), (2, "netD"), (3, "netD"), (3, "netG")]
