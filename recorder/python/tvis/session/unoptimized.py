"""Parameters with a gradient that no optimizer updates (diagnose's
not_optimized check, analysis/src/check_unoptimized.cpp).

When an optimizer step opens, every parameter of the models the recorder
saw called (their roots) whose .grad is set and that is in no param group
of any live optimizer the script created is counted. The OptimizerStep
event carries, when there is one:
  grads_unoptimized        how many
  grads_unoptimized_names  the first _MAX_NAMES (10) of their names, space-separated
  grads_unoptimized_last   the last one's name, when the list was cut (diagnose
                           tells a backbone left trainable from a head left out
                           by where the first and the last run)

Cost: none of its own beyond reading each parameter's .grad: the models'
parameters are listed once as the step opens, for this probe and the
snapshot (Session._named_params); no tensor is read."""

from .. import records as R

_MAX_NAMES = 10


def unoptimized_detail(session):
    """The detail for the optimizer step opening now, or None."""
    if not len(session._optimizers):
        return None
    held = {id(p) for o in list(session._optimizers) for g in o.param_groups for p in g["params"]}
    found = [path for k, (path, p) in session._named_params().items() if p.grad is not None and k not in held]
    if not found:
        return None
    shown = found[:_MAX_NAMES]
    last = found[-1] if len(found) > _MAX_NAMES else None
    return R.event_detail(grads_unoptimized=len(found), grads_unoptimized_names=" ".join(shown),
                          grads_unoptimized_last=last)


class UnoptimizedProbe:
    """Subscriber (hook_bus): the detail of each optimizer step as it opens."""

    def __init__(self, session):
        self._s = session

    def on_optimizer_step_open(self, eid):
        detail = unoptimized_detail(self._s)
        if detail is not None:
            self._s.rec.add_detail(eid, detail)


def attach(session):
    return UnoptimizedProbe(session)
