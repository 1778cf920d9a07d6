"""Long sequences through fused attention, for the bounds of rebuilt
attention: one token sequence of 4,096 (batch 1) through an
nn.MultiheadAttention (need_weights=False, 2 heads, width 16) and, where
torch has it, F.scaled_dot_product_attention with grouped queries (4 over 1
key/value head: multi-query) and is_causal. SGD, random tokens."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import parse, report

T, D, V = 4096, 16, 50
SDPA = hasattr(F, "scaled_dot_product_attention")


class Mqa(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.kv = nn.Linear(D, D), nn.Linear(D, 2 * (D // 4))

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, 4, D // 4).transpose(1, 2)
        k, v = self.kv(x).view(b, t, 2, 1, D // 4).permute(2, 0, 3, 1, 4)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True).transpose(1, 2).reshape(x.shape)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, D)
        self.mha = nn.MultiheadAttention(D, 2, batch_first=True)
        self.mqa = Mqa() if SDPA else None
        self.head = nn.Linear(D, 2)

    def forward(self, tokens):
        x = self.embed(tokens)
        y = self.mha(x, x, x, need_weights=False)[0]
        if self.mqa is not None:
            y = y + self.mqa(x)
        return self.head(y.mean(1))


def main():
    args = parse()
    torch.manual_seed(args.seed)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(args.steps):
        tokens = torch.randint(0, V, (1, T))
        loss = F.cross_entropy(model(tokens), torch.tensor([step % 2]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
