"""A tiny language model: embedding -> linear over a vocabulary of 12,
batches of 3 sequences of 8 tokens, padding token 0 ignored
(F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=0)).
Saves (argv[1]) the per-token losses as the recorder computes them
(-log_softmax in double, gathered, as float32; None for padding), every
row's reference values (reference.py) and the loss values."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import reference as ref

V, B, T, PAD = 12, 3, 8, 0
itos = ["<pad>"] + list("etaoin shrd")  # the vocabulary (id -> text): the Loss page shows tokens by it


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 16)
        self.head = nn.Linear(16, V)

    def forward(self, tokens):
        return self.head(self.emb(tokens))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else ""
    torch.manual_seed(1)
    data = torch.randint(1, V, (4, B, T + 1))
    data[:, 0, 6:] = PAD  # sequence 0 ends early: padded
    data[:, 2, 3:] = PAD
    model = LM()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    saved = {"losses": [], "tokens": {}, "samples": {}}
    for step in range(4):
        inp, tgt = data[step, :, :-1], data[step, :, 1:]
        opt.zero_grad()
        logits = model(inp)
        loss = F.cross_entropy(logits.view(-1, V), tgt.reshape(-1), ignore_index=PAD)
        loss.backward()
        opt.step()
        with torch.no_grad():
            flat = logits.detach().view(-1, V).double()
            t = tgt.reshape(-1)
            valid = t != PAD
            safe = torch.where(valid, t, torch.zeros_like(t))
            nlp = -torch.log_softmax(flat, dim=1).gather(1, safe.unsqueeze(1)).squeeze(1)
            nlp = torch.where(valid, nlp, torch.zeros_like(nlp)).reshape(B, T).float().double().tolist()
        saved["tokens"][step] = [[None if tgt[b, i].item() == PAD else nlp[b][i] for i in range(T)] for b in range(B)]
        saved.setdefault("token_labels", {})[step] = [[None if tgt[b, i].item() == PAD else itos[tgt[b, i].item()]
                                                       for i in range(T)] for b in range(B)]
        saved["samples"][step] = ref.per_sample(logits.detach().view(-1, V), tgt.reshape(-1), step, ignore_index=PAD)
        saved["losses"].append(float(loss.detach().reshape(-1)[0].item()))
        saved["steps"] = step + 1
        ref.save(out, saved)
        print("step %d loss %r" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
