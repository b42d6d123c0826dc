#!/bin/bash
# The batch benchmark (`make bench-batch`): 100 try-ons, 5 photos × 5 styles × 4 colours at 512×512 with the
# full look (own hair removed, shadows, the photo's light and finish), with --workers 1 and 2. Prints items
# per second, the photos analysed and the peak memory of the process. The five photos are made from Debian's
# two (astronaut, messi5): as they are, mirrored and re-cropped, so each is its own photo to analyse.
set -euo pipefail
coif=${COIF:-.build/release/coif}
astronaut=/usr/lib/python3/dist-packages/skimage/data/astronaut.png
messi=/usr/share/doc/opencv-doc/examples/data/messi5.jpg
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffmpeg -v error -i "$astronaut" "$work/astronaut.png"
ffmpeg -v error -i "$astronaut" -vf hflip "$work/astronaut-mirrored.png"
ffmpeg -v error -i "$astronaut" -vf "crop=400:400:56:0,scale=512:512:flags=area" "$work/astronaut-close.png"
ffmpeg -v error -i "$messi" -vf "crop=342:342:150:0,scale=512:512:flags=bicubic" "$work/messi.png"
ffmpeg -v error -i "$messi" -vf "crop=342:342:150:0,scale=512:512:flags=bicubic,hflip" "$work/messi-mirrored.png"
cat > "$work/job.json" <<JSON
{"photos": ["astronaut.png", "astronaut-mirrored.png", "astronaut-close.png", "messi.png", "messi-mirrored.png"],
 "styles": ["bob", "pixie", "long-wavy", "curly", "quiff"],
 "colors": ["auburn", "black", "platinum", "#6b3e26"],
 "output": "{photo}/{style}-{color}.png"}
JSON
for workers in ${WORKERS:-1 2}; do
    rm -rf "$work/out"
    python3 - "$coif" "$work/job.json" "$work/out" "$workers" <<'PY'
import json, resource, subprocess, sys, time
coif, job, out, workers = sys.argv[1:]
start = time.monotonic()
run = subprocess.run([coif, "batch", job, "--out", out, "--workers", workers], capture_output=True, text=True)
wall = time.monotonic() - start
if run.returncode != 0:
    sys.exit(f"coif batch failed ({run.returncode}): {run.stderr.strip()}")
results = [json.loads(line) for line in open(f"{out}/results.jsonl")]
rendered = [r for r in results if r["status"] == "rendered"]
item_ms = sorted(r["ms"] for r in rendered)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"--workers {workers}: {len(rendered)} items in {wall:.1f} s = {len(rendered) / wall:.2f} items/s "
      f"(engine start included); item render+write p50 {item_ms[len(item_ms) // 2]:.0f} ms; "
      f"peak RSS {rss:.0f} MB; {run.stdout.strip()}")
PY
done
