"""Ranks a recorded script starts itself: Lightning's launcher, torchrun as
``accelerate launch`` runs it, ``torch.multiprocessing.spawn``.

Contract: under ``tvis run``, every process such a launcher starts as a rank
of a distributed world is recorded into the same run folder as the launching
process, with the layout of ``tvis run --nproc-per-node`` (run.tvis is rank
0, rank<k>.tvis the others: runs/include/tvis/runs/rank_files.h), or the run
says which rank was not recorded and why (a notice ``rank_not_recorded`` in
the launching process's run, and one line on stderr). Nothing leaves tvis's
own process tree: no sitecustomize, usercustomize or .pth file; the
launching process hands its children what they need in their command line
and environment.

Two doors, both installed by ``install`` in the process ``tvis run``
started (and in every rank it leads to, so a rank launching ranks works too):

- ``subprocess.Popen`` of this interpreter running a script (``python [-u]
  SCRIPT ARGS``) with a rank in the child's environment (``RANK`` and
  ``WORLD_SIZE``, as torchrun's agent sets them; or ``LOCAL_RANK``,
  ``WORLD_SIZE`` and ``NODE_RANK`` 0, as Lightning's launcher does): the
  command becomes ``python [-u] -m tvis._runner --run-file FOLDER/<rank file>
  ... -- SCRIPT ARGS`` with PYTHONPATH as ``tvis run`` sets it (the runner
  restores the child's own, so the script sees its environment unchanged).
  The interpreter's flags are kept. ``python -m MODULE`` and ``python -c``
  children are not recorded (the runner runs scripts); they are named.
- ``torch.multiprocessing.start_processes`` (``mp.spawn``) with the ``spawn``
  or ``fork`` start method (accelerate's ``notebook_launcher`` forks on the
  CPU): the function each child runs is wrapped (``SpawnedRank``, a
  picklable object) so the child opens its own recording as rank ``i`` of
  ``nprocs`` before calling it and finalizes it after. A spawned child
  imports tvis while unpickling it: while these processes start,
  multiprocessing's preparation data carries tvis's folders at the end of
  the child's ``sys.path`` (removed again before the function runs). A
  forked child first takes these doors out of what it inherited (the
  launcher's recording was handed over before the fork, so nothing else of
  it is live). ``forkserver`` children are not recorded; they are named.

Who is rank 0: when the launching process is itself a rank of that world
(Lightning: it trains as rank 0 and starts the others), its own recording
is rank 0's and gets the rank options. When it only launches (torchrun's
agent inside ``accelerate launch``, the parent of ``mp.spawn``), its own
recording is handed over before the first rank starts: the run file is
removed and its recording stops (``Session.hand_over``), so rank 0's process
records run.tvis; a launcher that already recorded a step keeps its file and
the ranks are not recorded (said as above).
"""

import inspect
import json
import os
import sys
import traceback

_RANK_KEYS = ("rank", "world_size", "local_rank", "launcher")
# The one environment variable a rank's runner finds the run's RunConfig in, as
# JSON (schema/recording.fbs field names): for processes a launcher re-runs.
RUN_CONFIG_ENV = "TVIS_RUN_CONFIG"  # runner.py's RUN_CONFIG_ENV
_DOORS = None  # the ChildRanks installed in this process (a forked rank takes them out)


class LaunchConfig:
    """What a rank's runner needs, from the runner of ``tvis run``: the run
    folder, the runner's options, the interpreter paths tvis added and the
    native module folders."""

    def __init__(self, folder, script, config, options, added, native_dirs):
        self.folder, self.script = folder, script
        self.config = dict(config)  # the run's RunConfig (session.config), whole
        self.options = [(k, v) for k, v in options if k not in _RANK_KEYS]
        self.added, self.native_dirs = list(added), list(native_dirs)

    def run_file(self, rank):
        """rank_files.h's name for `rank` in the run folder."""
        return os.path.join(self.folder, "run.tvis" if rank <= 0 else "rank%d.tvis" % rank)

    def runner_args(self, rank, world, local_rank, launcher):
        """The rank's runner arguments; its RunConfig goes in its environment (child_environment)."""
        a = ["--run-file", self.run_file(rank)]
        for k, v in self.options + [("rank", str(rank)), ("world_size", str(world)),
                                    ("local_rank", str(local_rank)), ("launcher", launcher)]:
            a += ["--option", "%s=%s" % (k, v)]
        return a

    def child_environment(self, env):
        """`env` (the child's) with what ``tvis run`` adds for its runner (tools/cli/runner_launch.cpp)."""
        env = dict(env)
        orig = env.get("PYTHONPATH", "")
        env["TVIS_ORIG_PYTHONPATH"] = orig
        added = os.pathsep.join(self.added)
        env["PYTHONPATH"] = added + (os.pathsep + orig if orig else "")
        env["TVIS_ADDED_PATHS"] = added
        env["TVIS_NATIVE_DIRS"] = os.pathsep.join(self.native_dirs)
        env[RUN_CONFIG_ENV] = json.dumps(self.config)  # the run's RunConfig, whole (runner.py reads it)
        return env


class ChildRanks:
    """The two doors of the module docstring for one recording session."""

    def __init__(self, session, config):
        self.session, self.config = session, config
        self.world = None        # the world size of the ranks started so far
        self.role = None         # "rank" (this process is one), "launcher" (handed over), "refused"
        self.children = []       # the Popen objects of the ranks this process started through the door
        self.preparing = 0       # inside a wrapped start_processes: children get tvis's folders
        self._undo = []

    # ----------------------------------------------------------- install --
    def install(self):
        import subprocess
        self._patch(subprocess.Popen, "__init__", self._wrap_popen)
        import torch.multiprocessing as tmp
        tms = sys.modules["torch.multiprocessing.spawn"]  # the attribute `spawn` is the function
        orig = tms.start_processes
        wrapped = self._wrap_start_processes(orig)
        self._patch(tms, "start_processes", lambda _: wrapped)
        if getattr(tmp, "start_processes", None) is orig:
            self._patch(tmp, "start_processes", lambda _: wrapped)
        import multiprocessing.spawn as mps
        self._patch(mps, "get_preparation_data", self._wrap_preparation)

    def _patch(self, owner, attr, make_wrapper):
        orig = getattr(owner, attr)
        setattr(owner, attr, make_wrapper(orig))
        self._undo.append(lambda: setattr(owner, attr, orig))

    def uninstall(self):
        for undo in reversed(self._undo):
            undo()
        self._undo = []

    # ------------------------------------------------------------- roles --
    def _missing(self, ranks, why):
        """Ranks that will not be recorded: a notice in this run and a line on stderr."""
        text = "rank%s %s of a world of %s %s not recorded: %s" % (
            "s" if len(ranks) > 1 else "", ", ".join(str(r) for r in ranks), self.world or "?",
            "were" if len(ranks) > 1 else "was", why)
        if self.session.active:
            self.session.notice("rank_not_recorded", text)
        sys.stderr.write("tvis run: %s\n" % text)
        sys.stderr.flush()

    def _take_role(self, world, launcher):
        """Before the first rank starts: this process is rank 0 of `world`
        (its recording gets the rank options), or a launcher whose recording
        is handed over. False when the ranks cannot be recorded (said by the
        caller): a launcher that recorded steps itself. Decided once."""
        if self.role is None:
            self.world = self.world or world
            own = self._own_rank()
            s = self.session
            if own is not None:
                self.role = "rank"
                keys = {k for k, _ in s.options}
                for k, v in (("rank", own), ("world_size", world), ("local_rank", own), ("launcher", launcher)):
                    if k not in keys:
                        s.options.append((k, str(v)))
            elif s.steps_done > 0 or not s.active:
                self.role = "refused"
            else:
                s.hand_over()
                self.role = "launcher"
        return self.role != "refused"

    def _own_rank(self):
        """This process's rank when its own environment names one (Lightning's rank 0)."""
        rank, _ = _rank_of(os.environ)
        return rank

    # -------------------------------------------------------------- Popen --
    def _wrap_popen(self, orig):
        doors = self

        def __init__(popen, args, *a, **kw):
            given = args
            try:
                args, kw = doors._rank_command(args, a, kw)
            except Exception as e:  # noqa: BLE001: the child starts as the script asked
                sys.stderr.write("tvis run: a child process is not recorded: %s: %s\n" % (type(e).__name__, e))
            result = orig(popen, args, *a, **kw)
            if args is not given:
                doors.children.append(popen)
            return result

        return __init__

    def _rank_command(self, args, a, kw):
        """(args, kw) of a Popen: rewritten to record the child when it is a rank (module docstring)."""
        if a or kw.get("shell") or not isinstance(args, (list, tuple)) or not args:
            return args, kw
        env = kw.get("env")
        rank, world = _rank_of(os.environ if env is None else env)
        if rank is None or not _same_interpreter(str(args[0])):
            return args, kw
        env = os.environ if env is None else env
        launcher = "torchrun" if "TORCHELASTIC_RUN_ID" in env else _caller_package()
        flags, rest = _split_interpreter_flags([str(x) for x in args[1:]])
        if not rest or rest[0] in ("-m", "-c") or rest[0].startswith("-"):
            self.world = self.world or world
            if self._own_rank() is not None:  # this process is rank 0: its run records the world it lacks
                self._take_role(world, launcher)
            self._missing([rank], "started as `python %s ...` by %s; tvis records a process that runs a script "
                          "(python SCRIPT ARGS)" % (" ".join(rest[:2]), launcher))
            return args, kw
        if not self._take_role(world, launcher):
            self._missing([rank], "the launching process recorded steps itself before starting the ranks")
            return args, kw
        local = int(env.get("LOCAL_RANK", rank) or rank)
        cmd = [str(args[0])] + flags + ["-m", "tvis._runner"] + self.config.runner_args(rank, world, local, launcher)
        cmd += ["--"] + rest
        kw = dict(kw, env=self.config.child_environment(env))
        if "-u" in flags:
            kw["env"]["PYTHONUNBUFFERED"] = kw["env"].get("PYTHONUNBUFFERED", "1")
        return cmd, kw

    def wait_children(self, timeout=120.0):
        """Before this process ends (its last step recorded, or its script done): the rank processes it
        started through the door, which record their own last step at the same point, end first, so
        `tvis run` names complete rank files and prints their output before its own last lines. A rank
        still running after `timeout` seconds is left running, and said."""
        import subprocess
        import time
        deadline = time.monotonic() + timeout
        for p in self.children:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                sys.stderr.write("tvis run: a rank process (pid %d) still runs %.0f s after this one ended\n"
                                 % (p.pid, timeout))
            except Exception:  # noqa: BLE001: a rank that cannot be waited for is not ours to end
                pass

    # ---------------------------------------------------------- mp.spawn --
    def _wrap_start_processes(self, orig):
        doors = self
        try:
            sig = inspect.signature(orig)
        except (TypeError, ValueError):
            sig = None

        def start_processes(*a, **kw):
            if sig is None:
                return orig(*a, **kw)
            bound = sig.bind(*a, **kw)
            bound.apply_defaults()
            b = bound.arguments
            nprocs, method = int(b.get("nprocs", 1)), b.get("start_method", "spawn")
            if nprocs < 2 or isinstance(b["fn"], SpawnedRank):
                return orig(*a, **kw)
            doors.world = doors.world or nprocs
            if method not in ("spawn", "fork"):
                doors._missing(list(range(nprocs)), "started by torch.multiprocessing with start_method=%r; tvis "
                               "records the ranks of start_method 'spawn' (mp.spawn's default) and 'fork'" % method)
                return orig(*a, **kw)
            if not doors._take_role(nprocs, "torch.multiprocessing.spawn") or doors.role != "launcher":
                doors._missing(list(range(nprocs)), "the launching process recorded steps itself, or is a rank "
                               "itself, before torch.multiprocessing started them")
                return orig(*a, **kw)
            b["fn"] = SpawnedRank(b["fn"], doors.config, nprocs, forked=method == "fork")
            doors.preparing += 1
            try:
                return orig(*bound.args, **bound.kwargs)
            finally:
                doors.preparing -= 1

        return start_processes

    def _wrap_preparation(self, orig):
        doors = self

        def get_preparation_data(*a, **kw):
            d = orig(*a, **kw)
            if doors.preparing and "sys_path" in d:
                d["sys_path"] = list(d["sys_path"]) + [p for p in doors.config.added if p not in d["sys_path"]]
            return d

        return get_preparation_data


class SpawnedRank:
    """The function of a ``mp.spawn`` child, recorded: ``fn(i, *args)`` as
    rank ``i`` of ``nprocs`` into the run folder (module docstring)."""

    def __init__(self, fn, config, nprocs, forked=False):
        self.fn, self.config, self.nprocs, self.forked = fn, config, nprocs, forked

    def __call__(self, i, *args):
        global _DOORS
        if self.forked and _DOORS is not None:  # the launcher's doors, inherited by the fork
            _DOORS.uninstall()
            _DOORS = None
        for p in self.config.added:  # the script's sys.path as the parent's was
            while p in sys.path:
                sys.path.remove(p)
        session = start_session(self.config, rank=i, world=self.nprocs, local_rank=i,
                                launcher="torch.multiprocessing.spawn")
        if session is None:
            return self.fn(i, *args)
        try:
            result = self.fn(i, *args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            session.finalize(exit_code=code, exception="" if code == 0 else "SystemExit(%r)" % (e.code,))
            raise
        except BaseException as e:
            tb = e.__traceback__.tb_next
            session.finalize(exit_code=1, exception="%s: %s" % (type(e).__name__, e),
                             traceback_text="".join(traceback.format_exception(type(e), e, tb)))
            raise
        session.finalize(exit_code=0)
        return result


def start_session(config, rank, world, local_rank, launcher):
    """A recording session of this process as `rank`, installed; None (said on
    stderr) when it cannot start."""
    try:
        import tvis.native
        native = tvis.native.load(config.native_dirs)  # first: the session imports tvis.schema, generated beside it
        from tvis.session.session import Session
        options = config.options + [
            ("rank", str(rank)), ("world_size", str(world)), ("local_rank", str(local_rank)), ("launcher", launcher)]
        session = Session(native, config.run_file(rank), config.config, config.script, options)
        session.install()
        install(session, config)
        return session
    except Exception as e:  # noqa: BLE001: the rank trains unrecorded, and says so
        sys.stderr.write("tvis run: rank %d of %d is not recorded: %s: %s\n" % (rank, world, type(e).__name__, e))
        return None


def wait_children(session):
    """ChildRanks.wait_children for `session`'s doors, when it has any."""
    doors = getattr(session, "child_ranks", None)
    if doors is not None:
        doors.wait_children()


def install(session, config):
    """The doors for `session`'s process (they stay for the process's life: a launcher's later ranks need them)."""
    global _DOORS
    doors = ChildRanks(session, config)
    doors.install()
    session.child_ranks = doors
    _DOORS = doors
    return doors


def _rank_of(env):
    """(rank, world size) the environment names, or (None, None): RANK and
    WORLD_SIZE (torchrun), or LOCAL_RANK and WORLD_SIZE on node 0 (Lightning)."""
    try:
        world = int(env.get("WORLD_SIZE", "") or 0)
        if world < 2:
            return None, None
        if env.get("RANK", "") != "":
            rank = int(env["RANK"])
        elif env.get("LOCAL_RANK", "") != "" and env.get("NODE_RANK", "0") in ("", "0"):
            rank = int(env["LOCAL_RANK"])
        else:
            return None, None
    except ValueError:
        return None, None
    return (rank, world) if 0 <= rank < world else (None, None)


def _same_interpreter(exe):
    try:
        return os.path.samefile(exe, sys.executable)
    except OSError:
        return False


# Interpreter options that take a value (python --help).
_VALUE_FLAGS = ("-W", "-X", "--check-hash-based-pycs")


def _split_interpreter_flags(args):
    """(interpreter flags, the rest: SCRIPT ARGS, or -m/-c ...)."""
    flags = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-m", "-c") or not a.startswith("-") or a == "-":
            break
        flags.append(a)
        if a in _VALUE_FLAGS and i + 1 < len(args):
            flags.append(args[i + 1])
            i += 1
        i += 1
    return flags, args[i:]


def _caller_package():
    """The top-level package of the code that called Popen (``lightning``), else ``subprocess``."""
    f = sys._getframe(3)
    while f is not None:
        name = f.f_globals.get("__name__", "")
        if name and not name.startswith(("subprocess", "tvis")):
            return name.split(".")[0]
        f = f.f_back
    return "subprocess"
