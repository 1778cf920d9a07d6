"""nanoGPT's training loop in miniature: a GPT trained on a random token
stream sliced by get_batch (no DataLoader), the loss computed inside the
model's forward (cross entropy over [B*T, V]), estimate_loss() under
@torch.no_grad() (eval_iters forwards on each split) before iteration 0 and
every eval_interval iterations, AdamW with weight-decay groups, gradient
clipping. After each step it prints the step line (fidelity_util.report).

With --dump DIR: x_step<k>.pt holds iteration k's training batch (the rows
the followed samples must come from) and model.json the parameter count.
"""
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import dump, parse, report

VOCAB, BLOCK, EMBD, HEADS, LAYERS = 65, 32, 128, 4, 4
BATCH, EVAL_ITERS, EVAL_INTERVAL = 8, 20, 2


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(EMBD, 3 * EMBD)
        self.c_proj = nn.Linear(EMBD, EMBD)
        self.register_buffer("bias", torch.tril(torch.ones(BLOCK, BLOCK)).view(1, 1, BLOCK, BLOCK))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(EMBD, dim=2)
        q, k, v = (z.view(b, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        return self.c_proj((att @ v).transpose(1, 2).contiguous().view(b, t, c))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(EMBD)
        self.attn = SelfAttention()
        self.ln_2 = nn.LayerNorm(EMBD)
        self.mlp = nn.Sequential(nn.Linear(EMBD, 4 * EMBD), nn.GELU(), nn.Linear(4 * EMBD, EMBD))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, EMBD)
        self.wpe = nn.Embedding(BLOCK, EMBD)
        self.h = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(EMBD)
        self.lm_head = nn.Linear(EMBD, VOCAB, bias=False)

    def forward(self, idx, targets=None):
        b, t = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(t))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss


def main():
    args = parse()
    torch.manual_seed(args.seed)
    data = {"train": torch.randint(0, VOCAB, (4000,)), "val": torch.randint(0, VOCAB, (1000,))}

    def get_batch(split):
        d = data[split]
        ix = torch.randint(len(d) - BLOCK, (BATCH,))
        x = torch.stack([d[i:i + BLOCK] for i in ix])
        y = torch.stack([d[i + 1:i + 1 + BLOCK] for i in ix])
        return x, y

    model = GPT()
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=1e-3, betas=(0.9, 0.95))

    @torch.no_grad()
    def estimate_loss():
        out = {}
        model.eval()
        for split in ("train", "val"):
            losses = torch.zeros(EVAL_ITERS)
            for k in range(EVAL_ITERS):
                x, y = get_batch(split)
                _, loss = model(x, y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        model.train()
        return out

    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        with open(os.path.join(args.dump, "model.json"), "w") as f:
            json.dump({"parameters": sum(p.numel() for p in model.parameters())}, f)
    dump(args, model, "w_init")
    for it in range(args.steps):
        if it % EVAL_INTERVAL == 0:
            losses = estimate_loss()
            print("eval %d train %.4f val %.4f" % (it, losses["train"], losses["val"]), flush=True)
        x, y = get_batch("train")
        if args.dump:
            torch.save(x, os.path.join(args.dump, "x_step%d.pt" % it))
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        dump(args, model, "w_step%d" % it)
        report(args, model, it, loss)


if __name__ == "__main__":
    main()
