// TryOnCaches: what the engine keeps between stills: strands on the GPU by style, level of detail and seed
// (most recently used last), under-layers by style, and the key that says which frame a plate was made for.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation
import Logging

extension TryOnEngine {
    // MARK: - GPU caches

    /// Guides + children for a style at a level of detail, on the GPU (see `strandCache`).
    func strandGeometry(style: Style, lod: LevelOfDetail, seed: UInt64, slide: ScalpSlide?) throws -> StrandGeometry {
        let key = "\(style.key)|\(lod.strandCount)|\(lod.pointsPerStrand)|\(seed)" + StyleLibrary.slideKey(slide)
        if let i = strandCache.firstIndex(where: { $0.key == key }) {
            let hit = strandCache.remove(at: i)
            strandCache.append(hit)
            return hit.geometry
        }
        let strands = try styles.strands(style, count: lod.strandCount, pointsPerStrand: lod.pointsPerStrand, seed: seed, slide: slide)
        if strandCache.count >= Self.strandCacheSlots { strandCache.removeFirst() }
        let geometry = renderer.upload(strands: strands, seed: seed,
                                       coverWidthMm: LevelOfDetail.coverWidthMm(style.entry, strandCount: strands.strandCount))
        strandCache.append((key, geometry))
        return geometry
    }

    /// The style's under-layer on the GPU: scalp triangles within `Groom.underLayerRadiusMm` of a guide root.
    func shellGeometry(style: Style, slide: ScalpSlide?) throws -> ShellGeometry {
        let key = style.key + StyleLibrary.slideKey(slide)
        if let shell = shells[key] { return shell }
        let shell = renderer.upload(try styles.underLayer(style, slid: slide), over: occluder)
        // Slid shells differ per photo: a long batch keeps the last few dozen, not one per photo.
        if shells.count >= 32 { shells.removeAll() }
        shells[key] = shell
        return shell
    }
}


/// Which frame, faces and seed a plate was made for: the pixels by a 64-bit hash (so two frames with the
/// same label but other pixels differ), the face boxes and the seed.
struct PlateKey: Equatable {
    var pixels: UInt64
    var width: Int, height: Int
    var boxes: [FaceBox]
    /// The camera the faces were solved with: HeadSizing refits it, so another field of view is another plate.
    var intrinsics: [PinholeCamera]
    var seed: UInt64

    init(_ analyses: [PhotoAnalysis], seed: UInt64) {
        let image = analyses[0].frame.image
        width = image.width
        height = image.height
        boxes = analyses.map(\.chosen.box)
        intrinsics = analyses.map(\.intrinsics)
        self.seed = seed
        // Four multiply–rotate lanes over 8-byte words (a few GB/s), then the tail bytes.
        var lanes: SIMD4<UInt64> = [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5]
        pixels = image.pixels.withUnsafeBytes { raw -> UInt64 in
            let words = raw.count / 8
            var i = 0
            while i + 4 <= words {
                var v = SIMD4<UInt64>(raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self),
                                      raw.loadUnaligned(fromByteOffset: (i + 1) * 8, as: UInt64.self),
                                      raw.loadUnaligned(fromByteOffset: (i + 2) * 8, as: UInt64.self),
                                      raw.loadUnaligned(fromByteOffset: (i + 3) * 8, as: UInt64.self))
                v &*= 0x87C37B91114253D5
                lanes = (lanes ^ v) &* 0x4CF5AD432745937F
                lanes = (lanes &<< 31) | (lanes &>> 33)
                i += 4
            }
            var h = lanes[0] ^ (lanes[1] &* 3) ^ (lanes[2] &* 5) ^ (lanes[3] &* 7)
            for b in (i * 8)..<raw.count { h = (h ^ UInt64(raw[b])) &* 0x100000001B3 }
            return h
        }
    }
}
