#!/usr/bin/env bash
# Whole-process wall times of the commands a user runs once per picture (start-up, model and GPU
# set-up, the work, exit): the median of N runs each, interleaved so a busy moment touches them all.
# usage: scripts/bench-processes.sh [COIF_BINARY] [N]   (needs COIF_TESTDATA's Sintel for the previews)
set -euo pipefail
coif=${1:-.build/release/coif}
runs=${2:-15}
data=${COIF_TESTDATA:-../shared/testdata}
sintel=$data/hair3d/tressfx_sintel/GEO-sintel_hair_emit.001-sintel_hair.tfx
astronaut=/usr/lib/python3/dist-packages/skimage/data/astronaut.png
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

names=("version" "render astronaut" "preview bob")
commands=("$coif --version" "$coif render $astronaut --color auburn -o $out/r.png" "$coif preview bob -o $out/p.png")
if [ -f "$sintel" ]; then
    names+=("preview Sintel, 228 strands" "preview Sintel, 2052 strands" "preview Sintel, automatic")
    commands+=("$coif preview $sintel -o $out/s.png --strands 228" "$coif preview $sintel -o $out/s.png --strands 2052"
               "$coif preview $sintel -o $out/s.png")
else
    echo "(no $sintel: Sintel previews skipped; set COIF_TESTDATA)"
fi

declare -A times
for ((i = 0; i < runs; i++)); do
    for k in "${!commands[@]}"; do
        start=$(date +%s%N)
        ${commands[$k]} >/dev/null
        times[$k]+="$(( ($(date +%s%N) - start) / 1000 )) "
    done
done
printf '%-30s %10s %10s %10s\n' "command ($runs runs)" "p50 ms" "min ms" "max ms"
for k in "${!commands[@]}"; do
    sorted=($(tr ' ' '\n' <<<"${times[$k]}" | grep . | sort -n))
    n=${#sorted[@]}
    awk -v name="${names[$k]}" -v p50="${sorted[$((n / 2))]}" -v lo="${sorted[0]}" -v hi="${sorted[$((n - 1))]}" \
        'BEGIN { printf "%-30s %10.1f %10.1f %10.1f\n", name, p50 / 1000, lo / 1000, hi / 1000 }'
done
