"""A hand-written fine-tuning loop for transformers' BertForSequenceClassification.

Mirrors the Hugging Face course's "full training" loop: a BERT classifier
(here built from a tiny BertConfig, no download), padded batches of token
ids with an attention mask, outputs.loss from the model's forward, AdamW at
lr 5e-5, get_linear_schedule_with_warmup stepped after every optimizer
step (so the very first step runs at lr 0), and gradient clipping at 1.0.
"""
import argparse

import torch
from transformers import BertConfig, BertForSequenceClassification, get_linear_schedule_with_warmup


def make_batches(n, batch_size, length=24, vocab=1000):
    """Random sentences padded with 0; label 1 when token 7 occurs."""
    ids = torch.randint(1, vocab, (n, length))
    used = torch.randint(length // 2, length + 1, (n,))
    mask = (torch.arange(length)[None] < used[:, None]).long()
    has7 = torch.rand(n) < 0.5
    ids[has7, 0] = 7
    ids = ids * mask
    labels = ((ids == 7).any(dim=1)).long()
    return [(ids[i:i + batch_size], mask[i:i + batch_size], labels[i:i + batch_size])
            for i in range(0, n, batch_size)]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    config = BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=128, max_position_embeddings=64, num_labels=2)
    model = BertForSequenceClassification(config)
    batches = make_batches(256, 16)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
    scheduler = get_linear_schedule_with_warmup(opt, num_warmup_steps=max(1, args.steps // 10),
                                                num_training_steps=args.steps)
    model.train()
    for step in range(args.steps):
        input_ids, attention_mask, labels = batches[step % len(batches)]
        outputs = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
        loss = outputs.loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        scheduler.step()
        opt.zero_grad()
        print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e}", flush=True)


if __name__ == "__main__":
    main()
