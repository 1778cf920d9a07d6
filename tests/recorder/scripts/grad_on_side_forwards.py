"""Forwards with gradients on that are not the training forward: each
iteration (no DataLoader) first runs a probe forward on a fixed batch and
logs its mean (a graph is built, no backward runs through it), then a frozen
teacher on the training batch (nothing in it requires grad: no graph), then
the student's training forward; the loss is cross-entropy plus a KL term
towards the teacher's (detached) soft targets. Prints
    step <k> loss <repr> weights <digest> probe <repr>
With --dump DIR: x_step<k>.pt holds each step's training batch.
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import digest, parse


def net():
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))


class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = net()

    def forward(self, x):
        return self.body(x)


def main():
    args = parse()
    torch.manual_seed(args.seed)
    student = net()
    teacher = Teacher()
    for p in teacher.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    probe_batch = torch.randn(5, 6)
    for step in range(args.steps):
        x, y = torch.randn(8, 6), torch.randint(0, 4, (8,))
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            torch.save(x, os.path.join(args.dump, "x_step%d.pt" % step))
        probe = student(probe_batch).mean().item()  # logging only
        soft = F.softmax(teacher(x), dim=1)
        out = student(x)
        loss = F.cross_entropy(out, y) + F.kl_div(F.log_softmax(out, dim=1), soft, reduction="batchmean")
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %r weights %s probe %r" % (step, loss.item(), digest(student), probe), flush=True)


if __name__ == "__main__":
    main()
