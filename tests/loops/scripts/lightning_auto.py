"""Lightning's Trainer with automatic optimization: training_step and the
backward run inside the closure Lightning passes to optimizer.step(closure)."""
import lightning as L
import torch
import torch.nn.functional as F

import loop_util


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                            torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten())
        self.head = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.head(self.features(x))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.last_loss = loss.detach()
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)


class Printer(L.Callback):
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        loop_util.report(trainer.global_step - 1, module.last_loss, module)


def main():
    args = loop_util.parse()
    loop_util.announce("lightning", L.__version__)
    L.seed_everything(args.seed, verbose=False)
    x, y = loop_util.pictures(64, 8, 4, args.seed)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8, shuffle=True)
    model = Classifier()
    trainer = L.Trainer(max_steps=args.steps, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, callbacks=[Printer()],
                        gradient_clip_val=0.5)
    trainer.fit(model, loader)


if __name__ == "__main__":
    main()
