"""A GPT-2-shaped Hugging Face model (transformers' GPT2LMHeadModel from a
config: 2 layers, 4 heads, width 32, vocabulary 64; no weights downloaded)
trained on random token sequences of 12 with AdamW under the library's
default ``sdpa`` attention, whose probabilities never exist: the Attention
page shows them rebuilt from q and k, causal. argv[1] (the test's REF path)
is unused: the checker's reference is NumPy over the run's own records."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.utils import logging as hf_logging


def main():
    hf_logging.set_verbosity_error()
    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_head=4, n_embd=32, vocab_size=64, n_positions=32, bos_token_id=0,
                        eos_token_id=0, attn_implementation="sdpa")
    model = GPT2LMHeadModel(config)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(6):
        ids = torch.randint(1, 64, (8, 12))
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.4f" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
