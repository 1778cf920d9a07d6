"""Sharded training on CPU with gloo, 2 ranks, as users write it today.
--mode picks the sharding:
  fsdp2        two `fully_shard` blocks and the root, AdamW
  fsdp2_ckpt   the same with each block under `checkpoint_wrapper` (recomputed in backward)
  fsdp1_orig   FullyShardedDataParallel(use_orig_params=True), each block wrapped
  fsdp1_flat   FullyShardedDataParallel(use_orig_params=False), each block wrapped
  tp           an MLP with ColwiseParallel / RowwiseParallel on a 2-rank mesh
  ddp          the fsdp2 model under DistributedDataParallel (the unsharded twin)
Each rank prints, after every optimizer step, `step k loss L weights D` with D
the sha256 of its own parameters (its local shards where they are sharded).
With --dump DIR, rank 0 saves the full parameters after each step
(w_step<k>.pt, assembled by the script's own collectives after the step's
line is printed, as a script saving a checkpoint would). --width/--hidden
size the model (tools/bench/recorder/sharded_ranks.py); --time also prints
`time k S`, the step's wall seconds (forward to optimizer step)."""
import hashlib
import os
import re
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from loop_util import parse


class Block(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x):
        return x + self.down(F.relu(self.up(x)))


class Net(nn.Module):
    def __init__(self, width=16, hidden=32, classes=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, hidden), Block(width, hidden)])
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)


class Mlp(nn.Module):
    def __init__(self, width=16, hidden=32):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x):
        return self.down(F.relu(self.up(x)))


def local(p):
    p = p.detach()
    return p.to_local() if hasattr(p, "to_local") else p


def digest(model):
    h = hashlib.sha256()
    for name, p in model.named_parameters():
        h.update(name.encode())
        h.update(local(p).contiguous().numpy().tobytes())
    return h.hexdigest()[:32]


def build(mode, width, hidden):
    if mode == "tp":
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
        mesh = init_device_mesh("cpu", (dist.get_world_size(),))
        return parallelize_module(Mlp(width, hidden), mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
    model = Net(width, hidden)
    if mode in ("fsdp2", "fsdp2_ckpt"):
        from torch.distributed.fsdp import fully_shard
        if mode == "fsdp2_ckpt":
            from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
            model.blocks = nn.ModuleList([checkpoint_wrapper(b) for b in model.blocks])
        for b in model.blocks:
            fully_shard(b)
        return fully_shard(model)
    if mode in ("fsdp1_orig", "fsdp1_flat"):
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        from torch.distributed.fsdp.wrap import ModuleWrapPolicy
        return FSDP(model, use_orig_params=mode == "fsdp1_orig", auto_wrap_policy=ModuleWrapPolicy({Block}),
                    device_id=torch.device("cpu"))
    if mode == "ddp":
        from torch.nn.parallel import DistributedDataParallel as DDP
        return DDP(model)
    raise SystemExit("unknown --mode %s" % mode)


def full_parameters(model, mode):
    """{name: full tensor} of the model's parameters: collectives of the script's own."""
    if mode in ("fsdp1_orig", "fsdp1_flat"):
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        with FSDP.summon_full_params(model):
            return {user_name(n): p.detach().clone() for n, p in model.named_parameters()}
    return {user_name(n): p.detach().full_tensor() if hasattr(p, "full_tensor") else p.detach().clone()
            for n, p in model.named_parameters()}


def user_name(name):
    """A parameter's path in the user's model: without the wrappers' segments."""
    return re.sub(r"^module\.|_fsdp_wrapped_module\.|_checkpoint_wrapped_module\.", "", name)


def main():
    args = parse(lambda p: (p.add_argument("--mode", default="fsdp2"), p.add_argument("--dump", default=""),
                            p.add_argument("--width", type=int, default=16),
                            p.add_argument("--hidden", type=int, default=32),
                            p.add_argument("--time", action="store_true")))
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(args.seed)  # the same initial weights on every rank
    model = build(args.mode, args.width, args.hidden)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    # data parallel: each rank its own batches; tensor parallel: every rank the same batch
    data = torch.Generator().manual_seed(1000 + (0 if args.mode == "tp" else rank))
    for step in range(args.steps):
        x = torch.randn(8, args.width, generator=data)
        y = torch.randint(0, 4, (8,), generator=data)
        t0 = time.perf_counter()
        opt.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out[:, :4], y)
        loss.backward()
        opt.step()
        if args.time:
            print("time %d %.6f" % (step, time.perf_counter() - t0), flush=True)
        print("step %d loss %r weights %s" % (step, loss.item(), digest(model)), flush=True)
        if args.dump:
            full = full_parameters(model, args.mode)
            if rank == 0:
                os.makedirs(args.dump, exist_ok=True)
                torch.save(full, os.path.join(args.dump, "w_step%d.pt" % step))
    dist.barrier()  # both ranks done before the group goes away
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
