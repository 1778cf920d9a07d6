"""What a capture sees of the session: ``CaptureContext``.

Captures (``tvis.captures``) get one ``CaptureContext`` at ``attach(ctx)``
and reach the session through it only, so the session's internals can change
without touching them. Every method here states its contract; none of them
draws random numbers, sets a torch flag or writes a tensor of the user's.
"""

from .followed import followed_rows


class CaptureContext:
    """The session as captures use it. Cheap to call: hot paths (the softmax
    wrapper, module hooks) read ``open_calls`` and ``active`` on every call."""

    def __init__(self, session):
        self._s = session
        # The native Recorder. Captures use: tensor(t, role, event, name) and
        # tensors(event, role, value) (ids of kept tensors), begin(kind, name,
        # class_name, call_file, call_line, def_file, def_line) / end(event),
        # file_id(filename), add_detail(event, records.event_detail(...)), paused() /
        # set_paused(flag) (around tvis's own autograd passes). Records go
        # through add_insights() / add_record() below, never rec.add_* directly.
        self.rec = session.rec
        self.samples = session.samples          # --samples K: followed samples per batch
        self.project_dir = session.project_dir  # the project's root folder (absolute)
        self.project_files = session.project_files  # ProjectFiles: is a source file the project's?

    # ------------------------------------------------------------ state --
    @property
    def active(self):
        """True while the run records (False after finalize, in a forked child)."""
        return self._s.active

    @property
    def step(self):
        """The step being recorded: the number of optimizer steps already written."""
        return self._s.steps_done

    @property
    def open_calls(self):
        """The open module calls, outermost first: the session's live list of
        (module, event id). Read only; ``len(open_calls) == 1`` inside a
        top-level (root model) call. The same list object for the whole run,
        so a capture may keep it (its hot paths do)."""
        return self._s._stack

    def in_forward_phase(self):
        """True outside a data fetch, a backward and an optimizer step (a
        module call now is the model's forward, or the loss)."""
        s = self._s
        return not (s._fetch_depth or s._bw_depth or s._step_depth)

    def option(self, name):
        """The run configuration's ``name`` (RunConfig: steps, max_elems,
        samples, ...), else the value (a string) of run option ``name`` (rank,
        world_size, ...), the last one given; None when absent."""
        if name in self._s.config:
            return self._s.config[name]
        return dict(self._s.options).get(name)

    def flag(self, name):
        """True when the run configuration's ``name`` is set (``--no-gradcam``),
        or run option ``name`` was given as ``1``."""
        if name in self._s.config:
            return bool(self._s.config[name])
        return (name, "1") in [tuple(o) for o in self._s.options]

    def module_name(self, module):
        """The module's path in its root model (``layer1.0.conv1``; the root
        is its class name). Stable for the module's lifetime."""
        return self._s._module_name(module)

    def followed_rows(self, batch_rows):
        """[(sample id, batch position, label index or None)] of this step's
        followed samples inside a batch of ``batch_rows`` rows (see
        ``tvis.session.followed.followed_rows``)."""
        return followed_rows(self._s, batch_rows)

    # -------------------------------------------------------- notices --
    def notice(self, code, message):
        """Adds a run notice; a code already noticed keeps its first message."""
        self._s.notice(code, message)

    def has_notice(self, prefix):
        """True when a notice whose code starts with ``prefix`` was given."""
        return any(c.startswith(prefix) for c, _ in self._s.notices)

    # ---------------------------------------------------------- changes --
    def patch(self, owner, attr, make_wrapper):
        """``owner.attr = make_wrapper(original)``, put back at finalize. The
        wrapper must call the original with the same arguments and return its
        result unchanged."""
        self._s._patch(owner, attr, make_wrapper)

    def add_insights(self, batch):
        """Writes an insight batch: a ``tvis.records.insights(...)`` dict."""
        self._s.rec.add_insights(batch)

    def add_record(self, table, record):
        """Writes one record of schema table ``table`` (its name in
        recording.fbs): a ``tvis.records`` constructor's dict. It goes out
        with the step's next flush."""
        self._s.rec.add_record(table, record)

    def capture_failed(self, name, where, exc):
        """Switches capture ``name`` off after ``exc`` raised in ``where``
        outside a hook call (a wrapper of its own): notice, stderr line, its
        finalize() at once."""
        self._s.bus.disable(name, where, exc)

    # --------------------------------------------------------- pipeline --
    def set_fetch_observer(self, observer):
        """The object whose ``begin()`` / ``end()`` bracket every DataLoader
        fetch (``end()`` returns the observation the fetch's samples come from;
        see ``tvis.session.fetch``)."""
        self._s.fetch.observer = observer

    def enter_pipeline(self):
        """Data-pipeline code runs from here to ``exit_pipeline()`` (emulated
        DataLoader workers): module hooks record nothing meanwhile. Nests."""
        self._s._fetch_depth += 1

    def exit_pipeline(self):
        self._s._fetch_depth -= 1
