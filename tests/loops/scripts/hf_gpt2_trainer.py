"""The Hugging Face Trainer on a GPT-2-shaped causal LM (tiny config, built
from the config: no weights downloaded), with gradient_accumulation_steps=4.
The learning rate is constant, so the step count asked for (--steps) changes
nothing but where training stops. Inputs reach the model as keyword arguments (input_ids=, labels=) and the loss
is computed inside its forward; attention is sdpa (the default)."""
import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments

import loop_util


class TokenRows(torch.utils.data.Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return {"input_ids": self.rows[i], "labels": self.rows[i]}


def main():
    args = loop_util.parse(lambda p: p.add_argument("--out", default="hf_out"))
    loop_util.announce("transformers", transformers.__version__)
    config = GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2, resid_pdrop=0.0,
                        embd_pdrop=0.0, attn_pdrop=0.0)
    torch.manual_seed(args.seed)
    model = GPT2LMHeadModel(config)
    data = TokenRows(loop_util.token_rows(64, 16, 64, args.seed))
    targs = TrainingArguments(output_dir=args.out, max_steps=args.steps, per_device_train_batch_size=2,
                              gradient_accumulation_steps=4, learning_rate=1e-3, lr_scheduler_type="constant", logging_steps=1, report_to=[],
                              save_strategy="no", seed=args.seed, use_cpu=True, dataloader_num_workers=0,
                              disable_tqdm=True)

    class Printer(TrainerCallback):
        """One line per optimizer step: the loss the Trainer logs (the mean of its micro-batches) and the weights."""
        def on_log(self, a, state, control, logs=None, **kw):
            if logs and "loss" in logs:
                loop_util.report(state.global_step - 1, logs["loss"], model)

    Trainer(model=model, args=targs, train_dataset=data, callbacks=[Printer()]).train()


if __name__ == "__main__":
    main()
