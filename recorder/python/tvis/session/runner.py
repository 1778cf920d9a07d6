"""Runs a training script as ``python SCRIPT ARGS...`` would, recorded.

Started by ``tvis run`` (tools/cli/run_command.cpp) through ``tvis/_runner.py`` as
``python -m tvis._runner --run-file F --config JSON [--option K=V]... --
SCRIPT ARGS...``: JSON is the run's RunConfig (schema/recording.fbs) as
`tvis run` filled it from its flags, handed whole to Session; --option gives
a rank's place (rank, world_size, local_rank, launcher), or with ``--go-fd FD``
instead of ``--run-file``: started while ``tvis run`` still probes for the
interpreter, it imports torch and the native module, then reads the run file's
path from FD (end of file: not chosen, exit 0 having printed nothing).

The script sees what ``python SCRIPT ARGS`` gives it: a fresh ``__main__``
module (``__name__ == "__main__"``, ``__file__`` absolute, classes defined in
it pickle), ``sys.argv == [SCRIPT, ARGS...]``, ``sys.path[0]`` = the script's
folder (symlinks resolved), the paths tvis added to PYTHONPATH removed again
and PYTHONPATH restored for child processes. Exit codes and tracebacks are
Python's: SystemExit codes pass through, an uncaught exception prints through
``sys.excepthook`` and exits 1, KeyboardInterrupt and SIGTERM end the process
by the signal as Python does. In each case the run is finalized first with
the reason. Exit 3 and one line on stderr: tvis itself could not start
(missing script, syntax error, unwritable run file).
"""

import json
import os
import signal
import sys
import time
import traceback

_STARTED = time.time()  # for the benchmarks' timeline (TVIS_STATS_FILE)


def _fail(msg, code=3):
    sys.stderr.write("tvis run: error: %s\n" % msg)
    sys.stderr.flush()
    return code


# The one environment variable the runner of a rank a launcher re-ran
# (child_ranks.py) finds the run's configuration in, as --config's JSON.
RUN_CONFIG_ENV = "TVIS_RUN_CONFIG"


def _parse(argv):
    """(opts, script argv): opts["config"] the run's RunConfig (a dict of
    schema/recording.fbs's fields, where every default lives: --config JSON,
    or the JSON in RUN_CONFIG_ENV, whole), opts["options"] the other run
    options (--option K=V: rank, world_size, local_rank, launcher),
    opts["run_file"], opts["go_fd"]."""
    opts = {"config": {}, "run_file": None, "options": [], "go_fd": None}
    env_config = os.environ.pop(RUN_CONFIG_ENV, "")
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            if env_config:
                opts["config"] = json.loads(env_config)
            if not isinstance(opts["config"], dict):
                raise ValueError("--config takes a JSON object (got %r)" % (opts["config"],))
            return opts, argv[i + 1:]
        if i + 1 >= len(argv):
            raise ValueError("option %s needs a value" % a)
        v = argv[i + 1]
        if a == "--config":
            opts["config"] = json.loads(v)
        elif a == "--run-file":
            opts["run_file"] = v
        elif a == "--go-fd":
            opts["go_fd"] = int(v)
        elif a == "--option":
            k, _, val = v.partition("=")
            opts["options"].append((k, val))
        else:
            raise ValueError("unknown runner option %s" % a)
        i += 2
    raise ValueError("missing -- SCRIPT")


def _wait_for_run_file(fd):
    """`tvis run` started this runner before its probes chose the interpreter
    (``--go-fd``): import what the recording needs meanwhile, then read the
    run file's path, a line on `fd`. End of file instead: another interpreter
    was chosen; leave silently, having done nothing visible."""
    try:
        import tvis.native
        tvis.native.load()  # main loads it again, from sys.modules
        import tvis.session.session  # noqa: F401
    except BaseException:  # noqa: BLE001: main imports again and reports as it always does
        pass
    data = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except KeyboardInterrupt:  # Ctrl-C during the probes: `tvis run` decides
            continue
        if not chunk:
            break
        data += chunk
    os.close(fd)
    if not data.endswith(b"\n"):
        os._exit(0)
    return os.fsdecode(data[:-1])


def _restore_environment():
    """Undo what tvis run added so the script's children see the user's env."""
    added = [p for p in os.environ.pop("TVIS_ADDED_PATHS", "").split(os.pathsep) if p]
    native_dirs = [p for p in os.environ.pop("TVIS_NATIVE_DIRS", "").split(os.pathsep) if p]
    if "TVIS_ORIG_PYTHONPATH" in os.environ:
        orig = os.environ.pop("TVIS_ORIG_PYTHONPATH")
        if orig:
            os.environ["PYTHONPATH"] = orig
        else:
            os.environ.pop("PYTHONPATH", None)
    return added, native_dirs


def _exit_code_of(exc):
    """Python's exit status and stderr text for SystemExit(code)."""
    code = exc.code
    if code is None:
        return 0, None
    if isinstance(code, int):
        return code & 0xFF if code >= 0 else code & 0xFF, None
    return 1, str(code)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts, script_argv = _parse(argv)
    except ValueError as e:
        return _fail(str(e))
    if not script_argv:
        return _fail("no script given")
    if opts["go_fd"] is not None:
        opts["run_file"] = _wait_for_run_file(opts["go_fd"])
        go_received = time.time()
    added, native_dirs = _restore_environment()
    script = script_argv[0]
    if not os.path.isfile(script):
        return _fail("script not found: %s" % script)
    try:
        with open(script, "rb") as f:
            source = f.read()
    except OSError as e:
        return _fail("cannot read %s: %s" % (script, e.strerror))
    abs_script = os.path.abspath(script)
    try:
        code = compile(source, abs_script, "exec", dont_inherit=True)
    except SyntaxError as e:
        return _fail("syntax error in %s line %s: %s" % (script, e.lineno, e.msg), 1)

    imports_begin = time.time()
    import tvis.native
    try:
        _tvis_native = tvis.native.load(native_dirs)
    except tvis.native.NativeModuleMismatch as e:
        return _fail(str(e))
    native_imported = time.time()
    from tvis.session.session import Session

    config, options = opts["config"], opts["options"]
    config["project_dir"] = os.path.abspath(config.get("project_dir") or os.path.dirname(abs_script))
    try:
        session = Session(_tvis_native, opts["run_file"], config, script, options)
    except RuntimeError as e:
        return _fail(str(e))
    session.timeline[:0] = [("runner_started", _STARTED), ("imports_begin", imports_begin),
                            ("native_imported", native_imported)]
    if opts["go_fd"] is not None:
        session.timeline.insert(1, ("run_file_received", go_received))
    session.mark("session_created")

    # The script's view of the interpreter.
    import builtins
    import importlib.machinery
    import types
    main_mod = types.ModuleType("__main__")
    main_mod.__dict__.update({"__file__": abs_script, "__builtins__": builtins, "__cached__": None,
                              "__loader__": importlib.machinery.SourceFileLoader("__main__", abs_script),
                              "__spec__": None, "__package__": None})
    sys.modules["__main__"] = main_mod
    sys.argv = list(script_argv)
    sys.path[0] = os.path.dirname(os.path.realpath(abs_script))
    for p in added:
        while p in sys.path:
            sys.path.remove(p)

    def on_sigterm(signum, frame):
        session.finalize(exit_code=-signum, exception="signal SIGTERM")
        signal.signal(signum, signal.SIG_DFL)
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, on_sigterm)
    session.install()
    # Ranks the script starts itself (Lightning, torchrun in accelerate launch, mp.spawn): child_ranks.py.
    from tvis.session import child_ranks
    child_ranks.install(session, child_ranks.LaunchConfig(
        os.path.dirname(os.path.abspath(opts["run_file"])), abs_script, session.config, options, added,
        native_dirs))
    session.mark("installed")
    try:
        exec(code, main_mod.__dict__)
    except SystemExit as e:
        status, text = _exit_code_of(e)
        session.finalize(exit_code=status,
                         exception="" if status == 0 else "SystemExit(%r)" % (e.code,))
        child_ranks.wait_children(session)
        if text is not None:
            sys.stderr.write(text + "\n")
        return status
    except KeyboardInterrupt as e:
        tb = e.__traceback__.tb_next
        e.__traceback__ = tb
        session.finalize(exit_code=-signal.SIGINT, exception="KeyboardInterrupt",
                         traceback_text="".join(traceback.format_exception(type(e), e, tb)))
        traceback.print_exception(type(e), e, tb)
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return 130
    except BaseException as e:
        tb = e.__traceback__.tb_next  # drop this runner's frame
        e.__traceback__ = tb
        text = "".join(traceback.format_exception(type(e), e, tb))
        session.finalize(exit_code=1, exception="%s: %s" % (type(e).__name__, e), traceback_text=text)
        child_ranks.wait_children(session)
        sys.excepthook(type(e), e, tb)
        return 1
    session.finalize(exit_code=0)
    child_ranks.wait_children(session)
    return 0


if __name__ == "__main__":
    sys.exit(main())
