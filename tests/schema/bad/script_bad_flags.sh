#!/bin/sh
# A launch script with a TensorRT-LLM flag spelt the vLLM way, a missing positional, another training
# script than pretrain_gpt.py, a Megatron flag that does not exist, a bad choice, and an unknown command.
# expect: trtllm: --tensor-parallel-size: not an argument of trtllm
# expect: trtllm: 1 positional argument(s) expected, got 0
# expect: megatron: train.py: not one of pretrain_gpt.py
# expect: megatron: --zero-stage: not an argument of megatron
# expect: megatron: --recompute-granularity selective_all: not one of full, selective
# expect: unrecognized command 'deepspeed train.py'
trtllm-serve \
  --backend pytorch \
  --tensor-parallel-size 8 \
  --port 8000
torchrun --nproc-per-node 8 train.py
torchrun --standalone --nproc-per-node 8 pretrain_gpt.py --zero-stage 3 --recompute-granularity selective_all
deepspeed train.py
