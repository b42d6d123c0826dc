// TryOnCaches: what the engine keeps between stills: strands on the GPU by style, level of detail and seed
// (most recently used last) and under-layers by style. What a photo's try-ons share (its parse, its plate)
// is AnalysedPhoto's.
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

