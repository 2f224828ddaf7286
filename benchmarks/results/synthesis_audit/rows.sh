#!/bin/bash
# the real audit rows, one at a time, one torch thread
cd /work/main
mkdir -p /tmp/audit_runs
. /work/venv/bin/activate
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
COMMON="--data /work/shared/data/medqa/sampled_50.jsonl --format medqa --limit 12 --canaries 48 --prefix-words 8 --suffix-words 8 --suffix-pool-size 500 --synthetic-records 12 --epochs 3 --batch-size 6 --learning-rate 2e-3 --lora-r 16 --lora-layers=-6,-5,-4,-3,-2,-1 --lora-target-modules q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj --dtype float32 --max-length 64 --max-new-tokens 48"
for row in "$@"; do
  case $row in
    inf) ARGS="" ; ENVV="" ;;
    eps8) ARGS="--epsilon 8" ; ENVV="" ;;
    broken) ARGS="--epsilon 1" ; ENVV="TEXTLEAK_TEST_ONLY_BREAK_DP=both" ;;
    broken05) ARGS="--epsilon 0.5" ; ENVV="TEXTLEAK_TEST_ONLY_BREAK_DP=both" ;;
    # pre-registered in docs/synthesis.md before it ran: claim, sizes, score (target_loss_ref) and rule fixed
    prereg) ARGS="--epsilon 1 --canaries 256 --epochs 5" ; ENVV="TEXTLEAK_TEST_ONLY_BREAK_DP=both" ;;
  esac
  start=$(date +%s)
  env $ENVV /usr/bin/time -v textleak audit $COMMON $ARGS --output /tmp/audit_runs/$row > /tmp/audit_runs/$row.log 2>&1
  echo "row $row rc=$? wall=$(( $(date +%s) - start ))s" >> /tmp/audit_runs/rows.done
done
