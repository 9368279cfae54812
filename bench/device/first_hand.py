#!/usr/bin/env python3
"""First-hand kernel and forward-pass timings on one GPU (docs/accuracy-first-hand.md).
Random-weight models built from the configs of data/models/*.json (random_models.py beside this
file), bf16 or fp8, no engine: the script measures the physics the estimator's terms describe, not
an engine's scheduler.

Sections (SECTIONS=a,b,...; default smoke,ceilings,dense,moe,gemm), each independent: a failure is
logged and the next section runs.
  smoke       every code path on tiny models (their rows are not measurements)
  ceilings    device-to-device copy bandwidth and an 8192^3 bf16 matrix product
  gemm        Llama-3.1-8B's GEMM shapes at M = 1 .. 16384 rows, bf16 (weights rotated past the L2)
  gemm_fp8    the same in fp8 e4m3 with per-tensor scales, M = 16 .. 16384
  dense       Llama-3.1-8B: decode steps (CUDA graph) at batch B and context L, and prompts
  dense_more  the same for Llama-3.2-1B, Llama-2-7B and Qwen3-32B
  moe         Qwen3-30B-A3B, routed experts as grouped GEMMs; moe_more: Mixtral-8x7B
  experts     the routed experts' grouped GEMMs alone, 1 .. E active experts
  mixed       decode steps carrying a prompt chunk (Llama-3.1-8B, Qwen3-32B)
  fp8_70b     Llama-2-70B with fp8 weights and activations
  train       training steps of HF transformers' Llama (Llama-3.2-1B, -3B): peak memory, step time

Output: one JSON object per line in $OUT/first-hand.jsonl (times in seconds, sizes in bytes;
tests/validation/first-hand/README.md gives every field). BUDGET_S bounds the whole run.
"""
import json
import math
import os
import subprocess
import time
import traceback

import torch
import torch.nn.functional as F

from random_models import BF, DEV, Model, MoeDispatch, cache_views, grouped_mm, kv_caches

OUT = os.environ.get("OUT", ".")
BUDGET_S = float(os.environ.get("BUDGET_S", "300"))
T0 = time.time()
ROWS = open(os.path.join(OUT, "first-hand.jsonl"), "w")


def emit(kind, **kw):
    kw = {"kind": kind, **kw}
    line = json.dumps(kw, sort_keys=True)
    ROWS.write(line + "\n")
    ROWS.flush()
    print(line, flush=True)


def left_s():
    return BUDGET_S - (time.time() - T0)


def section(name, fn):
    if left_s() < 15:
        emit("skipped", section=name, reason="budget")
        return
    t = time.time()
    try:
        fn()
    except Exception:  # noqa: BLE001 - every section runs on its own
        emit("error", section=name, trace=traceback.format_exc()[-3000:])
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    print(f"# section {name}: {time.time() - t:.1f} s, {left_s():.0f} s left", flush=True)


def events_time_s(run, reps, trials=5):
    """Median over `trials` of the mean time of `reps` back-to-back calls of run()."""
    out = []
    for _ in range(trials):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps):
            run()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b) / 1e3 / reps)
    out.sort()
    return out[len(out) // 2]


def graph_of(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    g.replay()
    torch.cuda.synchronize()
    return g


def graph_time_s(fn, reps):
    g = graph_of(fn)
    t = events_time_s(g.replay, reps)
    del g
    return t


def smi(query):
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:  # noqa: BLE001
        return ""


# ---------------------------------------------------------------------------------------------
def ceilings():
    n = 1 << 30  # bf16 elements: 2 GiB per buffer
    a = torch.randn(n, device=DEV, dtype=BF)
    b = torch.empty_like(a)
    t = graph_time_s(lambda: b.copy_(a), 5)
    emit("copy", bytes_moved=4 * n, time_s=t, gb_per_s=4 * n / t / 1e9)
    del a, b
    m = 8192
    x = torch.randn(m, m, device=DEV, dtype=BF)
    y = torch.randn(m, m, device=DEV, dtype=BF)
    z = torch.empty(m, m, device=DEV, dtype=BF)
    t = graph_time_s(lambda: torch.mm(x, y, out=z), 10)
    emit("matmul", m=m, n=m, k=m, time_s=t, tflop_per_s=2 * m**3 / t / 1e12)


# ---------------------------------------------------------------------------------------------
LLAMA_8B = dict(name="llama-3.1-8b", layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128,
                ffn=14336, vocab=128256, qk_norm=False, experts=0, top_k=0, expert_ffn=0)
QWEN3_30B = dict(name="qwen3-30b-a3b", layers=48, hidden=2048, heads=32, kv_heads=4, head_dim=128,
                 ffn=6144, vocab=151936, qk_norm=True, experts=128, top_k=8, expert_ffn=768)
QWEN3_32B = dict(name="qwen3-32b", layers=64, hidden=5120, heads=64, kv_heads=8, head_dim=128,
                 ffn=25600, vocab=151936, qk_norm=True, experts=0, top_k=0, expert_ffn=0)
LLAMA_1B = dict(name="llama-3.2-1b", layers=16, hidden=2048, heads=32, kv_heads=8, head_dim=64,
                ffn=8192, vocab=128256, qk_norm=False, experts=0, top_k=0, expert_ffn=0, tied=True)
LLAMA2_7B = dict(name="llama-2-7b", layers=32, hidden=4096, heads=32, kv_heads=32, head_dim=128,
                 ffn=11008, vocab=32000, qk_norm=False, experts=0, top_k=0, expert_ffn=0)
MIXTRAL = dict(name="mixtral-8x7b", layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128,
               ffn=14336, vocab=32000, qk_norm=False, experts=8, top_k=2, expert_ffn=14336)
L2_BYTES = 64 << 20


def gemm_curve():
    c = LLAMA_8B
    h, qkv = c["hidden"], (c["heads"] + 2 * c["kv_heads"]) * c["head_dim"]
    shapes = [("qkv", h, qkv), ("o", c["heads"] * c["head_dim"], h), ("gate_up", h, 2 * c["ffn"]),
              ("down", c["ffn"], h), ("lm_head", h, c["vocab"])]
    for name, k, n in shapes:
        copies = max(2, min(16, math.ceil(4 * L2_BYTES / (2 * k * n))))
        w = [torch.randn(n, k, device=DEV, dtype=BF) * 0.02 for _ in range(copies)]
        for m in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]:
            if left_s() < 60:
                return
            x = torch.randn(m, k, device=DEV, dtype=BF)
            y = torch.empty(copies, m, n, device=DEV, dtype=BF)

            def run():
                for i in range(copies):
                    torch.mm(x, w[i].t(), out=y[i])
            t = graph_time_s(run, 3) / copies
            flops = 2.0 * m * k * n
            emit("gemm", model=c["name"], shape=name, m=m, k=k, n=n, time_s=t,
                 tflop_per_s=flops / t / 1e12, weight_gb_per_s=2.0 * k * n / t / 1e9)
            del x, y
        del w


# ---------------------------------------------------------------------------------------------
def model_runs(c, tokens_cap, decode_grid, prefill_lengths):
    t = time.time()
    m = Model(c)
    torch.cuda.synchronize()
    emit("weights", model=c["name"], params=m.params, bytes=m.weight_bytes, precision=c.get("precision", "bf16"),
         allocated_bytes=torch.cuda.memory_allocated(), build_s=time.time() - t)
    bufs = kv_caches(c, tokens_cap)
    kv_bytes_token = 2 * c["layers"] * c["kv_heads"] * c["head_dim"] * 2
    for b, ctx in decode_grid:
        if b * ctx > tokens_cap or left_s() < 40:
            continue
        tokens = torch.randint(0, c["vocab"], (b,), device=DEV)
        caches = cache_views(c, bufs, b, ctx)
        moe = MoeDispatch(c, b) if c["experts"] else None
        step = graph_time_s(lambda: m.decode(tokens, caches, ctx, moe), 5)
        row = dict(model=c["name"], batch=b, context=ctx, time_s=step, precision=c.get("precision", "bf16"),
                   weight_bytes=m.weight_bytes, kv_bytes=b * ctx * kv_bytes_token)
        if moe is not None:
            m.decode(tokens, caches, ctx, moe)
            row["distinct_experts_last_layer"] = int((moe.last_counts > 0).sum().item())
        emit("decode", **row)
        del caches, tokens, moe
    del bufs
    torch.cuda.empty_cache()
    for n in prefill_lengths:
        if left_s() < 40:
            break
        tokens = torch.randint(0, c["vocab"], (n,), device=DEV)
        moe = MoeDispatch(c, n) if c["experts"] else None
        m.prefill(tokens, moe)
        torch.cuda.synchronize()
        eager = events_time_s(lambda: m.prefill(tokens, moe), 1, trials=3)
        row = dict(model=c["name"], tokens=n, eager_time_s=eager, attention=m.gqa_mode,
                   precision=c.get("precision", "bf16"))
        if n <= 4096:
            row["graph_time_s"] = graph_time_s(lambda: m.prefill(tokens, moe), 2)
        emit("prefill", **row)
        del tokens, moe
        torch.cuda.empty_cache()
    del m


def dense():
    grid = [(b, ctx) for ctx in (1024, 4096, 8192) for b in (1, 8, 32, 64, 128, 256, 512)]
    model_runs(LLAMA_8B, 1 << 19, grid, [128, 512, 1024, 2048, 4096, 8192, 16384])


def moe():
    grid = [(b, ctx) for ctx in (1024, 4096) for b in (1, 4, 16, 64, 128, 256)]
    model_runs(QWEN3_30B, 1 << 18, grid, [128, 512, 2048, 8192])


def dense_more():
    model_runs(LLAMA_1B, 1 << 20, [(b, ctx) for ctx in (1024, 4096) for b in (1, 16, 64, 256, 1024)],
               [512, 2048, 8192])
    model_runs(LLAMA2_7B, 1 << 17, [(b, ctx) for ctx in (1024, 4096) for b in (1, 8, 32, 64, 128)],
               [512, 2048, 8192])
    model_runs(QWEN3_32B, 1 << 17, [(b, ctx) for ctx in (1024, 4096) for b in (1, 8, 32, 64, 128)],
               [512, 2048, 8192])


def moe_more():
    model_runs(MIXTRAL, 1 << 17, [(b, 1024) for b in (1, 2, 4, 8, 16, 64, 128)], [512, 2048, 8192])


def expert_reads():
    """The two grouped GEMMs of routed experts alone, D experts active with r rows each, weights
    rotated over enough layers to stay out of the L2: the read rate of a batch's distinct experts."""
    shapes = [("qwen3-30b-a3b", 128, 2048, 768, 8), ("mixtral-8x7b", 8, 4096, 14336, 2),
              ("deepseek-v3", 256, 7168, 2048, 1)]
    for name, e, h, f, copies in shapes:
        w13 = [torch.randn(e, 2 * f, h, device=DEV, dtype=BF) * 0.02 for _ in range(copies)]
        w2 = [torch.randn(e, h, f, device=DEV, dtype=BF) * 0.02 for _ in range(copies)]
        per_expert = 3 * h * f * 2
        for rows in (16, 128):
            for active in (1, 2, 4, 8, 16, 32, 64, 128, 256):
                if active > e or left_s() < 30:
                    continue
                counts = torch.zeros(e, dtype=torch.int64)
                counts[torch.linspace(0, e - 1, active).round().long()] = rows
                offs = torch.cumsum(counts, 0).to(torch.int32).to(DEV)
                x = torch.randn(active * rows, h, device=DEV, dtype=BF)
                mid = torch.empty(active * rows, f, device=DEV, dtype=BF)

                def run():
                    for i in range(copies):
                        g, u = grouped_mm(x, w13[i], offs).chunk(2, -1)
                        torch.mul(F.silu(g), u, out=mid)
                        grouped_mm(mid, w2[i], offs)
                t = graph_time_s(run, 3) / copies
                emit("experts", model=name, experts=e, hidden=h, expert_ffn=f, active=active,
                     rows_per_expert=rows, time_s=t, bytes=active * per_expert,
                     gb_per_s=active * per_expert / t / 1e9)
        del w13, w2
        torch.cuda.empty_cache()


def mixed_steps():
    """Decode steps that carry a prompt chunk (chunked prefill): what the chunk adds to the step."""
    for c, cap in ((LLAMA_8B, 1 << 18), (QWEN3_32B, 1 << 17)):
        m = Model(c)
        bufs = kv_caches(c, cap)
        for b, ctx in ((16, 2048), (64, 2048)):
            caches = cache_views(c, bufs, b, ctx)
            dec = torch.randint(0, c["vocab"], (b,), device=DEV)
            for n in (0, 128, 512, 1024, 2048, 4096):
                if left_s() < 30:
                    break
                pre = torch.randint(0, c["vocab"], (n,), device=DEV)
                if n == 0:
                    t = graph_time_s(lambda: m.decode(dec, caches, ctx, None), 5)
                else:
                    m.mixed(dec, caches, ctx, pre, None)
                    t = graph_time_s(lambda: m.mixed(dec, caches, ctx, pre, None), 5)
                emit("mixed", model=c["name"], batch=b, context=ctx, prompt_tokens=n, time_s=t)
        del m, bufs
        torch.cuda.empty_cache()


def fp8_gemm_curve():
    """Llama-3.1-8B's GEMM shapes in fp8 e4m3 (per-tensor scales, bf16 out) at M = 16 .. 16384."""
    c = LLAMA_8B
    h, qkv = c["hidden"], (c["heads"] + 2 * c["kv_heads"]) * c["head_dim"]
    one = torch.ones((), device=DEV, dtype=torch.float32)
    for name, k, n in [("qkv", h, qkv), ("gate_up", h, 2 * c["ffn"]), ("down", c["ffn"], h)]:
        copies = max(2, min(16, math.ceil(4 * L2_BYTES / (k * n))))
        w = [torch.randn(n, k, device=DEV).to(torch.float8_e4m3fn) for _ in range(copies)]
        for m in [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]:
            if left_s() < 30:
                return
            x = torch.randn(m, k, device=DEV).to(torch.float8_e4m3fn)

            def run():
                for i in range(copies):
                    torch._scaled_mm(x, w[i].t(), scale_a=one, scale_b=one, out_dtype=BF)
            t = graph_time_s(run, 3) / copies
            emit("gemm_fp8", model=c["name"], shape=name, m=m, k=k, n=n, time_s=t,
                 tflop_per_s=2.0 * m * k * n / t / 1e12, weight_gb_per_s=k * n / t / 1e9)
        del w


LLAMA2_70B_FP8 = dict(name="llama-2-70b", layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128,
                      ffn=28672, vocab=32000, qk_norm=False, experts=0, top_k=0, expert_ffn=0, fp8=True,
                      precision="fp8")


def fp8_70b():
    """Llama-2-70B with fp8 weights and activations (the MLPerf Server model), bf16 KV, one GPU."""
    grid = [(b, 512) for b in (16, 64, 128, 256, 384)] + [(b, 1024) for b in (16, 64, 128, 192)] + \
           [(b, 2048) for b in (16, 32, 64, 96)]
    model_runs(LLAMA2_70B_FP8, 3 << 16, grid, [512, 2048, 8192])


TRAIN_MODELS = {
    "llama-3.2-1b": dict(vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                         num_attention_heads=32, num_key_value_heads=8, head_dim=64, tie_word_embeddings=True),
    "llama-3.2-3b": dict(vocab_size=128256, hidden_size=3072, intermediate_size=8192, num_hidden_layers=28,
                         num_attention_heads=24, num_key_value_heads=8, head_dim=128, tie_word_embeddings=True),
}


def train_one(name, fields, batch, seq, recompute):
    """Steps of Hugging Face transformers' LlamaForCausalLM (SDPA attention) as the HF Trainer's bf16
    mode runs it: FP32 weights, autocast to bf16, fused AdamW, one GPU, no gradient accumulation."""
    import gc
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(max_position_embeddings=131072, use_cache=False, **fields)
    try:
        cfg._attn_implementation = "sdpa"
    except Exception:  # noqa: BLE001
        pass
    row = dict(model=name, batch=batch, seq_len=seq, recompute="full" if recompute else "none",
               optimizer="adamw", weights="fp32", autocast="bf16")
    model = opt = None
    try:
        with torch.device(DEV):
            model = LlamaForCausalLM(cfg).to(torch.float32)
        row["params"] = sum(p.numel() for p in model.parameters())
        row["attention_impl"] = str(getattr(model.config, "_attn_implementation", ""))
        if recompute:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
        ids = torch.randint(0, fields["vocab_size"], (batch, seq), device=DEV)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        row["allocated_before_bytes"] = torch.cuda.memory_allocated()
        times = []
        for _ in range(4):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) / 1e3)
        row["step_s"] = sorted(times[1:])[1]
        row["tokens_per_s"] = batch * seq / row["step_s"]
        row["peak_allocated_bytes"] = torch.cuda.max_memory_allocated()
        row["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
    except torch.OutOfMemoryError:
        row["oom"] = True
    except Exception as e:  # noqa: BLE001 - the next configuration still runs
        row["error"] = repr(e)[:500]
    finally:
        del model, opt
        gc.collect()
        torch.cuda.empty_cache()
    emit("train", **row)


def train_runs():
    tiny = dict(vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                num_attention_heads=4, num_key_value_heads=2, head_dim=64, tie_word_embeddings=True)
    train_one("tiny", tiny, 2, 128, False)
    train_one("tiny", tiny, 2, 128, True)
    grid = {"llama-3.2-1b": [(1, 2048, False), (4, 2048, False), (8, 2048, False), (2, 4096, False),
                             (4, 4096, False), (8, 4096, True), (16, 4096, True)],
            "llama-3.2-3b": [(1, 2048, False), (4, 2048, False), (2, 4096, False), (4, 4096, False),
                             (8, 4096, True)]}
    for name, runs in grid.items():
        for batch, seq, recompute in runs:
            if left_s() < 25:
                return
            train_one(name, TRAIN_MODELS[name], batch, seq, recompute)


def smoke():
    tiny = dict(name="tiny", layers=2, hidden=256, heads=4, kv_heads=2, head_dim=64, ffn=512, vocab=1000,
                qk_norm=True, experts=8, top_k=2, expert_ffn=128)
    model_runs(tiny, 1 << 14, [(4, 256)], [64])
    dense_tiny = dict(tiny, name="tiny-dense", experts=0, qk_norm=False)
    model_runs(dense_tiny, 1 << 14, [(4, 256)], [64])
    model_runs(dict(dense_tiny, name="tiny-fp8", fp8=True, precision="fp8"), 1 << 14, [(16, 256)], [64])
    m = Model(dense_tiny)
    caches = cache_views(dense_tiny, kv_caches(dense_tiny, 1 << 12), 4, 256)
    dec = torch.randint(0, 1000, (4,), device=DEV)
    pre = torch.randint(0, 1000, (32,), device=DEV)
    emit("smoke_mixed", time_s=graph_time_s(lambda: m.mixed(dec, caches, 256, pre, None), 2))


if __name__ == "__main__":
    torch.backends.cuda.matmul.allow_tf32 = False
    emit("env", torch=torch.__version__, gpu=torch.cuda.get_device_name(), cuda=torch.version.cuda,
         smi=smi("name,memory.total,clocks.max.sm,clocks.max.mem,power.limit,driver_version"),
         date=time.strftime("%Y-%m-%d"))
    sections = {"smoke": smoke, "ceilings": ceilings, "dense": dense, "moe": moe, "gemm": gemm_curve,
                "dense_more": dense_more, "moe_more": moe_more, "experts": expert_reads,
                "mixed": mixed_steps, "gemm_fp8": fp8_gemm_curve, "fp8_70b": fp8_70b,
                "train": train_runs}
    for name in os.environ.get("SECTIONS", "smoke,ceilings,dense,moe,gemm").split(","):
        section(name, sections[name])
    emit("env_after", smi=smi("clocks.sm,clocks.mem,temperature.gpu,power.draw"))
    print(f"# done in {time.time() - T0:.0f} s", flush=True)
