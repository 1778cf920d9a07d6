"""DDP on CPU with gloo: an MLP wrapped in DistributedDataParallel, each rank
on its own random batches (seeded by rank), SGD. Prints, per rank, `step k
loss L weights D`. Started by torchrun (RANK, WORLD_SIZE, MASTER_ADDR/PORT)
or by srun (SLURM_PROCID, SLURM_NTASKS; MASTER_ADDR/PORT given), as users'
scripts do. --fail-rank R --fail-step S: rank R raises as step S begins.
--accumulate K: K micro-batches per step, the first K-1 under no_sync() (no
all-reduce). With --dump DIR each rank also saves, per step, the local
gradient of its last micro-batch, computed on a plain copy of the model
(local_grad_rank<r>_step<k>.pt): what DDP all-reduces in that backward."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from fidelity_util import parse, report


def main():
    args = parse(lambda p: (p.add_argument("--fail-rank", type=int, default=-1),
                            p.add_argument("--fail-step", type=int, default=-1),
                            p.add_argument("--accumulate", type=int, default=1)))
    if "RANK" not in os.environ and "SLURM_PROCID" in os.environ:
        os.environ["RANK"], os.environ["WORLD_SIZE"] = os.environ["SLURM_PROCID"], os.environ["SLURM_NTASKS"]
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(args.seed)  # the same initial weights on every rank
    model = DDP(nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = torch.Generator().manual_seed(1000 + rank)
    for step in range(args.steps):
        if rank == args.fail_rank and step == args.fail_step:
            raise RuntimeError("rank %d fails at step %d" % (rank, step))
        batches = [(torch.randn(16, 20, generator=data), torch.randint(0, 5, (16,), generator=data))
                   for _ in range(args.accumulate)]
        if args.dump:
            dump_local_grad(args, model.module, batches[-1], rank, step)
        opt.zero_grad()
        for x, y in batches[:-1]:
            with model.no_sync():
                F.cross_entropy(model(x), y).backward()
        x, y = batches[-1]
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        report(args, model, step, loss)
    dist.barrier()  # both ranks done before the group goes away (gloo can abort a rank torn down mid-exchange)
    dist.destroy_process_group()


def dump_local_grad(args, module, batch, rank, step):
    """This rank's gradient of `batch`'s loss before any all-reduce, computed
    functionally on detached copies of the weights (no module call, no
    backward(), no loss function: nothing the recorder would take for the
    script's own training)."""
    names = [n for n, _ in module.named_parameters()]
    w0, b0, w2, b2 = [p.detach().clone().requires_grad_(True) for _, p in module.named_parameters()]
    out = F.linear(F.relu(F.linear(batch[0], w0, b0)), w2, b2)
    loss = -out.log_softmax(1).gather(1, batch[1][:, None]).mean()
    grads = torch.autograd.grad(loss, [w0, b0, w2, b2])
    os.makedirs(args.dump, exist_ok=True)
    # keyed by the model's own paths, as tvis names them (DDP's `module.` wrapper adds no segment)
    torch.save({n: g for n, g in zip(names, grads)},
               os.path.join(args.dump, "local_grad_rank%d_step%d.pt" % (rank, step)))

if __name__ == "__main__":
    main()
