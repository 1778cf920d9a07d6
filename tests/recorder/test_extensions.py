"""The session's hook bus (tvis.session.hook_bus): a subscriber that raises is
switched off with a notice, and its finalize() runs once at once so what it
patched is put back; the other subscribers keep being called."""
from tvis.captures import CAPTURES, names
from tvis.session.hook_bus import HookBus


class _Session:
    def __init__(self):
        self.notices = []

    def notice(self, code, message):
        self.notices.append((code, message))


class _Ext:
    def __init__(self, fail_in=None):
        self.calls = []
        self.fail_in = fail_in

    def on_backward(self, *args):
        self.calls.append("on_backward")
        if self.fail_in == "on_backward":
            raise RuntimeError("boom")

    def finalize(self):
        self.calls.append("finalize")


def _dispatcher(**exts):
    session = _Session()
    d = HookBus(session.notice, list(exts.items()))
    d.session = session
    return d


def test_failing_extension_is_finalized_once_and_switched_off(capsys):
    bad, good = _Ext(fail_in="on_backward"), _Ext()
    d = _dispatcher(gradcam=bad, embeddings=good)
    d.call("on_backward", None, None)
    assert bad.calls == ["on_backward", "finalize"]
    assert d.session.notices[0][0] == "gradcam_failed"
    assert "RuntimeError: boom" in d.session.notices[0][1]
    assert "recording continues without it" in capsys.readouterr().err
    d.call("on_backward", None, None)
    d.call("finalize")
    assert bad.calls == ["on_backward", "finalize"]  # never called again
    assert good.calls == ["on_backward", "on_backward", "finalize"]


def test_failing_finalize_is_not_called_twice():
    class _BadFinal(_Ext):
        def finalize(self):
            self.calls.append("finalize")
            raise ValueError("late")

    ext = _BadFinal()
    d = _dispatcher(attention=ext)
    d.call("finalize")
    assert ext.calls == ["finalize"]
    assert d.session.notices[0][0] == "attention_failed"


def test_captures_are_an_explicit_list_in_call_order():
    # the order hooks run in (and insight records are written in); it was the
    # alphabetical order of the old _capture_*.py modules
    assert names() == ["attention", "embeddings", "gradcam", "pipeline", "grad_clip"]
    assert all(module == "tvis.captures.%s.capture" % name for name, module in CAPTURES)
