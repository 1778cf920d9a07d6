"""Sharded parameters: what one rank holds of each, and where it lies in the whole.

FSDP2 (``fully_shard``) and tensor parallelism hold parameters as ``DTensor``s:
a wrapper whose own storage holds no data; this rank's part is its local
tensor. FSDP1 (``FullyShardedDataParallel``) flattens a wrapped module's
parameters into one ``FlatParameter`` and gives each rank a contiguous range
of it: with ``use_orig_params=True`` each registered parameter is a 1-D view
of its part of that range (empty when none of it is on this rank); with
``use_orig_params=False`` the optimizer holds the ``FlatParameter`` itself,
which is split here into one view per original parameter.

Contract: nothing here runs a collective, writes a tensor, or reads a storage
FSDP freed (an unsharded parameter between uses: storage resized to 0);
everything is read from the sharded parameters themselves, whose local data
FSDP keeps for the whole run. ``Shards.locals`` gives, for an optimizer's
parameter list, the (name, local weight, local gradient) triples to record
and ``Shards.placements`` the ParamShard records (records.param_shard) of
those that are sharded. torch 1.x has no DTensor and no ``fully_shard``:
everything is looked up lazily, and a run without sharding pays one
``isinstance`` per parameter per step.
"""

import sys

from .. import records as R
from .names import user_path


_DTENSOR = []  # the class, once found


def dtensor_class():
    """torch's DTensor class when this process has imported it (else None:
    then no tensor can be one)."""
    if _DTENSOR:
        return _DTENSOR[0]
    for mod in ("torch.distributed.tensor", "torch.distributed._tensor"):
        cls = getattr(sys.modules.get(mod), "DTensor", None)
        if cls is not None:
            _DTENSOR.append(cls)
            return cls
    return None


def _flat_param_class():
    m = sys.modules.get("torch.distributed.fsdp._flat_param")
    return getattr(m, "FlatParameter", None) if m is not None else None


def local_numel(p):
    """Elements of `p` this rank holds (a DTensor's local part; else all)."""
    local = getattr(p, "_local_tensor", None)
    return local.numel() if local is not None else p.numel()


def is_freed(t):
    """A plain tensor whose storage FSDP resized to 0 (an unsharded parameter
    between its uses): nothing of it may be read."""
    try:
        return t.numel() > 0 and t.untyped_storage().size() == 0
    except (RuntimeError, AttributeError, NotImplementedError):
        return False


def _placement_text(placements):
    """"Shard(0)", "Replicate()", "Partial()" per mesh dim, comma-separated."""
    return ", ".join("%s(%s)" % (type(p).__name__, getattr(p, "dim", "")) for p in placements)


def dtensors_possible():
    """Whether a DTensor can exist in this process now: torch's DTensor class
    is imported and a default process group is up (a DeviceMesh creates or
    needs one). False lets the module hooks skip local_values per call."""
    if dtensor_class() is None:
        return False
    dist = sys.modules.get("torch.distributed")
    try:
        return dist is None or not dist.is_available() or bool(dist.is_initialized())
    except Exception:  # noqa: BLE001: an odd build of torch: assume it can
        return True


def local_values(obj):
    """`obj` with each DTensor in it (itself, or one level inside a tuple, list
    or dict) replaced by its local tensor: what the captures read of a module's
    inputs and outputs under tensor parallelism (a DTensor in a capture's own
    arithmetic would need a collective). `obj` itself when there is none."""
    dt = dtensor_class()
    if dt is None:
        return obj
    if isinstance(obj, dt):
        return obj._local_tensor
    if isinstance(obj, (tuple, list)) and any(isinstance(x, dt) for x in obj):
        return type(obj)(x._local_tensor if isinstance(x, dt) else x for x in obj) \
            if type(obj) in (tuple, list) else obj
    if isinstance(obj, dict) and any(isinstance(x, dt) for x in obj.values()):
        return {k: v._local_tensor if isinstance(v, dt) else v for k, v in obj.items()}
    return obj


def dtensor_placement(name, p, source):
    """ParamShard of DTensor `p`: its local part's offsets in the whole
    (torch's own chunking rule, computed from the mesh alone: no collective)."""
    mesh = p.device_mesh
    try:
        from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
    except ImportError:  # torch 2.0-2.3
        from torch.distributed._tensor._utils import compute_local_shape_and_global_offset
    local_shape, offsets = compute_local_shape_and_global_offset(p.shape, mesh, p.placements)
    coord = mesh.get_coordinate() or []
    return R.param_shard(name=name, global_shape=list(p.shape), local_shape=list(local_shape), offsets=list(offsets),
                         flat_offset=-1, mesh_shape=list(mesh.shape), mesh_coord=list(coord),
                         placements=_placement_text(p.placements), source=source)


def _flat_placement(name, shape, start, numel, world, rank):
    return R.param_shard(name=name, global_shape=list(shape), local_shape=[numel], offsets=[],
                         flat_offset=start, mesh_shape=[world], mesh_coord=[rank], placements="FlatShard",
                         source="FullyShardedDataParallel")


def _shard_infos(flat):
    """[(index, shape, start in the whole, offset in this rank's shard, numel)]
    of a FlatParameter's original parameters that have elements on this rank."""
    out = []
    for i, info in enumerate(flat._shard_param_infos):
        if info.in_shard:
            out.append((i, tuple(flat._shapes[i]), int(info.intra_param_start_idx), int(info.offset_in_shard),
                        int(info.numel_in_shard)))
        else:
            out.append((i, tuple(flat._shapes[i]), 0, 0, 0))
    return out


def _world():
    import torch.distributed as dist
    return dist.get_world_size(), dist.get_rank()


class Shards:
    def __init__(self):
        self.placements = {}  # parameter name -> ParamShard record (this run's sharded parameters)
        self._views = {}      # id(FlatParameter) -> (its data_ptr, [(name, view)]): use_orig_params=False
        self._fsdp1 = None    # {id(parameter): (FlatParameter, index)} of use_orig_params=True parameters
        # FlatParameters recorded whole: this torch's FSDP1 keeps no per-parameter shard metadata
        # (_shard_param_infos, torch >= 2.1); the session says so in a notice
        self.unsplit = []

    def any_sharded(self, params, roots):
        """Whether `params` (an optimizer's list) holds a DTensor, a FlatParameter
        or a parameter FSDP1 shards in place (use_orig_params=True, held by a
        FlatParameter of `roots`' modules); else the caller records them as they are."""
        dt, flat = dtensor_class(), _flat_param_class()
        if dt is None and flat is None:
            return False
        if any((dt is not None and isinstance(p, dt)) or (flat is not None and isinstance(p, flat)) for p in params):
            return True
        orig = self._fsdp1_params(roots)
        return bool(orig) and any(id(p) in orig for p in params)

    def _fsdp1_params(self, roots):
        """{id(parameter): (FlatParameter, index)} of use_orig_params=True parameters, found once."""
        if self._fsdp1 is None:
            self._fsdp1 = {}
            flat_cls = _flat_param_class()
            for root in roots if flat_cls is not None else ():
                for m in root.modules():
                    fp = getattr(getattr(m, "_handle", None), "flat_param", None)
                    if isinstance(fp, flat_cls) and getattr(fp, "_params", None) is not None \
                            and hasattr(fp, "_shard_param_infos"):
                        for i, orig in enumerate(fp._params):
                            self._fsdp1[id(orig)] = (fp, i)
        return self._fsdp1

    def locals(self, names, params, roots, fsdp2):
        """[(name, local weight, local grad or None)] for `params` with names
        `names`: a DTensor's local tensor and its gradient's; a FlatParameter
        split into views of its original parameters (their names from
        `roots`' modules); a parameter FSDP1 exposes as a view of its part
        (use_orig_params=True) as it is, with its placement. `fsdp2`: whether
        a root holds an FSDP2 module (the DTensors' source). A plain
        parameter whose storage FSDP freed is left out."""
        dt, flat_cls = dtensor_class(), _flat_param_class()
        out = []
        for name, p in zip(names, params):
            if dt is not None and isinstance(p, dt):
                if name not in self.placements:
                    self.placements[name] = dtensor_placement(name, p, "fully_shard" if fsdp2 else "DTensor")
                g = p.grad
                out.append((name, p._local_tensor, g._local_tensor if isinstance(g, dt) else g))
            elif flat_cls is not None and isinstance(p, flat_cls) and getattr(p, "_params", None) is None:
                out.extend(self._flat_views(name, p))
            elif not is_freed(p):  # (an unsharded parameter FSDP freed is not recorded)
                self._note_fsdp1_orig(name, p, roots)
                out.append((name, p, p.grad))
        return out

    def _flat_views(self, name, flat):
        """use_orig_params=False: one view per original parameter of this rank's
        part of `flat` (weight and gradient), named by the original's path."""
        prefix = name[:-len("_flat_param")] if name.endswith("_flat_param") else ""
        if not all(hasattr(flat, a) for a in ("_shard_param_infos", "_fqns", "_shapes")):
            if name not in self.unsplit:
                self.unsplit.append(name)
            return [(name, flat, flat.grad)]
        key = id(flat)
        cached = self._views.get(key)
        if cached is None or cached[0] != flat.data_ptr():
            world, rank = _world()
            views = []
            for i, shape, start, offset, numel in _shard_infos(flat):
                pname = prefix + user_path(flat._fqns[i])
                views.append((pname, offset, numel))
                if pname not in self.placements:
                    self.placements[pname] = _flat_placement(pname, shape, start, numel, world, rank)
            cached = self._views[key] = (flat.data_ptr(), [(n, flat.detach()[o:o + k], o, k) for n, o, k in views])
        g = flat.grad
        return [(n, v, g[o:o + k] if g is not None and g.numel() >= o + k else None) for n, v, o, k in cached[1]]

    def _note_fsdp1_orig(self, name, p, roots):
        """use_orig_params=True: `p` is a 1-D view of its part; its placement
        comes from the FlatParameter holding it."""
        if name in self.placements:
            return
        entry = self._fsdp1_params(roots).get(id(p))
        if entry is None:
            return
        fp, i = entry
        info = fp._shard_param_infos[i]
        world, rank = _world()
        start = int(info.intra_param_start_idx) if info.in_shard else 0
        numel = int(info.numel_in_shard) if info.in_shard else 0
        self.placements[name] = _flat_placement(name, fp._shapes[i], start, numel, world, rank)

    def records(self):
        return list(self.placements.values())
