#!/usr/bin/env bash
# Regenerates docs/look.md's colour pictures from photos Coif may publish renders of (docs/pictures.md):
#  docs/look-swatches.jpg        each preset on Coif's head (coif preview, the portrait lights) over a block of
#                                its reference colour (coif eval look --presets);
#  docs/look-swatches-photos.jpg own and every preset, long-wavy, on astronaut.png and camera.png;
#  docs/look-light.jpg           the lob in brown under Coif's portrait lights (top) and the light read from
#                                each face (bottom), astronaut.png and camera.png.
# usage: look-figures.sh [COIF]
set -euo pipefail
coif=${1:-.build/release/coif}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
skimage=/usr/lib/python3/dist-packages/skimage/data
photos=("$skimage/astronaut.png" "$skimage/camera.png")
"$coif" eval look --presets --json > "$work/presets.json"
presets=$(/usr/bin/python3 -c 'import json,sys; print(" ".join(r["preset"] for r in json.load(open(sys.argv[1]))))' "$work/presets.json")
for p in $presets; do "$coif" preview bob --color "$p" --size 240 -o "$work/head-$p.png" >/dev/null; done
for i in "${!photos[@]}"; do
    "$coif" landmarks "${photos[$i]}" --json --face largest > "$work/$i.json"
    for c in own $presets; do "$coif" render "${photos[$i]}" --style long-wavy --color "$c" -o "$work/$i-$c.png" >/dev/null; done
    "$coif" render "${photos[$i]}" --style lob --color brown --studio-light -o "$work/$i-studio.png" >/dev/null
    "$coif" render "${photos[$i]}" --style lob --color brown -o "$work/$i-photo.png" >/dev/null
done
/usr/bin/python3 - "$work" "$presets" "${photos[@]}" <<'PY'
import json, sys
from PIL import Image, ImageDraw
work, presets, photos = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
rows = {r["preset"]: r for r in json.load(open(f"{work}/presets.json"))}
def crop(i, scale=2.6):
    box = json.load(open(f"{work}/{i}.json"))["faces"][0]["box"]
    w = box["right"] - box["left"]; cx = (box["left"] + box["right"]) / 2; cy = (box["top"] + box["bottom"]) / 2 + 0.05 * w
    W, H = Image.open(photos[i]).size
    s = min(scale * w, W, H)
    x0 = min(max(cx - s / 2, 0), W - s); y0 = min(max(cy - s / 2, 0), H - s)
    return (int(x0), int(y0), int(x0 + s), int(y0 + s))
def label(im, text):
    d = ImageDraw.Draw(im); d.rectangle((0, im.height - 14, im.width, im.height), fill="white"); d.text((3, im.height - 13), text, fill="black")
    return im
size = 160
# Presets on Coif's head over their reference colour.
out = Image.new("RGB", (len(presets) * size, size + 60), "white")
for k, p in enumerate(presets):
    head = Image.open(f"{work}/head-{p}.png").convert("RGB").crop((30, 0, 210, 180)).resize((size, size), Image.LANCZOS)
    out.paste(head, (k * size, 0))
    ImageDraw.Draw(out).rectangle((k * size + 8, size + 4, (k + 1) * size - 8, size + 40), fill=rows[p]["reference"])
    ImageDraw.Draw(out).text((k * size + 8, size + 44), f"{p} {rows[p]['reference']}", fill="black")
out.save("docs/look-swatches.jpg", quality=88)
# Own and every preset on the two photos.
colors = ["own"] + presets
out = Image.new("RGB", ((len(colors) + 1) * size, len(photos) * size), "white")
for i, p in enumerate(photos):
    c = crop(i)
    out.paste(label(Image.open(p).convert("RGB").crop(c).resize((size, size), Image.LANCZOS), "photo"), (0, i * size))
    for k, col in enumerate(colors):
        out.paste(label(Image.open(f"{work}/{i}-{col}.png").convert("RGB").crop(c).resize((size, size), Image.LANCZOS), col), ((k + 1) * size, i * size))
out.save("docs/look-swatches-photos.jpg", quality=88)
# Studio lights against the photo's.
out = Image.new("RGB", (len(photos) * 240, 2 * 240), "white")
for i, p in enumerate(photos):
    c = crop(i, 2.2)
    for r, kind in enumerate(["studio", "photo"]):
        out.paste(Image.open(f"{work}/{i}-{kind}.png").convert("RGB").crop(c).resize((240, 240), Image.LANCZOS), (i * 240, r * 240))
out.save("docs/look-light.jpg", quality=88)
print("wrote docs/look-swatches.jpg docs/look-swatches-photos.jpg docs/look-light.jpg")
PY
