"""What the run says about itself (RunMeta) and the notices the session adds
when it ends.

``RunMetaNotes`` is a part of Session (a mixin over the Session's fields):
``_meta(complete, ...)`` builds the RunMeta record (written at install,
incomplete, and at finalize); ``_notice_budget`` names what the byte budget
and the weights' spill file left out; ``_note_process_group`` adds a
distributed rank's backend to the options; ``_steps_unit`` says what a step
was in this run. None changes what is recorded otherwise.
"""

import os
import socket
import sys
import time

import torch

from .. import records as R


class RunMetaNotes:
    """A part of Session: RunMeta and the notices at the run's end (see the module doc)."""

    def notice(self, code, message):
        if code not in self._notice_codes:
            self._notice_codes.add(code)
            self.notices.append((code, message))

    def _meta(self, complete, exit_code=0, exception="", traceback_text=""):
        return R.run_meta(
            script=self.script,
            argv=list(sys.argv),
            cwd=os.getcwd(),
            project_dir=self.project_dir,
            python_version=sys.version.split()[0],
            torch_version=torch.__version__,
            device=self._device or "cpu",
            hostname=socket.gethostname(),
            tvis_version=__import__("tvis").__version__,
            started_unix_ms=self.started_ms,
            finished_unix_ms=int(time.time() * 1000) if complete else 0,
            steps_requested=self.steps_requested,
            steps_recorded=self.steps_done,
            complete=complete,
            exit_code=exit_code,
            exception=exception,
            traceback=traceback_text,
            notices=list(self.notices),
            options=list(self.options),
            optimizer_class=self.optimizer_class,
            param_shards=self.shards.records(),
        )

    def _notice_budget(self):
        st = self.rec.stats()
        if st.get("spill_error"):
            self.notice("snapshot_spill_failed", "the file beside the run that holds a large model's weights during "
                        "the optimizer step failed (%s); later weights were held in memory%s"
                        % (st["spill_error"], "" if not st.get("spill_lost_updates") else
                           ", and %d updates kept only their element count" % st["spill_lost_updates"]))
        if st["budget_refused"]:
            limit = self.config["max_run_bytes"]
            self.notice("byte_budget", "%d tensors (%.1f MB of values) kept statistics, a thumbnail and their followed "
                        "samples' rows only, to keep the run within --max-run-bytes %s; raise it to keep more"
                        % (st["budget_refused"], st["budget_refused_bytes"] / 1e6, limit))

    def _note_process_group(self):
        """A distributed rank: the process group's backend, in the options
        (rank, world_size, local_rank and launcher came from `tvis run`)."""
        dist = sys.modules.get("torch.distributed")
        try:
            if dist is not None and dist.is_available() and dist.is_initialized():
                self.options.append(("backend", str(dist.get_backend())))
        except Exception:  # noqa: BLE001: a process group torn down mid-call says nothing
            pass

    def _steps_unit(self):
        """What a step was in this run, for the notices (docs/cli.md: how steps are counted)."""
        if not self._optimizers_seen:
            return "steps (backward passes)"
        n = len(self._optimizers)
        return "optimizer steps" if n <= 1 else "steps (iterations of %d optimizers)" % n
