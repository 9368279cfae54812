#!/bin/sh
# A launch script with a TensorRT-LLM flag spelt the vLLM way, a missing positional, and an unknown command.
# expect: trtllm: --tensor-parallel-size: not an argument of trtllm
# expect: trtllm: 1 positional argument(s) expected, got 0
# expect: unrecognized command 'torchrun --nproc-per-node 8'
trtllm-serve \
  --backend pytorch \
  --tensor-parallel-size 8 \
  --port 8000
torchrun --nproc-per-node 8 train.py
