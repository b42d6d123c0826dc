#!/usr/bin/env bash
# Regenerates docs/own-hair.md's pictures (docs/own-hair-*.png) from real photos Coif may publish renders
# of: Debian's astronaut.png and camera.png (scikit-image, CC0) and messi5.jpg (OpenCV's samples); see
# docs/pictures.md. usage: own-hair-figures.sh [COIF]
set -euo pipefail
coif=${1:-.build/release/coif}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
photos=(/usr/lib/python3/dist-packages/skimage/data/astronaut.png /usr/lib/python3/dist-packages/skimage/data/camera.png
        /usr/share/doc/opencv-doc/examples/data/messi5.jpg)
for i in "${!photos[@]}"; do
    p=${photos[$i]}
    "$coif" render "$p" --style pixie --keep-own-hair --color auburn -o "$work/$i-kept.png" >/dev/null
    mkdir -p "$work/$i-layers"
    "$coif" render "$p" --style pixie --color auburn -o "$work/$i-pixie.png" --layers "$work/$i-layers" >/dev/null
    "$coif" render "$p" --style bob --color auburn -o "$work/$i-bob.png" >/dev/null
    "$coif" landmarks "$p" --json --face largest > "$work/$i.json"
done
recolor=()
for i in "${!photos[@]}"; do
    for c in platinum black copper; do
        "$coif" recolor "${photos[$i]}" --color $c -o "$work/$i-rc-$c.png" >/dev/null
    done
done
/usr/bin/python3 - "$work" "${photos[@]}" <<'PY'
import json, sys
from PIL import Image
work, photos = sys.argv[1], sys.argv[2:]
def crop(i):
    box = json.load(open(f"{work}/{i}.json"))["faces"][0]["box"]
    w = box["right"] - box["left"]; cx = (box["left"] + box["right"]) / 2; cy = (box["top"] + box["bottom"]) / 2 - 0.25 * w
    W, H = Image.open(photos[i]).size
    s = min(2.8 * w, W, H)  # a square inside the photo, moved in from its edges
    x0 = min(max(cx - s / 2, 0), W - s); y0 = min(max(cy - s / 2, 0), H - s)
    return (int(x0), int(y0), int(x0 + s), int(y0 + s))
def sheet(rows, name, size=200):
    cols = max(len(r) for r in rows)
    out = Image.new("RGB", (cols * size, len(rows) * size), "white")
    for y, row in enumerate(rows):
        for x, im in enumerate(row):
            out.paste(im.resize((size, size), Image.LANCZOS), (x * size, y * size))
    out.save(f"docs/{name}", optimize=True)
rows, recolor = [], []
for i, p in enumerate(photos):
    c = crop(i)
    load = lambda f: Image.open(f).convert("RGB").crop(c)
    rows.append([load(p), load(f"{work}/{i}-kept.png"), load(f"{work}/{i}-layers/filled.png"), load(f"{work}/{i}-pixie.png"), load(f"{work}/{i}-bob.png")])
    recolor.append([load(p)] + [load(f"{work}/{i}-rc-{c2}.png") for c2 in ("platinum", "black", "copper")])
sheet(rows, "own-hair-removal.png")
sheet(recolor, "own-hair-recolor.png")
print("wrote docs/own-hair-removal.png docs/own-hair-recolor.png")
PY
