// swift-tools-version: 6.0
// Coif: headless GPU hair try-on. One target per concern (a pipeline stage, the try-on that runs them, video,
// the farm, reports, evaluation); the compiler enforces who may use whom (docs/architecture.md has the table).
// System libraries come from Debian packages that `make setup` installs.
import PackageDescription

let release: [CXXSetting] = [.define("NDEBUG", .when(configuration: .release))]

let package = Package(
    name: "Coif",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "coif", targets: ["coif"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // ── System libraries ──────────────────────────────────────────────────────────────
        .systemLibrary(name: "CEGL", pkgConfig: "egl"),
        .systemLibrary(name: "CAssimp", pkgConfig: "assimp"),
        // libpng: the simplified read API directly, and a small C encoder (setjmp error handling).
        .target(
            name: "CPNG",
            cSettings: [.unsafeFlags(["-I/usr/include/libpng16"]), .define("NDEBUG", .when(configuration: .release))],
            linkerSettings: [.linkedLibrary("png16")]
        ),

        // Linux constants Swift's Glibc module does not import (O_TMPFILE), from the C headers.
        .target(name: "CSystem"),

        // ── The only C++: dlib faces + landmarks, OpenCV solvePnP, image decode (libjpeg/libpng/libexif)
        .target(
            name: "CVision",
            cxxSettings: release + [
                .define("DLIB_NO_GUI_SUPPORT"),
                .unsafeFlags(["-I/usr/include/opencv4", "-O2", "-Wno-deprecated-declarations"]),
            ],
            linkerSettings: [
                .linkedLibrary("dlib"), .linkedLibrary("opencv_calib3d"), .linkedLibrary("opencv_core"),
                // objdetect: the profile-face fallback cascade. libmatio (AFLW2000-3D .mat files, coif eval
                // pose) is opened on first use, not linked: see mat_file.cpp.
                .linkedLibrary("opencv_objdetect"), .linkedLibrary("dl"),
                // The own-hair stages: the face-parsing network (dnn), resampling (imgproc), the matte's
                // guided filter (ximgproc, Debian's libopencv-contrib-dev).
                .linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_ximgproc"),
                .linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("exif"),
                .linkedLibrary("lapack"), .linkedLibrary("blas"), .linkedLibrary("stdc++"),
                // Model files' SHA-256 (file_digest.cpp): OpenSSL's libcrypto, Debian's libssl-dev.
                .linkedLibrary("crypto"),
            ]
        ),

        // ── Swift modules, left to right along the pipeline ───────────────────────────────
        .target(name: "CoifCore", dependencies: ["CSystem"]),
        .target(name: "CoifAssets", plugins: [.plugin(name: "EmbedAssets")]),
        .target(name: "CoifMedia", dependencies: ["CoifCore", "CPNG", "CVision"]),
        .target(name: "CoifVision", dependencies: ["CoifCore", "CVision"]),
        // Optimised even in debug builds: the generator and the distance field are SIMD-heavy math that
        // runs ~20x slower unoptimised, which would dominate `swift test`.
        .target(name: "CoifGroom", dependencies: ["CoifCore", "CAssimp"], swiftSettings: [.unsafeFlags(["-O"])]),
        .target(name: "CoifGPU", dependencies: ["CoifCore", "CEGL"]),
        .target(name: "CoifRender", dependencies: ["CoifCore", "CoifGPU", "CoifGroom"]),
        .target(name: "CoifDiff", dependencies: ["CoifCore", "CoifMedia"]),
        // The production path: the try-on's stages, the engine, previews, sheets, recolour.
        .target(
            name: "CoifPipeline",
            dependencies: [
                "CoifCore", "CoifAssets", "CoifMedia", "CoifVision", "CoifGroom", "CoifGPU", "CoifRender",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Video: a clip through the try-on's stages on threads joined by bounded queues (clip I/O is CoifMedia's).
        // Uses only the try-on's public API.
        .target(
            name: "CoifVideo",
            dependencies: [
                "CoifCore", "CoifMedia", "CoifVision", "CoifGroom", "CoifRender", "CoifPipeline",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The render farm: batch jobs (photos × styles × colours), their shards for Slurm and Kubernetes, the
        // resumable runner and its report. Uses only the try-on's public API.
        .target(
            name: "CoifFarm",
            dependencies: [
                "CoifCore", "CoifMedia", "CoifVision", "CoifGroom", "CoifRender", "CoifPipeline",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Reports over many renders: a batch's HTML report and a clip's timing chart.
        .target(name: "CoifReports", dependencies: ["CoifCore", "CoifMedia", "CoifFarm"]),
        // Tooling around it, as swift-nio keeps NIOEmbedded apart: golden suites, the vision and look
        // evaluations, robustness, the groom benchmark. The only user of CoifDiff besides `coif diff`.
        .target(
            name: "CoifEval",
            dependencies: ["CoifCore", "CoifMedia", "CoifVision", "CoifGroom", "CoifRender", "CoifPipeline", "CoifVideo", "CoifDiff"]
        ),
        .executableTarget(
            name: "coif",
            // Every module it imports, declared (none reached through another's dependencies).
            dependencies: [
                "CoifPipeline", "CoifVideo", "CoifFarm", "CoifReports", "CoifEval", "CoifDiff", "CoifCore", "CoifGroom", "CoifMedia", "CoifRender", "CoifVision",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // ── Build-time embedding of Shaders/ and Meshes/ into the binary ─────────────────
        .executableTarget(name: "coif-embed"),
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["coif-embed"]),

        .testTarget(
            name: "CoifTests",
            dependencies: ["CoifPipeline", "CoifVideo", "CoifFarm", "CoifReports", "CoifEval", "CoifDiff", "CoifCore", "CoifMedia", "CoifVision", "CoifGroom",
                           "CoifGPU", "CoifRender", "CoifAssets", "CVision", .product(name: "Logging", package: "swift-log")]
        ),
    ],
    cxxLanguageStandard: .cxx17
)
