#!/bin/bash
# Llama-2 7B shape on 2 nodes of 8 GPUs
GPUS_PER_NODE=8
torchrun --nproc_per_node $GPUS_PER_NODE --nnodes 2 pretrain_gpt.py \
    --tensor-model-parallel-size 2 \
    --pipeline-model-parallel-size 2 \
    --num-layers 32 \
    --hidden-size 4096 \
    --num-layers-per-virtual-pipeline-stage 4 \
    --sequence-parallel \
    --use-distributed-optimizer \
    --micro-batch-size 1 \
    --global-batch-size 64 \
    --seq-length 4096 \
    --recompute-granularity selective \
    --bf16 \
    --data-path "/data/my corpus_text_document; rm -rf /" \
    --save '/tmp/ckpt; rm -rf /'
