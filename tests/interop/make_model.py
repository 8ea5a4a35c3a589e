"""Writes a tiny deterministic llama-architecture GGUF model (a few MB, seeded weights, an SPM
tokenizer with byte fallback) for the interop tests: greedy decoding of it is reproducible, so
the tests can compare exact text. Usage: make_model.py OUT.gguf"""
import sys

import numpy as np
from gguf import GGUFWriter, TokenType

SEED = 20261124
N_EMBD, N_HEAD, N_LAYER, N_FF, N_CTX_TRAIN = 128, 4, 2, 256, 8192
EOS_SCALE = float(__import__('os').environ.get('EOS_SCALE', '3.2'))
# Peaked logits: the top token wins under the servers' default sampling too (deterministic).
OUT_SCALE = float(__import__('os').environ.get('OUT_SCALE', '2.0'))

def vocab():
    tokens = ["<unk>", "<s>", "</s>"]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL]
    for b in range(256):
        tokens.append(f"<0x{b:02X}>")
        types.append(TokenType.BYTE)
    # ChatML markers (llama-cpp-python's chat formats) as single tokens.
    for t in ["<|im_start|>", "<|im_end|>"]:
        tokens.append(t)
        types.append(TokenType.CONTROL)
    words = ("the a an and or to of in is it you I we he she they this that what how why "
             "hello hi yes no ok sure Paris Rome city weather sun rain cat dog red blue "
             "one two three four five six seven eight nine ten user assistant system tool").split()
    pieces = ["\u2581" + w for w in words]
    for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?:;'\"{}[]()_-":
        pieces += [c, "\u2581" + c]
    pieces.append("\u2581")
    for p in pieces:
        if p not in tokens:
            tokens.append(p)
            types.append(TokenType.NORMAL)
    scores = [0.0] * len(tokens)
    for i, t in enumerate(tokens):
        if types[i] == TokenType.NORMAL:
            scores[i] = -float(i) / 1000.0 + len(t)
    return tokens, scores, types

def main(out):
    rng = np.random.default_rng(SEED)
    tokens, scores, types = vocab()
    n_vocab = len(tokens)
    w = GGUFWriter(out, "llama")
    w.add_name("robota-interop-tiny")
    w.add_context_length(N_CTX_TRAIN)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD)
    w.add_rope_dimension_count(N_EMBD // N_HEAD)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(0)  # all F32
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)

    def t(name, *shape, scale=0.08):
        w.add_tensor(name, (rng.standard_normal(shape) * scale).astype(np.float32))

    t("token_embd.weight", n_vocab, N_EMBD, scale=1.0)
    for i in range(N_LAYER):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        for n in ["attn_q", "attn_k", "attn_v", "attn_output"]:
            t(f"blk.{i}.{n}.weight", N_EMBD, N_EMBD)
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        t(f"blk.{i}.ffn_gate.weight", N_FF, N_EMBD)
        t(f"blk.{i}.ffn_up.weight", N_FF, N_EMBD)
        t(f"blk.{i}.ffn_down.weight", N_EMBD, N_FF)
    w.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    out_w = (rng.standard_normal((n_vocab, N_EMBD)) * OUT_SCALE).astype(np.float32)
    # End of turn (`</s>`) gets a stronger row: greedy replies end by themselves after a few
    # tokens for most prompts instead of always running into max_tokens.
    out_w[2] *= EOS_SCALE
    w.add_tensor("output.weight", out_w)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()

if __name__ == "__main__":
    main(sys.argv[1])
