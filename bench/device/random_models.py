"""Random-weight decoder models in plain PyTorch for bench/device/first_hand.py: the layers of the
HF checkpoints' architectures (RMSNorm, QKV, RoPE, FlashAttention, output projection, SiLU-gated FFN
or routed experts as grouped GEMMs, output head), bf16 or fp8 e4m3 linear weights, no engine."""
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

DEV = "cuda"
BF = torch.bfloat16
FAST_ATTENTION = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]


class Model:
    """Random bf16 weights in the layout of the HF checkpoint (nn.Linear: [out, in])."""

    def __init__(self, c):
        self.c = c
        h, hd = c["hidden"], c["head_dim"]
        self.q_width, self.kv_width = c["heads"] * hd, c["kv_heads"] * hd

        def r(*shape):
            return torch.randn(*shape, device=DEV, dtype=BF).mul_(0.02)

        def lin(*shape):  # a linear layer's weight: bf16, or fp8 e4m3 with a per-tensor scale of 1
            w = r(*shape)
            return w.to(torch.float8_e4m3fn) if c.get("fp8") else w
        self.one = torch.ones((), device=DEV, dtype=torch.float32)
        self.embed = r(c["vocab"], h)
        self.head = self.embed if c.get("tied") else r(c["vocab"], h)
        self.norm = torch.ones(h, device=DEV, dtype=BF)
        self.layers = []
        for _ in range(c["layers"]):
            lw = dict(ln1=torch.ones(h, device=DEV, dtype=BF), ln2=torch.ones(h, device=DEV, dtype=BF),
                      qkv=lin(self.q_width + 2 * self.kv_width, h), o=lin(h, self.q_width))
            if c["qk_norm"]:
                lw["qn"] = torch.ones(hd, device=DEV, dtype=BF)
                lw["kn"] = torch.ones(hd, device=DEV, dtype=BF)
            if c["experts"]:
                e, f = c["experts"], c["expert_ffn"]
                lw["router"] = r(e, h)
                lw["w13"] = r(e, 2 * f, h)  # gate and up, [E, N, K]
                lw["w2"] = r(e, h, f)
            else:
                lw["gu"] = lin(2 * c["ffn"], h)
                lw["down"] = lin(h, c["ffn"])
            self.layers.append(lw)
        self.params = sum(t.numel() for t in self.tensors())
        self.weight_bytes = sum(t.numel() * t.element_size() for t in self.tensors())
        self.gqa_mode = "enable_gqa"  # or "repeat" where no fast kernel takes enable_gqa
        self.cos = torch.ones(hd // 2, device=DEV, dtype=BF) * 0.6
        self.sin = torch.ones(hd // 2, device=DEV, dtype=BF) * 0.8

    def tensors(self):
        yield self.embed
        if self.head is not self.embed:
            yield self.head
        yield self.norm
        for lw in self.layers:
            yield from lw.values()

    def lin(self, x, w):
        """x @ w.T; fp8 weights take the activations quantized to fp8 (per-tensor scale 1), bf16 out."""
        if w.dtype != torch.float8_e4m3fn:
            return x @ w.t()
        return torch._scaled_mm(x.to(torch.float8_e4m3fn), w.t(), scale_a=self.one, scale_b=self.one,
                                out_dtype=BF)

    def rope(self, x):  # x [..., hd]: the rotary multiply-adds, at a fixed angle
        x1, x2 = x.chunk(2, -1)
        return torch.cat((x1 * self.cos - x2 * self.sin, x2 * self.cos + x1 * self.sin), -1)

    def qkv(self, lw, x):
        c, hd = self.c, self.c["head_dim"]
        t = x.shape[0]
        h = F.rms_norm(x, (c["hidden"],), lw["ln1"], 1e-6)
        q, k, v = self.lin(h, lw["qkv"]).split([self.q_width, self.kv_width, self.kv_width], -1)
        q, k, v = q.view(t, c["heads"], hd), k.view(t, c["kv_heads"], hd), v.view(t, c["kv_heads"], hd)
        if c["qk_norm"]:
            q = F.rms_norm(q, (hd,), lw["qn"], 1e-6)
            k = F.rms_norm(k, (hd,), lw["kn"], 1e-6)
        return self.rope(q), self.rope(k), v

    def ffn(self, lw, x, moe_buf):
        h = F.rms_norm(x, (self.c["hidden"],), lw["ln2"], 1e-6)
        if not self.c["experts"]:
            g, u = self.lin(h, lw["gu"]).chunk(2, -1)
            return x + self.lin(F.silu(g) * u, lw["down"])
        return x + moe_buf.run(lw, h)

    def decode(self, tokens, caches, ctx, moe_buf):
        """One decode step: every sequence of the batch at context ctx (the new token at ctx-1)."""
        c, hd = self.c, self.c["head_dim"]
        b = tokens.shape[0]
        g = c["heads"] // c["kv_heads"]
        x = self.embed[tokens]
        for lw, (kc, vc) in zip(self.layers, caches):
            q, k, v = self.qkv(lw, x)
            kc[:, :, ctx - 1] = k
            vc[:, :, ctx - 1] = v
            # Query heads j*g .. j*g+g-1 share KV head j: g query rows per KV head, KV read once.
            o = F.scaled_dot_product_attention(q.view(b, c["kv_heads"], g, hd), kc, vc)
            x = x + self.lin(o.reshape(b, self.q_width), lw["o"])
            x = self.ffn(lw, x, moe_buf)
        x = F.rms_norm(x, (c["hidden"],), self.norm, 1e-6)
        return (x @ self.head.t()).argmax(-1)

    def mixed(self, dec_tokens, caches, ctx, pre_tokens, moe_buf):
        """One continuous-batching step: b decode tokens at context ctx and one prompt chunk of c
        tokens (a fresh prompt, causal over itself) share every GEMM; attention runs per part."""
        c, hd = self.c, self.c["head_dim"]
        b, n = dec_tokens.shape[0], pre_tokens.shape[0]
        g = c["heads"] // c["kv_heads"]
        x = self.embed[torch.cat((dec_tokens, pre_tokens))]
        for lw, (kc, vc) in zip(self.layers, caches):
            q, k, v = self.qkv(lw, x)
            kc[:, :, ctx - 1] = k[:b]
            vc[:, :, ctx - 1] = v[:b]
            od = F.scaled_dot_product_attention(q[:b].view(b, c["kv_heads"], g, hd), kc, vc)
            qp, kp, vp = (t[b:].transpose(0, 1).unsqueeze(0) for t in (q, k, v))
            op = self.attend_causal(qp, kp, vp).squeeze(0).transpose(0, 1).reshape(n, self.q_width)
            x = x + self.lin(torch.cat((od.reshape(b, self.q_width), op)), lw["o"])
            x = self.ffn(lw, x, moe_buf)
        x = F.rms_norm(x[:b], (c["hidden"],), self.norm, 1e-6)
        return (x @ self.head.t()).argmax(-1)

    def prefill(self, tokens, moe_buf):
        """One prompt of n tokens, causal attention; returns the first generated token."""
        c, hd = self.c, self.c["head_dim"]
        n = tokens.shape[0]
        x = self.embed[tokens]
        for lw in self.layers:
            q, k, v = self.qkv(lw, x)
            q, k, v = (t.transpose(0, 1).unsqueeze(0) for t in (q, k, v))
            o = self.attend_causal(q, k, v)
            x = x + self.lin(o.squeeze(0).transpose(0, 1).reshape(n, self.q_width), lw["o"])
            x = self.ffn(lw, x, moe_buf)
        x = F.rms_norm(x[-1:], (c["hidden"],), self.norm, 1e-6)
        return (x @ self.head.t()).argmax(-1)


    def attend_causal(self, q, k, v):
        if self.gqa_mode == "enable_gqa":
            try:
                with sdpa_kernel(FAST_ATTENTION):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            except RuntimeError:
                self.gqa_mode = "repeat"
        g = self.c["heads"] // self.c["kv_heads"]
        with sdpa_kernel(FAST_ATTENTION):
            return F.scaled_dot_product_attention(q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1),
                                                  is_causal=True)


def grouped_mm(a, b_enk, offs):
    fn = getattr(F, "grouped_mm", None) or torch._grouped_mm
    return fn(a, b_enk.transpose(-2, -1), offs=offs)


class MoeDispatch:
    """Routed experts of one MoE layer as two grouped GEMMs, sync-free (graph-capturable): top-k
    routing, tokens sorted by expert, each expert's rows padded to a multiple of 16."""

    def __init__(self, c, tokens):
        self.e, self.k, self.f, self.h = c["experts"], c["top_k"], c["expert_ffn"], c["hidden"]
        self.rows = tokens * self.k + self.e * 15
        self.xbuf = torch.zeros(self.rows, self.h, device=DEV, dtype=BF)
        self.ones = torch.ones(tokens * self.k, device=DEV, dtype=torch.int64)
        self.ar = torch.arange(tokens * self.k, device=DEV)
        self.last_counts = None

    def run(self, lw, h):
        t = h.shape[0]
        probs = torch.softmax((h @ lw["router"].t()).float(), -1)
        topv, topi = probs.topk(self.k, -1)
        topv = (topv / topv.sum(-1, keepdim=True)).to(BF)
        flat = topi.flatten()
        sorted_e, order = torch.sort(flat, stable=True)
        counts = torch.zeros(self.e, device=DEV, dtype=torch.int64).scatter_add_(0, flat, self.ones[: t * self.k])
        self.last_counts = counts
        padded = (counts + 15) // 16 * 16
        pad_end = torch.cumsum(padded, 0)
        raw_start = torch.cumsum(counts, 0) - counts
        dest = (pad_end - padded)[sorted_e] + (self.ar[: t * self.k] - raw_start[sorted_e])
        self.xbuf[dest] = h[order // self.k]
        offs = pad_end.to(torch.int32)
        g, u = grouped_mm(self.xbuf, lw["w13"], offs).chunk(2, -1)
        y = grouped_mm((F.silu(g) * u).contiguous(), lw["w2"], offs)
        w = topv.flatten()[order].unsqueeze(-1)
        out = torch.zeros_like(h)
        out.index_add_(0, order // self.k, y[dest] * w)
        return out


def kv_caches(c, tokens_cap):
    per = tokens_cap * c["kv_heads"] * c["head_dim"]
    return [(torch.randn(per, device=DEV, dtype=BF), torch.randn(per, device=DEV, dtype=BF))
            for _ in range(c["layers"])]


def cache_views(c, bufs, b, ctx):
    n = b * c["kv_heads"] * ctx * c["head_dim"]
    shape = (b, c["kv_heads"], ctx, c["head_dim"])
    return [(k[:n].view(shape), v[:n].view(shape)) for k, v in bufs]
