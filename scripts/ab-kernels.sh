#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A/B of fgemm kernel directories on the GPU machine, the method of the perf
# logs: every variant under ncu (gpu__time_duration, kernel only), rounds
# interleaved (A B A B ...) so that clock drift hits both, per shape the
# median of the last 3 launches of fgemm-bench --no-check --iters 3.
#
#   scripts/ab-kernels.sh [--rounds N] [--warm] [--bench PATH]
#                         (--shapes 'M,N,K;...' | --grouped contiguous|psum|unpadded|masked)
#                         NAME=DIR [NAME=DIR ...]
#
# DIR holds NAME.cubin + NAME.meta pairs (a gpu-prepare all/ or one fgemmc
# output). --warm: fgemm-bench --warm-l2 under ncu --cache-control none (the
# operands stay in L2 between launches); default: ncu flushes L2 before each.
# --bench: the fgemm-bench to run (default .device/fgemm/bin/fgemm-bench); a
# variant may name its own as NAME=DIR@BENCH (e.g. an older runtime), and
# add fgemm-bench flags after commas: NAME=DIR,--raster-group,1.
# Prints one line per round and variant, then per shape the median over the
# rounds and its ratio to the first variant (< 1: faster than the first).
set -uo pipefail
rounds=2 warm=0 bench=.device/fgemm/bin/fgemm-bench shapes="" grouped=""
variants=()
usage() { sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; }
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --warm) warm=1 ;;
    --bench) bench=$2; shift ;;
    --shapes) shapes=$2; shift ;;
    --grouped) grouped=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *=*) variants+=("$1") ;;
    *) echo "ab-kernels: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if [[ ${#variants[@]} -lt 1 || ( -z $shapes && -z $grouped ) ]]; then
  usage >&2; exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=all regex=sm90_fp8_gemm args=(--no-check --iters 3)
[[ $warm == 1 ]] && cache=none args+=(--warm-l2)
if [[ -n $grouped ]]; then
  args+=(--grouped "$grouped") regex=$grouped
  [[ $grouped == psum ]] && regex=contiguous
  [[ -n $shapes ]] && args+=(--shapes "$shapes")
else
  args+=(--shapes "$shapes")
fi
# Median of the last 3 launches of each shape, from ncu's CSV (launches in
# order, the same count per shape).
medians() {
  python3 - "$1" "$2" <<'PY'
import csv, statistics, sys
path, shapes = sys.argv[1], int(sys.argv[2])
rows = [l for l in open(path) if l.startswith('"')]
vals = [float(r["Metric Value"].replace(",", "")) / 1000.0
        for r in csv.DictReader(rows) if r.get("Metric Name") == "gpu__time_duration.sum"]
if shapes == 0 and len(vals) % 7 == 0:
    shapes = len(vals) // 7
if not vals or shapes == 0 or len(vals) % shapes:
    print("?"); sys.exit(0)
per = len(vals) // shapes
print(" ".join("%.1f" % statistics.median(vals[i * per:(i + 1) * per][-3:])
               for i in range(shapes)))
PY
}
count=$(awk -F';' '{print NF}' <<< "${shapes:-x}")
for ((r = 1; r <= rounds; ++r)); do
  for v in "${variants[@]}"; do
    name=${v%%=*} spec=${v#*=} extra=()
    if [[ $spec == *,* ]]; then
      IFS=, read -r -a extra <<<"${spec#*,}"
      spec=${spec%%,*}
    fi
    dir=${spec%@*} b=$bench
    [[ $spec == *@* ]] && b=${spec#*@}
    ncu --csv --print-units base --cache-control "$cache" --clock-control none \
      --metrics gpu__time_duration.sum -k "regex:$regex" \
      "$b" --kernels "$dir" "${args[@]}" ${extra[@]+"${extra[@]}"} > "$work/raw.csv" 2>&1
    # Without a shape list ('dense', the default grouped shapes) the count comes from
    # the launches: 7 a shape (a first run, 3 warm-ups, 3 timed).
    n=$count
    [[ $shapes == *,* ]] || n=0
    line=$(medians "$work/raw.csv" "$n")
    echo "$r $name $line" | tee -a "$work/all.txt"
  done
done
python3 - "$work/all.txt" <<'PY'
import statistics, sys
runs = {}
order = []
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) < 3 or parts[2] == "?":
        continue
    name = parts[1]
    if name not in runs:
        order.append(name)
    runs.setdefault(name, []).append([float(x) for x in parts[2:]])
if not order:
    sys.exit("ab-kernels: no timings (see ncu's output)")
med = {n: [statistics.median(col) for col in zip(*runs[n])] for n in order}
base = med[order[0]]
print("median over rounds (us), ratio to %s:" % order[0])
for n in order:
    print("  %-16s %s" % (n, " ".join("%.1f (%.3f)" % (t, t / b) for t, b in zip(med[n], base))))
PY
