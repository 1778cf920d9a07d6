"""Hugging Face attention through ``sdpa`` (the library's default), for the
rebuilt-attention tests: a GPT-2 (causal, ``is_causal``) and a Llama with
grouped-query attention (4 query heads over 2 key/value heads) and right
padding (odd rows end in two padding tokens: a bool mask), both built from
configs (no weights downloaded), dropout 0, trained together with one AdamW.
Batch 4, T 8, vocabulary 64.

``reference(models, batch)`` runs eager twins (``attn_implementation="eager"``,
the same parameters) with ``output_attentions=True``: {module path: [B, H, T,
S]} for ``transformer.h.<i>.attn`` and ``model.layers.<i>.self_attn``.
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM
from transformers.utils import logging as hf_logging

from loop_util import digest, dump_parameters as dump, parse

B, T, V = 4, 8, 64
hf_logging.set_verbosity_error()


def gpt2_config(attn):
    return GPT2Config(n_layer=2, n_head=4, n_embd=32, vocab_size=V, n_positions=32, resid_pdrop=0.0,
                      embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0, attn_implementation=attn)


def llama_config(attn):
    return LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=V, max_position_embeddings=64, bos_token_id=0,
                       eos_token_id=0, attn_implementation=attn)


class Pair(torch.nn.Module):
    """The two models, so the fidelity helpers see every parameter (never called itself)."""

    def __init__(self, attn):
        super().__init__()
        self.gpt2 = GPT2LMHeadModel(gpt2_config(attn))
        self.llama = LlamaForCausalLM(llama_config(attn))


def batch(step):
    g = torch.Generator().manual_seed(2000 + step)
    ids = torch.randint(1, V, (B, T), generator=g)
    mask = torch.ones(B, T, dtype=torch.long)
    mask[1::2, -2:] = 0
    return ids, mask


def reference(pair, ids, mask):
    eager = Pair("eager")
    eager.load_state_dict(pair.state_dict())
    eager.train()  # as trained (dropout is 0)
    out = {}
    with torch.no_grad():
        for i, w in enumerate(eager.gpt2(input_ids=ids, output_attentions=True).attentions):
            out["transformer.h.%d.attn" % i] = w
        for i, w in enumerate(eager.llama(input_ids=ids, attention_mask=mask, output_attentions=True).attentions):
            out["model.layers.%d.self_attn" % i] = w
    return out


def main():
    args = parse(lambda p: p.add_argument("--dump", default=""))
    torch.manual_seed(args.seed)
    pair = Pair("sdpa")
    pair.train()
    opt = torch.optim.AdamW(pair.parameters(), lr=1e-3)
    dump(args, pair, "w_init")
    for step in range(args.steps):
        ids, mask = batch(step)
        labels = ids.masked_fill(mask == 0, -100)
        loss = pair.gpt2(input_ids=ids, labels=ids).loss + \
            pair.llama(input_ids=ids, attention_mask=mask, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %r weights %s" % (step, loss.item(), digest(pair)), flush=True)
        dump(args, pair, "w_step%d" % step)


if __name__ == "__main__":
    main()
