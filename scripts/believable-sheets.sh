#!/usr/bin/env bash
# Contact sheets of the four judged styles (buzz-cut, pixie, bob, long-wavy) on eight varied portraits from the
# shared test data, and `coif eval believable` over all of its portraits, for looking at locally. The
# portraits' licences do not allow publishing renders of them (shared/testdata MANIFEST section 7), so these
# stay in out/believable/ and are not committed; the committed pictures in docs/ use Debian's photos.
# usage: believable-sheets.sh [COIF]   (COIF_TESTDATA: the shared test data, default ../shared/testdata)
set -euo pipefail
coif=${1:-.build/release/coif}
portraits=${COIF_TESTDATA:-../shared/testdata}/portraits
[ -d "$portraits" ] || { echo "believable-sheets: $portraits is absent (set COIF_TESTDATA)" >&2; exit 2; }
out=out/believable
mkdir -p "$out"
# Straight, wavy, curly and coily hair; light and dark skin; plain, busy and foliage backgrounds; a fringe.
for p in barbershop_16.png deep3dfacerecon_000126.jpg facerec_img2.jpg fairface_race_Black.jpg \
         liveportrait_d9.jpg u2net_img_1588.png deepface_img11.jpg deca_image00480.jpg; do
    "$coif" sheet "$portraits/$p" --style buzz-cut,pixie,bob,long-wavy --colors auburn --tile 256 -o "$out/${p%.*}.png" >/dev/null
    echo "wrote $out/${p%.*}.png"
done
"$coif" eval believable "$portraits"/* --images "$out/renders" | tee "$out/believable.txt"
