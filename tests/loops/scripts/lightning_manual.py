"""A LightningModule with manual optimization: training_step calls
manual_backward and steps its optimizer itself."""
import lightning as L
import torch
import torch.nn.functional as F

import loop_util


class Manual(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 8 * 8, 16), torch.nn.Tanh(),
                                       torch.nn.Linear(16, 4))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        loop_util.report(batch_idx, loss, self)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-2)


def main():
    args = loop_util.parse()
    loop_util.announce("lightning", L.__version__)
    L.seed_everything(args.seed, verbose=False)
    x, y = loop_util.pictures(64, 8, 4, args.seed)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8, shuffle=True)
    trainer = L.Trainer(max_steps=args.steps, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Manual(), loader)


if __name__ == "__main__":
    main()
