"""A language model whose head's logits [B, T, V] are larger than a TensorData
chunk (9.4 MB), cross entropy over logits.reshape(-1, V), SGD. With
`--dump FILE` it saves step 0's logits (torch.save) for the test to compare
the recorded values against. Prints `step k loss L`."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

V, T, D, B = 8192, 72, 32, 4


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.mix = nn.Linear(D, D)
        self.head = nn.Linear(D, V)

    def forward(self, idx):
        return self.head(torch.tanh(self.mix(self.emb(idx))))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--dump", default="")
    args = p.parse_args()
    torch.manual_seed(0)
    model = LM()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(args.steps):
        x = torch.randint(0, V, (B, T + 1))
        logits = model(x[:, :-1])
        if step == 0 and args.dump:
            torch.save(logits.detach().clone(), args.dump)
        loss = F.cross_entropy(logits.reshape(-1, V), x[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.9g" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
