"""Scores `tvis diagnose` on the corpus (README.md beside this file): records
each program with `tvis run`, diagnoses the run, and prints two tables, bug
classes detected and healthy programs with a false alarm, then one line
`diagnose corpus: D/B bug classes detected, F/H healthy programs with a false
alarm`.

Usage: score.py [--subset] [--only NAME,...] [--keep DIR [--reuse]] [--jobs N] [--json FILE] [--tvis PATH] [--python PATH]
Exit 0 when every bug entry run is detected and no healthy program run has a
warning or an error; 1 otherwise; 2 when the corpus itself is malformed.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
PROGRAMS = HERE / "programs"
ALARM = ("error", "warning")


class CorpusError(Exception):
    pass


def load_corpus():
    """Every entry of corpus/*.toml as a dict with `kind` "healthy" or "bug";
    a bug entry's twin is added as a healthy entry "<name>:twin"."""
    entries, names = [], set()
    for path in sorted((HERE / "corpus").glob("*.toml")):
        with open(path, "rb") as f:
            data = tomllib.load(f)
        for kind in ("healthy", "bug"):
            for e in data.get(kind, []):
                for key in ("name", "script", "family"):
                    if not isinstance(e.get(key), str):
                        raise CorpusError("%s: a [[%s]] entry has no %s" % (path.name, kind, key))
                if kind == "bug" and not e.get("expect"):
                    raise CorpusError("%s: bug %s names no expected kind" % (path.name, e["name"]))
                if not (PROGRAMS / e["script"]).is_file():
                    raise CorpusError("%s: %s: no program %s" % (path.name, e["name"], e["script"]))
                if e["name"] in names:
                    raise CorpusError("%s: %s is named twice" % (path.name, e["name"]))
                names.add(e["name"])
                entry = dict(e, kind=kind, source=path.name)
                entries.append(entry)
                if kind == "bug":
                    twin = dict(e, kind="healthy", name=e["name"] + ":twin", twin_of=e["name"], source=path.name)
                    twin.pop("expect", None)
                    entries.append(twin)
    return entries


def command(entry, tvis, out):
    cmd = [tvis, "run", "--steps", str(entry.get("steps", 3)), "--out", str(out)]
    if entry.get("nproc", 1) > 1:
        cmd += ["--nproc-per-node", str(entry["nproc"])]
    cmd += [str(PROGRAMS / entry["script"]), *map(str, entry.get("args", []))]
    if entry["kind"] == "bug":
        cmd.append("--bug")
    return cmd


def run_file(stdout, out):
    """The run.tvis tvis run wrote under `out` (the newest one)."""
    found = sorted(pathlib.Path(out).rglob("run.tvis"), key=lambda p: p.stat().st_mtime)
    return str(found[-1]) if found else None


def judge(entry, report):
    """(ok, the findings that decided it, as "severity kind@step")."""
    alarms = [f for f in report["findings"] if f["severity"] in ALARM]
    shown = ["%s %s@%s" % (f["severity"], f["kind"], f["step"]) for f in report["findings"]]
    if entry["kind"] == "healthy":
        return not alarms, shown
    for f in alarms:
        if f["kind"] not in entry["expect"]:
            continue
        if "step" in entry and f["step"] != entry["step"]:
            continue
        where = entry.get("where")
        if where and not any(where in (f.get(k) or "") for k in ("param", "module", "message")):
            continue
        return True, shown
    return False, shown


def score(entry, tvis, python, keep, reuse):
    out = pathlib.Path(keep) / entry["name"].replace(":", "_")
    path = run_file("", out) if reuse else None
    rec_s = 0.0
    if path is None:
        shutil.rmtree(out, ignore_errors=True)
        env = dict(os.environ, TVIS_PYTHON=python)
        t0 = time.monotonic()
        try:
            p = subprocess.run(command(entry, tvis, out), capture_output=True, text=True, timeout=600, env=env)
        except (OSError, subprocess.TimeoutExpired) as e:
            p = subprocess.CompletedProcess([], -1, "", "%s: %s" % (type(e).__name__, e))
        rec_s = time.monotonic() - t0
        path = run_file(p.stdout, out)
    result = {"name": entry["name"], "kind": entry["kind"], "family": entry["family"], "record_s": round(rec_s, 1)}
    if path is None:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        return dict(result, ok=False, verdict="not recorded (tvis run exit %d): %s" % (p.returncode, " | ".join(tail)))
    t0 = time.monotonic()
    try:
        d = subprocess.run([tvis, "diagnose", "--json", path], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return dict(result, ok=False, verdict="diagnose failed: %s: %s" % (type(e).__name__, e))
    result["diagnose_ms"] = round((time.monotonic() - t0) * 1000)
    if d.returncode not in (0, 1):
        return dict(result, ok=False, verdict="diagnose exit %d: %s" % (d.returncode, d.stderr.strip()))
    report = json.loads(d.stdout)
    ok, shown = judge(entry, report)
    result.update(ok=ok, findings=shown, run=path)
    if entry["kind"] == "bug":
        result["verdict"] = ("detected" if ok else "MISSED (expected %s)" % "/".join(entry["expect"]))
    else:
        result["verdict"] = "clean" if ok else "FALSE ALARM"
    return result


def print_table(title, rows):
    print("\n" + title)
    print("  %-34s %-9s %-32s %s" % ("program", "family", "verdict", "findings (severity kind@step)"))
    for r in rows:
        print("  %-34s %-9s %-32s %s" % (r["name"], r["family"], r["verdict"][:32], ", ".join(r.get("findings", [])) or "-"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--subset", action="store_true", help="only entries marked subset = true")
    ap.add_argument("--only", default="", help="comma-separated entry names (a bug's name runs it and its twin)")
    ap.add_argument("--keep", default="", help="folder for the runs (default: a temporary one, removed)")
    ap.add_argument("--reuse", action="store_true",
                    help="with --keep: diagnose the runs already there instead of recording them again "
                         "(another tvis's diagnose on the same recordings: a before/after table)")
    ap.add_argument("--json", default="", help="also write the results as JSON to this file")
    ap.add_argument("--jobs", type=int, default=2, help="recordings run side by side (default 2)")
    ap.add_argument("--tvis", default=str(ROOT / "build/bin/tvis"))
    ap.add_argument("--python", default=str(ROOT / "build/venv/bin/python"))
    args = ap.parse_args()
    try:
        entries = load_corpus()
    except (CorpusError, tomllib.TOMLDecodeError) as e:
        print("score.py: corpus: %s" % e, file=sys.stderr)
        return 2
    only = {n for n in args.only.split(",") if n}
    chosen = [e for e in entries
              if (not args.subset or e.get("subset"))
              and (not only or e["name"] in only or e.get("twin_of") in only)]
    if not chosen:
        print("score.py: no entry matches", file=sys.stderr)
        return 2
    keep = args.keep or tempfile.mkdtemp(prefix="tvis_diagnose_corpus_")
    t0 = time.monotonic()
    # Each recording is one process; --jobs of them run side by side, each
    # with its share of the cores (torch's intra-op threads), in corpus order.
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // max(1, args.jobs))))
    try:
        def one(e):
            r = score(e, args.tvis, args.python, keep, args.reuse and bool(args.keep))
            print("[corpus] %-36s %s (%.0f s)" % (r["name"], r["verdict"], r["record_s"]), flush=True)
            return r
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(one, chosen))
    finally:
        if not args.keep:
            shutil.rmtree(keep, ignore_errors=True)
    bugs = [r for r in results if r["kind"] == "bug"]
    healthy = [r for r in results if r["kind"] == "healthy"]
    print_table("bug classes (%d)" % len(bugs), bugs)
    print_table("healthy programs (%d; a bug's twin is one)" % len(healthy), healthy)
    detected = sum(r["ok"] for r in bugs)
    alarms = sum(not r["ok"] for r in healthy)
    slowest = max((r for r in results if "diagnose_ms" in r), key=lambda r: r["diagnose_ms"], default=None)
    print("\ndiagnose corpus: %d/%d bug classes detected, %d/%d healthy programs with a false alarm (%.0f s)"
          % (detected, len(bugs), alarms, len(healthy), time.monotonic() - t0))
    if slowest:
        print("diagnose's longest time: %d ms (%s)" % (slowest["diagnose_ms"], slowest["name"]))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if detected == len(bugs) and alarms == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
