"""Attention written in the ways a project writes it, next to softmaxes that are
not attention, for the attention capture's tests. Random data, batch 6, T 5,
width 8, Adam.

  causal3d  F.softmax(scores, dim=2) over [B, T, T]         -> captured, 1 head
  heads     nn.Softmax(dim=-1) module over [B, H, T, T]    -> captured for `heads`
  flat      Tensor.softmax(-1) over [B*H, T, T]            -> not taken, notice
  fmha      F.multi_head_attention_forward called directly -> library attention
  scripted  torch.jit.script'ed module with F.softmax, torch.softmax and an
            nn.MultiheadAttention (runs in TorchScript: nothing of it is seen)
  the head  torch.softmax over classes [B, C] and over dim 1 of [B, T, C]: not attention;
            the head Linear is called with a keyword argument only (input=x)
After each step an evaluation forward under no_grad: not captured.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import dump, parse, report

B, T, D, H, C = 6, 5, 8, 2, 3


class Causal3d(nn.Module):
    def forward(self, x):
        scores = x @ x.transpose(1, 2) / math.sqrt(x.shape[-1])
        scores = scores.masked_fill(~torch.ones(x.shape[1], x.shape[1], dtype=torch.bool).tril(), float("-inf"))
        return F.softmax(scores, dim=2) @ x


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.qk = nn.Linear(D, 2 * D)
        self.sm = nn.Softmax(dim=-1)

    def forward(self, x):
        q, k = self.qk(x).view(x.shape[0], x.shape[1], 2, H, D // H).permute(2, 0, 3, 1, 4)
        att = self.sm(q @ k.transpose(-2, -1))
        return (att @ k).transpose(1, 2).reshape(x.shape)


class Flat(nn.Module):
    def forward(self, x):
        z = x.view(x.shape[0], x.shape[1], H, D // H).transpose(1, 2).reshape(x.shape[0] * H, x.shape[1], D // H)
        att = (z @ z.transpose(1, 2)).softmax(-1)
        return (att @ z).view(x.shape[0], H, x.shape[1], D // H).transpose(1, 2).reshape(x.shape)


class FunctionalMha(nn.Module):
    def __init__(self):
        super().__init__()
        self.in_proj = nn.Parameter(torch.randn(3 * D, D) * 0.2)
        self.out = nn.Linear(D, D)

    def forward(self, x):
        s = x.transpose(0, 1)
        y, _ = F.multi_head_attention_forward(s, s, s, D, H, self.in_proj, None, None, None, False, 0.0,
                                              self.out.weight, self.out.bias, need_weights=False)
        return y.transpose(0, 1)


class Scripted(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(D, H, batch_first=True)

    def forward(self, x):
        a = F.softmax(x @ x.transpose(1, 2), dim=-1) + torch.softmax(x @ x.transpose(1, 2), -1)
        y, _ = self.mha(a @ x, x, x, need_weights=False)
        return y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.causal3d = Causal3d()
        self.heads = Heads()
        self.flat = Flat()
        self.fmha = FunctionalMha()
        self.scripted = torch.jit.script(Scripted())
        self.head = nn.Linear(D, C)

    def forward(self, x):
        x = x + self.causal3d(x)
        x = x + self.heads(x)
        x = x + self.flat(x)
        x = x + self.fmha(x)
        x = x + self.scripted(x)
        logits = self.head(input=x)  # [B, T, C]; keyword only: the module's input comes from kwargs
        spread = torch.softmax(logits, 1)  # over tokens, not the last dim
        return logits.mean(1) + 0.1 * spread.sum(1)


def main():
    args = parse()
    torch.manual_seed(args.seed)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    dump(args, model, "w_init")
    for step in range(args.steps):
        x = torch.randn(B, T, D)
        y = torch.randint(0, C, (B,))
        logits = model(x)
        probs = torch.softmax(logits, dim=-1)  # [B, C]: classes, outside any module
        loss = F.nll_loss(torch.log(probs), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        report(args, model, step, loss)
        with torch.no_grad():  # an evaluation pass (tvis: the next step's first forward): not captured
            model(torch.randn(B, T, D))


if __name__ == "__main__":
    main()
