#!/bin/bash
# `coif batch --workers 2` run RUNS times (default 50) under `ulimit -v 4000000` with glibc's heap checks on
# (MALLOC_CHECK_=3, MALLOC_PERTURB_): the reliability check for a worker's teardown racing the process's
# exit (double free, fastbin corruption, SIGSEGV at exit). The job: three photos (astronaut at 256², messi5,
# a frame of obama.mp4) × pixie, bob × auburn, #6b3e26. Each run renders into a fresh folder (--force is
# not enough: done items would skip the renders). Prints one line per run and a tally; exits 1 when any run
# exited other than 0 or printed a heap report.
#   scripts/batch-exit-loop.sh [RUNS]      COIF=path/to/coif to test another build
set -uo pipefail
coif=$(realpath "${COIF:-.build/release/coif}")
runs=${1:-50}
testdata=${COIF_TESTDATA:-$(dirname "$0")/../../shared/testdata}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffmpeg -v error -i /usr/lib/python3/dist-packages/skimage/data/astronaut.png -vf scale=256:256 "$work/astronaut.png"
cp /usr/share/doc/opencv-doc/examples/data/messi5.jpg "$work/messi5.jpg"
ffmpeg -v error -ss 1 -i "$testdata/video/obama.mp4" -frames:v 1 "$work/obama.png"
cat > "$work/job.json" <<JSON
{"photos": ["astronaut.png", "messi5.jpg", "obama.png"], "styles": ["pixie", "bob"], "colors": ["auburn", "#6b3e26"],
 "output": "{photo}/{style}-{color}.png"}
JSON
bad=0
for run in $(seq 1 "$runs"); do
    rm -rf "$work/out"
    status=0
    ( ulimit -v 4000000; MALLOC_CHECK_=3 MALLOC_PERTURB_=$(( (run * 37) % 255 + 1 )) \
        exec "$coif" batch "$work/job.json" --out "$work/out" --workers 2 ) >"$work/stdout" 2>"$work/stderr" || status=$?
    report=$(grep -m1 -E 'free\(\)|corrupt|malloc|double free|invalid (pointer|size)|Segmentation|Aborted' "$work/stderr" || true)
    if [ "$status" -ne 0 ] || [ -n "$report" ]; then
        bad=$((bad + 1))
        echo "run $run: exit $status ${report:-$(head -c 300 "$work/stderr")}"
    else
        echo "run $run: ok ($(grep '^shard' "$work/stdout" | grep -o '[0-9]* rendered'))"
    fi
done
echo "$((runs - bad)) of $runs runs clean"
[ "$bad" -eq 0 ]
