"""The Hugging Face Trainer on a BERT-shaped sequence classifier (tiny
config, built from the config): keyword inputs (input_ids=, attention_mask=,
labels=) with padding, the loss inside the model's forward, sdpa attention."""
import torch
import transformers
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainerCallback, TrainingArguments

import loop_util


class Sentences(torch.utils.data.Dataset):
    """Token rows of varying length, padded with 0; the label is whether token 5 occurs."""
    def __init__(self, n, length, seed):
        g = torch.Generator().manual_seed(seed)
        self.items = []
        for _ in range(n):
            used = int(torch.randint(length // 2, length + 1, (1,), generator=g))
            ids = torch.zeros(length, dtype=torch.long)
            ids[:used] = torch.randint(1, 32, (used,), generator=g)
            mask = (torch.arange(length) < used).long()
            self.items.append({"input_ids": ids, "attention_mask": mask, "labels": int((ids == 5).any())})

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def main():
    args = loop_util.parse(lambda p: p.add_argument("--out", default="hf_out"))
    loop_util.announce("transformers", transformers.__version__)
    config = BertConfig(vocab_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=32, num_labels=2,
                        hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.0)
    torch.manual_seed(args.seed)
    model = BertForSequenceClassification(config)
    targs = TrainingArguments(output_dir=args.out, max_steps=args.steps, per_device_train_batch_size=8,
                              learning_rate=1e-3, lr_scheduler_type="constant", logging_steps=1, report_to=[], save_strategy="no",
                              seed=args.seed, use_cpu=True, dataloader_num_workers=0, disable_tqdm=True)

    class Printer(TrainerCallback):
        """One line per optimizer step: the logged loss and the weights."""
        def on_log(self, a, state, control, logs=None, **kw):
            if logs and "loss" in logs:
                loop_util.report(state.global_step - 1, logs["loss"], model)

    Trainer(model=model, args=targs, train_dataset=Sentences(64, 12, args.seed), callbacks=[Printer()]).train()


if __name__ == "__main__":
    main()
