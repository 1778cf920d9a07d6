"""The Hugging Face Trainer under torchrun (2 ranks, gloo on the CPU) with
ddp_find_unused_parameters=True, a module the forward never calls, and an
auxiliary head whose output the model returns but the loss never uses: its
gradient is undefined, so autograd hands its parameters' hooks None through
DDP's output wrapper, and the recorder's all-reduce probe must take that in
its stride. A tiny BERT built
from a config (no download) on random token ids. Prints `step k loss L` per
rank from a callback."""
import argparse
import os

import torch
from torch import nn
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainerCallback, TrainingArguments


class WithUnused(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=32, num_labels=3)
        self.bert = BertForSequenceClassification(cfg)
        self.unused = nn.Linear(32, 32)  # never called: no gradient, ever
        self.aux = nn.Linear(32, 4)      # called, returned, not in the loss: an undefined gradient

    def forward(self, input_ids, labels):
        out = self.bert(input_ids=input_ids, labels=labels, output_hidden_states=True)
        return {"loss": out.loss, "logits": out.logits, "aux": self.aux(out.hidden_states[-1][:, 0])}


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, 100, (n, 16), generator=g)
        self.labels = torch.randint(0, 3, (n,), generator=g)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.labels[i]}


class PrintLoss(TrainerCallback):
    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            print("step %d loss %.6f" % (state.global_step - 1, logs["loss"]), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args()
    torch.manual_seed(0)
    # The Trainer's output folder in the current one (the test's own temporary
    # folder): tvis may end the script after its steps, before any cleanup.
    targs = TrainingArguments(output_dir="trainer_out", per_device_train_batch_size=4, max_steps=args.steps, learning_rate=1e-3,
                              logging_steps=1, save_strategy="no", report_to=[], use_cpu=True, ddp_backend="gloo",
                              ddp_find_unused_parameters=True, dataloader_num_workers=0, seed=0,
                              disable_tqdm=True)
    Trainer(model=WithUnused(), args=targs, train_dataset=Tokens(64), callbacks=[PrintLoss()]).train()


if __name__ == "__main__":
    main()
