#!/usr/bin/env python3
"""fuzz.py: seeded mutation fuzzing of every parser Coif has, through the real `coif` binary.

Each parser gets real seed inputs (Debian's astronaut.png and messi5.jpg; the shared test data's TressFX
grooms and AFLW2000-3D .mat files when $COIF_TESTDATA, default ../shared/testdata, holds them; USC-HairSalon
.data, OBJ curves, glTF curves, OBJ hair cards, golden manifests and user catalogs made here; the installed
face-mesh network in a model cache of its own). Output-overlap cases are not mutated: each names an input as
an output and must be exit 22 with the input unchanged. A case mutates one seed
(bit flips, interesting integers, truncation, inserted/deleted/duplicated runs, numbers in text swapped for
nan/inf/huge values; for PNG also chunk CRCs repaired so header mutations reach the decoder, and headers
claiming huge sizes, as a decompression bomb's do) and runs one command on
it under a memory limit (RLIMIT_AS) and a time limit. A case fails on:
  - a crash (the process died of a signal) or a hang (over the time limit);
  - an exit code outside the README's "Exit codes" table, or 70 (an internal error is a bug by definition);
  - standard error of more than one line;
  - a file left in the case's output directory (any file after a failure; after success, anything but the
    command's outputs).
Same seed, same cases. Prints one summary line per parser and a final "N passed, N failed" line; exits 1
when any case failed, keeping each failing input (and the command) under --keep.

    scripts/fuzz.py [--seed S] [--cases N] [--coif PATH] [--jobs J] [--memory-mib M] [--timeout-s T]
"""
import argparse
import base64
import concurrent.futures
import hashlib
import json
import math
import os
import random
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASTRONAUT = "/usr/lib/python3/dist-packages/skimage/data/astronaut.png"
MESSI = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"


def readme_exit_codes():
    """The codes in README.md's "Exit codes" table: the only ones a case may end with."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text.split("### Exit codes", 1)[1].split("\n\n", 2)
    table = section[1] if len(section) > 1 else ""
    codes = {int(m.group(1)) for m in re.finditer(r"^\|\s*(\d+)\s*\|", table, re.M)} - {70}
    if not codes:
        sys.exit("fuzz.py: no exit-code table found in README.md")
    return codes


# ── Seeds made here ────────────────────────────────────────────────────────────────────────

def scalp_strands(count=60, points=8):
    """Strands rooted on a cap of a 90 mm sphere, falling down and back: a plausible small groom (mm, +y up)."""
    strands = []
    for i in range(count):
        theta = 0.2 + 1.1 * (i % 10) / 9          # from the crown down
        phi = math.pi * (0.15 + 0.7 * (i // 10) / max(1, (count - 1) // 10))
        root = (90 * math.sin(theta) * math.cos(phi), 90 * math.cos(theta), -90 * math.sin(theta) * math.sin(phi))
        strands.append([(root[0] * (1 + 0.02 * k), root[1] - 12 * k, root[2] - 4 * k) for k in range(points)])
    return strands


def usc_data(strands):
    out = struct.pack("<i", len(strands))
    for s in strands:
        out += struct.pack("<i", len(s)) + b"".join(struct.pack("<fff", *p) for p in s)
    return out


def obj_curves(strands):
    lines, n = ["# strands"], 1
    for s in strands:
        lines += ["v %.3f %.3f %.3f" % p for p in s]
        lines.append("l " + " ".join(str(n + k) for k in range(len(s))))
        n += len(s)
    return ("\n".join(lines) + "\n").encode()


def obj_cards(strands):
    """One textured quad strip per strand, 2 mm wide, v running root (0) to tip (1)."""
    lines, n = ["# hair cards"], 1
    for s in strands:
        for k, p in enumerate(s):
            lines.append("v %.3f %.3f %.3f" % (p[0] - 1, p[1], p[2]))
            lines.append("v %.3f %.3f %.3f" % (p[0] + 1, p[1], p[2]))
            v = k / (len(s) - 1)
            lines += ["vt 0 %.4f" % v, "vt 1 %.4f" % v]
        for k in range(len(s) - 1):
            a = n + 2 * k
            lines.append("f %d/%d %d/%d %d/%d %d/%d" % (a, a, a + 1, a + 1, a + 3, a + 3, a + 2, a + 2))
        n += 2 * len(s)
    return ("\n".join(lines) + "\n").encode()


def gltf_curves(strands):
    """glTF 2.0 with one LINE_STRIP primitive per strand, the buffer inlined as a data URI."""
    data, primitives, accessors, views = b"", [], [], []
    for s in strands:
        offset = len(data)
        data += b"".join(struct.pack("<fff", *p) for p in s)
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": 12 * len(s)})
        xs, ys, zs = zip(*s)
        accessors.append({"bufferView": len(views) - 1, "componentType": 5126, "count": len(s), "type": "VEC3",
                          "min": [min(xs), min(ys), min(zs)], "max": [max(xs), max(ys), max(zs)]})
        primitives.append({"attributes": {"POSITION": len(accessors) - 1}, "mode": 3})
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
           "meshes": [{"primitives": primitives}], "accessors": accessors, "bufferViews": views,
           "buffers": [{"byteLength": len(data), "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}]}
    return json.dumps(doc, indent=1).encode()


def user_catalog():
    """A user catalog (as `coif groom import --out DIR` writes) naming one groom, styles/mine.obj."""
    return json.dumps({"default": "mine", "styles": [
        {"name": "mine", "file": "styles/mine.obj", "description": "fuzz", "tags": ["short"], "guides": 60,
         "pointsPerGuide": 8, "rootWidthMm": 0.3, "tipWidthMm": 0.1}]}, indent=1).encode()


def golden_manifest():
    return json.dumps([
        {"name": "astronaut", "photo": ASTRONAUT, "style": "bob", "color": "auburn", "seed": 7,
         "flags": {"fovDegrees": 50, "detail": 0.5},
         "tolerance": {"threshold": 24, "maxDifferingPercent": 0.5, "ignoreAntialiasing": True}},
    ], indent=1).encode()


def batch_job():
    """A batch job file: the astronaut, two styles, two colours, a variant, an explicit item, small strands."""
    return json.dumps({"photos": [ASTRONAUT], "styles": ["bob", "pixie"], "colors": ["auburn", "#6b3e26"],
                       "variants": [{"name": "soft", "settings": {"noShadows": True}}],
                       "output": "{photo}/{style}-{color}-{variant}.png",
                       "settings": {"keepOwnHair": True, "strands": 200, "seed": 3, "detail": 1},
                       "items": [{"photo": ASTRONAUT, "style": "buzz-cut", "color": "black", "output": "x/{index}.png",
                                  "settings": {"face": "largest", "fovDegrees": 50}}]}, indent=1).encode()


# ── Mutation ───────────────────────────────────────────────────────────────────────────────

INTERESTING = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 4096, 65536]
TEXT_NUMBERS = [b"nan", b"inf", b"-inf", b"1e38", b"-1e38", b"0", b"-1", b"1e308", b"99999999999", b"1.#QNAN"]


def png_bomb(data, rng):
    """The IHDR's width and height set to large values (a decompression bomb's header), CRCs repaired."""
    if len(data) < 33 or data[12:16] != b"IHDR":
        return data
    side = lambda: rng.choice([rng.randrange(1, 1 << 16), rng.randrange(1 << 14, 1 << 20), rng.randrange(1, 1 << 31)])
    return fix_png_crcs(data[:16] + struct.pack(">II", side(), side()) + data[24:])


def fix_png_crcs(data):
    """Recomputes every chunk's CRC, so that a mutated header is read rather than rejected by its CRC."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return data
    out, at = bytearray(data[:8]), 8
    while at + 12 <= len(data):
        length = struct.unpack(">I", data[at:at + 4])[0]
        end = at + 12 + length
        if end > len(data):
            break
        body = data[at + 4:at + 8 + length]
        out += data[at:at + 8 + length] + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
        at = end
    return bytes(out + data[at:])


def mutate(data, rng, text):
    b = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
        if not b:
            b += bytes([rng.randrange(256)])
        # Truncation (op 2) half as often as the rest: it ends most parses at once.
        op = rng.choice([0, 0, 1, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6] + ([7, 7, 7] if text else []))
        at = rng.randrange(len(b))
        if op == 0:  # flip bits
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(b))
                b[i] ^= 1 << rng.randrange(8)
        elif op == 1:  # an interesting integer, 1, 2 or 4 bytes, either byte order
            size = rng.choice([1, 2, 4])
            value = rng.choice(INTERESTING) & ((1 << (8 * size)) - 1)
            b[at:at + size] = value.to_bytes(size, rng.choice(["little", "big"]))
        elif op == 2:  # truncate
            del b[at:]
        elif op == 3:  # insert random bytes
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        elif op == 4:  # delete a run
            del b[at:at + rng.randint(1, 256)]
        elif op == 5:  # duplicate a run
            run = b[at:at + rng.randint(1, 256)]
            b[rng.randrange(len(b) + 1):0] = run
        elif op == 6:  # one random byte
            b[at] = rng.randrange(256)
        else:  # text: a number swapped for a hostile one
            numbers = [m for m in re.finditer(rb"-?\d+(\.\d+)?([eE][-+]?\d+)?", bytes(b[max(0, at - 4096):at + 4096]))]
            if numbers:
                m = rng.choice(numbers)
                base = max(0, at - 4096)
                b[base + m.start():base + m.end()] = rng.choice(TEXT_NUMBERS)
    return bytes(b)


HOSTILE_VALUES = [None, True, -1, 0, 1.5, 1e308, -1e308, 2 ** 63, 2 ** 64, 1e-320, "", "nan", "../../escape.png",
                  "/etc/passwd", "{photo}", "{index}/../../x.png", "{nope}", "{", "a" * 5000, "\u0000", "#zzzzzz",
                  "melanin=99,redness=-3", [], [[]], {}, {"name": 1},
                  # Names that differ from the seed's only in Unicode normalisation (NFC é, NFD e + U+0301).
                  "caf\u00e9.png", "cafe\u0301.png", "{photo}-caf\u00e9.png", "{photo}-cafe\u0301.png"]


def mutate_json(data, rng):
    """Structure-aware: one to three values anywhere in the JSON swapped for hostile ones, a key renamed or
    dropped, or a list emptied or repeated, so most cases parse and reach the checks behind the parser."""
    doc = json.loads(data)
    for _ in range(rng.randint(1, 3)):
        paths = []
        def walk(node, path):
            paths.append(path)
            if isinstance(node, dict):
                for k, v in node.items():
                    walk(v, path + [k])
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    walk(v, path + [i])
        walk(doc, [])
        path = rng.choice(paths[1:])
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        op = rng.randrange(5)
        if op <= 1:
            parent[key] = rng.choice(HOSTILE_VALUES)
        elif op == 2 and isinstance(parent, dict):
            value = parent.pop(key)
            if rng.random() < 0.5:
                parent[key + rng.choice(["s", "X", ""])] = value
        elif op == 3 and isinstance(parent[key], list):
            parent[key] = parent[key] * rng.choice([0, 2, 50])
        else:
            parent[key] = rng.choice(HOSTILE_VALUES)
    text = json.dumps(doc)
    pairs = list(re.finditer(r'"\w+": (?:"[^"\\]*"|-?[\d.eE+-]+|true|false|null)', text))
    if pairs and rng.random() < 0.15:
        # A key given twice in one object (JSON decoders keep the last): refused with the job.
        pair = rng.choice(pairs)
        text = text[:pair.start()] + pair.group(0) + ", " + text[pair.start():]
    return text.encode()


# ── Parsers: seeds and the command that reads each ────────────────────────────────────────

def parsers(testdata):
    """(name, seeds as [(file name, bytes)], text?, command(input, out dir) -> (argv, expected outputs))."""
    out = []
    png = [("astronaut.png", open(ASTRONAUT, "rb").read())] if os.path.exists(ASTRONAUT) else []
    jpg = [("messi5.jpg", open(MESSI, "rb").read())] if os.path.exists(MESSI) else []
    if png:
        # Alternately the photo decoder and coif diff's reader (the file against itself: both decoded).
        out.append(("png", png, False, lambda f, o, i: (["landmarks", f], []) if i % 2 else (["diff", f, f], [])))
    if jpg:
        out.append(("jpeg", jpg, False, lambda f, o, i: (["landmarks", f], [])))
    strands = scalp_strands()
    # Mostly `groom import` (read, check, fit, write); every 8th case a small `preview`, which also
    # resamples, grids and interpolates what was read.
    def groom(f, o, i):
        if i % 8 == 7:
            return ["preview", f, "--size", "64", "--strands", "300", "-o", o + "/p.png"], [o + "/p.png"]
        return ["groom", "import", f, "-o", "x", "--out", o + "/M"], [o + "/M/catalog.json", o + "/M/styles/x.obj"]
    hair3d = os.path.join(testdata, "hair3d")
    tfx = sorted(os.path.join(d, n) for d, _, names in os.walk(hair3d) for n in names if n.endswith(".tfx")) if os.path.isdir(hair3d) else []
    tfx = [t for t in tfx if os.path.getsize(t) < 600_000]  # the small ones: a case must stay quick
    if tfx:
        out.append(("tfx", [(os.path.basename(t), open(t, "rb").read()) for t in tfx], False, groom))
    out.append(("data", [("groom.data", usc_data(strands))], False, groom))
    out.append(("obj-curves", [("curves.obj", obj_curves(strands))], True, groom))
    out.append(("gltf-curves", [("curves.gltf", gltf_curves(strands))], True, groom))
    out.append(("obj-cards", [("cards.obj", obj_cards(strands))], True, groom))
    aflw = os.path.join(testdata, "headpose_aflw2000_3d")
    mats = sorted(n for n in os.listdir(aflw) if n.endswith(".mat")) if os.path.isdir(aflw) else []
    if mats:
        # eval pose over a directory holding one image and its mutated ground truth.
        seeds = [(n, open(os.path.join(aflw, n), "rb").read()) for n in mats]
        out.append(("mat", seeds, False, lambda f, o, i: (["eval", "pose", os.path.dirname(f)], [])))
    out.append(("golden-manifest", [("cases.json", golden_manifest())], True,
                lambda f, o, i: (["golden", "verify", f, "--dir", o + "/goldens"], [])))

    # A user catalog, mutated, beside a sound groom: `coif styles` reads it; every 4th case a small preview
    # of its style.
    def catalog(f, o, i):
        folder = os.path.dirname(f)
        os.makedirs(os.path.join(folder, "styles"), exist_ok=True)
        with open(os.path.join(folder, "styles", "mine.obj"), "wb") as g:
            g.write(obj_curves(strands))
        if i % 4 == 3:
            return ["preview", "mine", "--styles", folder, "--size", "64", "--strands", "300", "-o", o + "/p.png"], [o + "/p.png"]
        return ["styles", "--styles", folder], []
    out.append(("catalog", [("catalog.json", user_catalog())], True, catalog))

    # The model cache: the face mesh's network, mutated, in a cache folder of its own (the other models
    # linked in); half the cases keep its sidecar (the digest refuses it), half have one written for the
    # mutated bytes (OpenCV's ONNX reader and the outputs' shape check see it). `coif landmarks` loads it.
    cache = os.environ.get("COIF_MODELS") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "coif", "models")
    mesh = os.path.join(cache, "face-mesh-468.onnx")
    if os.path.exists(mesh) and png:
        def model(f, o, i):
            folder = os.path.dirname(f)
            for name in os.listdir(cache):
                if not name.startswith("face-mesh-468.onnx"):
                    os.symlink(os.path.join(cache, name), os.path.join(folder, name))
            data = open(f, "rb").read()
            sidecar = open(mesh + ".sha256").read() if i % 2 else "%s %d face-mesh-468.onnx\n" % (hashlib.sha256(data).hexdigest(), len(data))
            with open(f + ".sha256", "w") as g:
                g.write(sidecar)
            return ["landmarks", ASTRONAUT], [], {"COIF_MODELS": folder}
        out.append(("model-cache", [("face-mesh-468.onnx", open(mesh, "rb").read())], False, model))

    # A batch job file, mutated: `coif batch` must refuse it (23, or an option's own code), render it whole,
    # or record its failing items (3); its outputs go beside the job file, so nothing is left in the case's
    # output folder.
    if png:
        out.append(("batch-job", [("job.json", batch_job())], "json",
                    lambda f, o, i: (["batch", f, "--out", os.path.join(os.path.dirname(f), "out")], [])))

    # A short clip (the astronaut, H.264 in MP4 with its index first, as `+faststart` writes it, so a cut
    # file still probes as whole), mutated: `video-join` of it with itself reads every segment's packets
    # through, every 4th case `coif video` decodes and renders its first frames. A cut or damaged stream
    # must be exit 12 (or 11), never a shorter clip with exit 0 while ffmpeg logged an error.
    clip = os.path.join(tempfile.gettempdir(), "coif-fuzz-clip-%d.mp4" % os.getpid())
    if png and shutil.which("ffmpeg") and subprocess.run(
            ["ffmpeg", "-nostdin", "-v", "error", "-y", "-loop", "1", "-framerate", "25", "-i", ASTRONAUT, "-vf",
             "scale=128:128,format=yuv420p", "-frames:v", "12", "-c:v", "libx264", "-g", "4", "-threads", "1",
             "-movflags", "+faststart", clip]).returncode == 0:
        seed = open(clip, "rb").read()
        os.unlink(clip)
        def video(f, o, i):
            if i % 4 == 3:
                return ["video", f, "-o", o + "/v.mp4", "--frames", "0-2", "--progress", "none", "--strands", "200"], [o + "/v.mp4"]
            return ["video-join", f, f, "-o", o + "/j.mp4"], [o + "/j.mp4"]
        out.append(("clip", [("clip.mp4", seed)], False, video))

    # Outputs that are inputs (not mutated): each must be refused with exit 22 before any work, the input
    # left as it was.
    if png:
        def overlap(f, o, i):
            folder = os.path.dirname(f)
            other = os.path.join(folder, "b.png")
            shutil.copy(f, other)
            groom_path = os.path.join(folder, "styles", "mine.obj")
            os.makedirs(os.path.dirname(groom_path), exist_ok=True)
            with open(groom_path, "wb") as g:
                g.write(obj_curves(strands))
            forms = [
                (["diff", f, other, "--heatmap", f], [f]),
                (["diff", f, other, "--heatmap", other], [other]),
                (["render", f, "-o", f], [f]),
                (["recolor", f, "--color", "red", "-o", f], [f]),
                (["sheet", f, "--style", groom_path, "-o", groom_path], [groom_path]),
                (["groom", "import", groom_path, "-o", "mine", "--out", folder], [groom_path]),
                (["render", f, "--style", groom_path, "-o", groom_path], [groom_path]),
                (["preview", groom_path, "-o", groom_path], [groom_path]),
            ]
            argv, kept = forms[i % len(forms)]
            return argv, [], {}, kept
        out.append(("output-overlap", png, None, overlap))
    return out, aflw


def run_case(coif, argv, out_dir, expected, timeout_s, memory_bytes, allowed, env=None, kept=None):
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    before = {k: hashlib.sha256(open(k, "rb").read()).hexdigest() for k in (kept or [])}
    start = time.monotonic()
    try:
        p = subprocess.run([coif] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout_s,
                           preexec_fn=limits, start_new_session=True, env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        return "hang (over %.0f s)" % timeout_s, None, time.monotonic() - start
    seconds = time.monotonic() - start
    rc = p.returncode
    if rc < 0:
        return "crash (signal %d): %s" % (-rc, p.stderr.decode(errors="replace")[-300:]), rc, seconds
    if rc not in allowed:
        return "exit %d is not in the README's table: %s" % (rc, p.stderr.decode(errors="replace")[:300]), rc, seconds
    lines = p.stderr.decode(errors="replace").splitlines()
    if len(lines) > 1:
        return "%d lines on stderr: %s" % (len(lines), " | ".join(lines[:3])[:300]), rc, seconds
    if kept is not None:
        if rc != 22:
            return "exit %d where an output that is an input is 22: %s" % (rc, p.stderr.decode(errors="replace")[:300]), rc, seconds
        changed = [k for k in kept if not os.path.exists(k) or hashlib.sha256(open(k, "rb").read()).hexdigest() != before[k]]
        if changed:
            return "input changed: %s" % ", ".join(changed), rc, seconds
    left = sorted(os.path.join(d, n) for d, _, names in os.walk(out_dir) for n in names)
    stray = [f for f in left if rc != 0 or f not in expected]
    if stray:
        return "left behind after exit %d: %s" % (rc, ", ".join(os.path.relpath(f, out_dir) for f in stray)[:300]), rc, seconds
    return None, rc, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=12, help="cases per parser")
    ap.add_argument("--coif", default=os.path.join(ROOT, ".build/debug/coif"))
    ap.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--memory-mib", type=int, default=2048, help="address-space limit per case (RLIMIT_AS)")
    ap.add_argument("--timeout-s", type=float, default=30)
    ap.add_argument("--keep", default=os.path.join(ROOT, ".build/fuzz-failures"), help="where failing inputs are kept")
    ap.add_argument("--only", help="comma-separated parser names")
    args = ap.parse_args()

    testdata = os.environ.get("COIF_TESTDATA") or os.path.join(ROOT, "..", "shared", "testdata")
    allowed = readme_exit_codes()
    coif = os.path.abspath(args.coif)
    if not os.access(coif, os.X_OK):
        sys.exit("fuzz.py: no coif binary at %s (swift build first)" % coif)
    table, aflw = parsers(testdata)
    if args.only:
        table = [t for t in table if t[0] in args.only.split(",")]
    work = tempfile.mkdtemp(prefix="coif-fuzz-")
    total_pass = total_fail = 0
    try:
        for name, seeds, text, command in table:
            cases = []
            for i in range(args.cases):
                rng = random.Random("%d/%s/%d" % (args.seed, name, i))
                seed_name, seed_bytes = seeds[i % len(seeds)]
                data = seed_bytes if text is None else (
                    mutate_json(seed_bytes, rng) if text == "json" and rng.random() < 0.5 else mutate(seed_bytes, rng, text))
                if name == "png":
                    roll = rng.random()
                    data = png_bomb(seed_bytes, rng) if roll < 0.25 else fix_png_crcs(data) if roll < 0.6 else data
                case_dir = os.path.join(work, name, str(i))
                in_dir, out_dir = os.path.join(case_dir, "in"), os.path.join(case_dir, "out")
                os.makedirs(in_dir)
                os.makedirs(out_dir)
                path = os.path.join(in_dir, seed_name)
                if name == "mat":  # beside its image, as eval pose expects
                    shutil.copy(os.path.join(aflw, seed_name[:-4] + ".jpg"), in_dir)
                with open(path, "wb") as f:
                    f.write(data)
                made = command(path, out_dir, i)
                argv, expected = made[0], made[1]
                env = made[2] if len(made) > 2 else None
                kept = made[3] if len(made) > 3 else None
                cases.append((i, path, argv, out_dir, expected, env, kept))
            failures, codes, slowest = [], {}, 0.0
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                futures = {pool.submit(run_case, coif, argv, out_dir, expected, args.timeout_s, args.memory_mib << 20,
                                       allowed, env, kept): (i, path, argv) for i, path, argv, out_dir, expected, env, kept in cases}
                for future in concurrent.futures.as_completed(futures):
                    i, path, argv = futures[future]
                    problem, rc, seconds = future.result()
                    slowest = max(slowest, seconds)
                    codes[rc] = codes.get(rc, 0) + 1
                    if problem:
                        failures.append((i, path, argv, problem))
            for i, path, argv, problem in sorted(failures):
                keep = os.path.join(args.keep, name, str(i))
                shutil.rmtree(keep, ignore_errors=True)
                shutil.copytree(os.path.dirname(path), keep)
                print("  FAIL %s case %d: %s\n    coif %s   (input kept in %s)" % (name, i, problem, " ".join(argv), keep))
            shown = ", ".join("%s×%d" % ("hang" if rc is None else rc, n) for rc, n in sorted(codes.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))
            print("%-16s %4d cases, %4d passed, %3d failed; exit codes %s; slowest %.1f s" %
                  (name, len(cases), len(cases) - len(failures), len(failures), shown, slowest), flush=True)
            total_pass += len(cases) - len(failures)
            total_fail += len(failures)
            shutil.rmtree(os.path.join(work, name), ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (total_pass, total_fail))
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
