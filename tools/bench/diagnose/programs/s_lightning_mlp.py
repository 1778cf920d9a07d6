"""An MLP LightningModule trained by lightning.Trainer on the CPU.

Mirrors the Lightning quickstart: training_step returns the loss,
configure_optimizers returns Adam, and Trainer(max_steps=N) drives the
loop (backward and optimizer.step inside Lightning's closure), with the
logger, checkpointing and progress bar switched off.
"""
import argparse

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        print(f"step {self.global_step} loss {loss.item():.4f}", flush=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    x = torch.randn(1024, 20)
    y = (x @ torch.randn(20, 3)).argmax(dim=1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)
    trainer = L.Trainer(accelerator="cpu", devices=1, max_steps=args.steps, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(MLP(), loader)


if __name__ == "__main__":
    main()
