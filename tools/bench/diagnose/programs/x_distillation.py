"""Knowledge distillation: a frozen teacher MLP, a smaller student, SGD momentum.

Held-out healthy program. Mirrors Hinton et al.'s distillation as in the
PyTorch "Knowledge Distillation Tutorial": the teacher (frozen with
requires_grad_(False) and eval()) gives logits under no_grad; the student's
loss is T^2 * KL(softmax(t/T) || log_softmax(s/T)) * alpha + CE * (1 - alpha),
T = 4, alpha = 0.7; SGD lr 0.05 momentum 0.9. Standing in for loading the
teacher's checkpoint, its last layer is fitted by least squares on its
random hidden features (no optimizer touches the teacher).
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()
torch.manual_seed(0)
T, ALPHA = 4.0, 0.7

w_true = torch.randn(32, 10)
def batch(size=64):
    x = torch.randn(size, 32)
    return x, (x @ w_true + 0.5 * torch.randn(size, 10)).argmax(1)


teacher = nn.Sequential(nn.Linear(32, 256), nn.ReLU(), nn.Dropout(0.1), nn.Linear(256, 256), nn.ReLU(),
                        nn.Linear(256, 10))
student = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10))

teacher.requires_grad_(False)
teacher.eval()
# The "trained" teacher (in a real project: load_state_dict of its checkpoint).
with torch.no_grad():
    x, y = batch(4096)
    feats = teacher[:5](x)
    target = 6.0 * (F.one_hot(y, 10).float() - 0.1)
    sol = torch.linalg.lstsq(torch.cat([feats, torch.ones(4096, 1)], 1), target).solution
    teacher[5].weight.copy_(sol[:-1].T)
    teacher[5].bias.copy_(sol[-1])

optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
student.train()
for step in range(args.steps):
    x, y = batch()
    with torch.no_grad():
        t_logits = teacher(x)
    s_logits = student(x)
    kd = F.kl_div(F.log_softmax(s_logits / T, dim=1), F.softmax(t_logits / T, dim=1), reduction="batchmean")
    loss = ALPHA * T * T * kd + (1 - ALPHA) * F.cross_entropy(s_logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f} kd {kd.item():.4f}")
