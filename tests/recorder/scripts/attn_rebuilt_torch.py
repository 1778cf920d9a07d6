"""torch's own attention, every way a model reaches it, for the rebuilt-attention
tests. Each branch reads the same embedded tokens (so one branch's dropout
never changes another's input); their outputs are summed and classified.
Batch 4, T 6 (the last two tokens of odd rows are padding), width 16, 4 heads.

  mha_bf    nn.MultiheadAttention, batch_first, need_weights=False,
            key_padding_mask, dropout 0.1 inside the kernel      -> rebuilt
  mha_sf    nn.MultiheadAttention, sequence first, need_weights=False,
            a float causal attn_mask                             -> rebuilt
  mha_w     nn.MultiheadAttention, need_weights=True,
            average_attn_weights=False                           -> torch's softmax, captured
  enc       nn.TransformerEncoder of two nn.TransformerEncoderLayer
            (batch_first, norm_first)                            -> rebuilt, per layer
  causal    F.scaled_dot_product_attention(is_causal=True)       -> rebuilt
  gqa       F.scaled_dot_product_attention, 4 query heads over 2
            key/value heads (enable_gqa), a bool padding mask, a scale -> rebuilt
The two F.scaled_dot_product_attention branches exist where torch has it
(2.x); torch 1.13's nn.MultiheadAttention computes its softmax itself (captured).

``reference(model, tokens)`` is the eager computation of the same weights,
independent of tvis: each nn.MultiheadAttention called again on its inputs
with need_weights=True, average_attn_weights=False (dropout off), and a
hand-written softmax for the SDPA branches. Batches come from a generator of
their own (``batch(step)``), so the test rebuilds them.
"""
import copy
import functools
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import dump, parse, report

B, T, D, H, V, C = 4, 6, 16, 4, 20, 3
SDPA = hasattr(F, "scaled_dot_product_attention")


def padding(b=B, t=T):
    """True where a token is padding: the last two tokens of odd rows."""
    pad = torch.zeros(b, t, dtype=torch.bool)
    pad[1::2, -2:] = True
    return pad


class SdpaCausal(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)

    def heads(self, x):
        q, k, v = self.qkv(x).view(x.shape[0], x.shape[1], 3, H, D // H).permute(2, 0, 3, 1, 4)
        return q, k, v

    def forward(self, x):
        q, k, v = self.heads(x)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(x.shape)

    def probs(self, x):
        q, k, _ = self.heads(x)
        s = q @ k.transpose(-1, -2) / math.sqrt(D // H)
        s = s.masked_fill(~torch.ones(x.shape[1], x.shape[1], dtype=torch.bool).tril(), float("-inf"))
        return torch.softmax(s, -1)


class SdpaGqa(nn.Module):
    KV = 2

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(D, D)
        self.kv = nn.Linear(D, 2 * self.KV * (D // H))

    def heads(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, H, D // H).transpose(1, 2)
        k, v = self.kv(x).view(b, t, 2, self.KV, D // H).permute(2, 0, 3, 1, 4)
        keep = ~padding(b, t)[:, None, None, :]  # [B, 1, 1, S]: True takes part
        return q, k, v, keep

    def forward(self, x):
        q, k, v, keep = self.heads(x)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=0.3, enable_gqa=True)
        return out.transpose(1, 2).reshape(x.shape)

    def probs(self, x):
        q, k, _, keep = self.heads(x)
        k = k.repeat_interleave(H // self.KV, dim=1)
        s = (q @ k.transpose(-1, -2) * 0.3).masked_fill(~keep, float("-inf"))
        return torch.softmax(s, -1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, D)
        self.mha_bf = nn.MultiheadAttention(D, H, dropout=0.1, batch_first=True)
        self.mha_sf = nn.MultiheadAttention(D, H)
        self.mha_w = nn.MultiheadAttention(D, H, batch_first=True)
        layer = nn.TransformerEncoderLayer(D, H, dim_feedforward=32, dropout=0.0, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        if SDPA:
            self.causal = SdpaCausal()
            self.gqa = SdpaGqa()
        self.head = nn.Linear(D, C)

    def forward(self, tokens):
        x = self.embed(tokens)
        pad = padding(*tokens.shape)
        causal = torch.full((T, T), float("-inf")).triu(1)
        s = x.transpose(0, 1)
        y = self.mha_bf(x, x, x, key_padding_mask=pad, need_weights=False)[0]
        y = y + self.mha_sf(s, s, s, attn_mask=causal, need_weights=False)[0].transpose(0, 1)
        y = y + self.mha_w(x, x, x, need_weights=True, average_attn_weights=False)[0]
        y = y + self.enc(x, src_key_padding_mask=pad)
        if SDPA:
            y = y + self.causal(x) + self.gqa(x)
        return self.head(y.mean(1))


def batch(step):
    g = torch.Generator().manual_seed(1000 + step)
    return torch.randint(0, V, (B, T), generator=g), torch.randint(0, C, (B,), generator=g)


def reference(model, tokens):
    """{module path: [B, H, T, S] eager weights} of one forward on ``tokens``
    (a copy of ``model``, dropout off; the model itself is untouched)."""
    ref = copy.deepcopy(model)
    for m in ref.modules():
        if isinstance(m, nn.MultiheadAttention):
            m.dropout = 0.0
    names = {m: n for n, m in ref.named_modules()}
    calls = []

    def seen(m, forward, *args, **kwargs):  # each attention module's call, keywords too (any torch)
        calls.append((m, args, dict(kwargs)))
        return forward(*args, **kwargs)

    for m in ref.modules():
        if isinstance(m, (nn.MultiheadAttention, SdpaCausal, SdpaGqa)):
            m.forward = functools.partial(seen, m, m.forward)
    with torch.no_grad():
        ref(tokens)
        out = {}
        for m, args, kwargs in calls:
            if isinstance(m, nn.MultiheadAttention):
                kwargs.update(need_weights=True, average_attn_weights=False)
                kwargs.pop("is_causal", None)
                w = m.forward.args[1](*args, **kwargs)[1]
            else:
                w = m.probs(*args)
            out[names[m]] = w
    return out


def main():
    args = parse()
    torch.manual_seed(args.seed)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    dump(args, model, "w_init")
    for step in range(args.steps):
        tokens, y = batch(step)
        loss = F.cross_entropy(model(tokens), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
