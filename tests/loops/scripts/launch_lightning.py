"""Lightning's own launcher on 2 CPU ranks: `python launch_lightning.py
STRATEGY STEPS` (ddp, or single: one process; Lightning refuses strategy="fsdp" without a GPU).
Rank 0 runs here and Lightning starts rank 1
by running this script again. training_step calls the submodule `net`
directly (the LightningModule itself is called only by the DDP wrapper)."""
import sys

import lightning as L
import torch
import torch.nn.functional as F

import launch_report


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = launch_report.net()

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.last_loss = loss.detach()
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)


class Printer(L.Callback):
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        launch_report.report(trainer.global_rank, trainer.global_step - 1, module.last_loss, module)


def main():
    strategy, steps = sys.argv[1], int(sys.argv[2])
    L.seed_everything(0, verbose=False)
    x, y = launch_report.data(0)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    devices = 1 if strategy == "single" else 2  # "single": one process, no launcher
    strategy = "auto" if strategy == "single" else strategy
    trainer = L.Trainer(max_steps=steps, accelerator="cpu", devices=devices, strategy=strategy, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        callbacks=[Printer()])
    trainer.fit(Net(), loader)


if __name__ == "__main__":
    main()
