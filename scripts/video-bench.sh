#!/bin/bash
# The video benchmark (`make bench-video`): a 150-frame clip (6 s at 25 fps, 512×512) made from Debian's
# astronaut.png, a window panning and zooming slowly over the photo, rendered by `coif video` with the full
# look (own hair removed) for two styles. Prints frames per second (start-up included), the frames detected,
# tracked and parsed, and each stage's mean and p95 from `--summary`.
set -euo pipefail
coif=${COIF:-.build/release/coif}
astronaut=/usr/lib/python3/dist-packages/skimage/data/astronaut.png
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffmpeg -nostdin -v error -loop 1 -framerate 25 -i "$astronaut" \
    -vf "crop=w='420-n*0.4':h='420-n*0.4':x='30+n*0.5':y='10+n*0.2',scale=512:512:flags=bicubic,format=yuv420p" \
    -frames:v 150 -c:v libx264 -crf 14 -threads 1 "$work/clip.mp4"
for style in ${STYLES:-pixie bob}; do
    "$coif" video "$work/clip.mp4" --style "$style" --color auburn -o "$work/$style.mp4" --summary "$work/$style.json" --progress none
    python3 - "$work/$style.json" "$style" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
states = s["states"]
print(f"{sys.argv[2]}: {s['frames']} frames in {s['wall_seconds']:.1f} s = {s['frames_per_second']:.2f} fps ({s['renderer']}); "
      f"{states['detected']} detected, {states['tracked']} tracked, {s['keyframes']} keyframes parsed")
for stage, f in s["stages"].items():
    print(f"  {stage:10s} mean {f['mean_ms']:8.2f} ms  p95 {f['p95_ms']:8.2f} ms  ({f['frames']} frames)")
PY
done
