// KeyLightShadowTests: the key light's depth map on a real EGL context. The head's shadow takes the key
// light off hair behind it, a strand between the light and another darkens the other and not itself,
// coverage never changes, and the light's projection holds the scene's sphere.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
@testable import CoifRender
import XCTest

final class KeyLightShadowTests: XCTestCase {
    let camera = PinholeCamera(widthPx: 64, heightPx: 64, fx: 80, fy: 80, cx: 31.5, cy: 31.5)
    /// Frontal: head space's x, y, z are the view's (up to the translation).
    let headToCamera = Mat4.rigid(rotationRowMajor: [1, 0, 0, 0, -1, 0, 0, 0, -1], translation: SIMD3(0, 0, 300))
    let widths = StrandWidths(rootMm: 6, tipMm: 6)

    private func render(_ renderer: HairRenderer, head: OccluderGeometry, strands: StrandGeometry, lighting: Lighting) throws -> HairLayer {
        try renderer.draw(camera: camera, headToCamera: headToCamera, occluder: head, shell: nil, strands: strands, widths: widths,
                          shading: HairShading(color: try HairColor.parse("blonde")), lighting: lighting)
        var layer = HairLayer()
        try renderer.readBack(into: &layer)
        return layer
    }

    private func makeRenderer() throws -> HairRenderer {
        try HairRenderer(context: try RenderPassTests.makeContext(), shaderSource: { Assets.text("Shaders/" + $0) })
    }

    /// Mean premultiplied RGB sum and covered pixel count over the columns `columns`.
    private func radiance(_ layer: HairLayer, columns: Range<Int>) -> (sum: Float, covered: Int) {
        var sum: Float = 0, covered = 0
        for y in 0..<layer.height {
            for x in columns {
                let i = (y * layer.width + x) * 4
                if layer.rgba[i + 3] > 0 { covered += 1 }
                sum += layer.rgba[i] + layer.rgba[i + 1] + layer.rgba[i + 2]
            }
        }
        return (sum, covered)
    }

    /// A key light straight behind the head: the head stands between it and strands in front of the face,
    /// so with shadows the picture is the one with no key light at all; without, the key's light shows.
    func testTheHeadShadowsHairFromALightBehindIt() throws {
        let renderer = try makeRenderer()
        let head = renderer.upload(head: HeadModel(vertices: [Vec3(-80, -80, 0), Vec3(80, -80, 0), Vec3(0, 90, 0)], indices: [0, 1, 2],
                                                   scalpTriangles: [], landmarks68: [Vec3](repeating: .zero, count: 68)))
        let strands = renderer.upload(strands: StrandSet(pointsPerStrand: 3, positions: [
            Vec3(-10, 40, 40), Vec3(-8, 0, 40), Vec3(-6, -40, 40), Vec3(10, 40, 40), Vec3(8, 0, 40), Vec3(6, -40, 40),
        ]), seed: 3, coverWidthMm: nil)
        var lighting = Lighting(keyDirection: Vec3(0, 0.2, -1), keyRadiance: Vec3(4, 4, 4))
        let shadowed = try render(renderer, head: head, strands: strands, lighting: lighting)
        lighting.keyShadow = nil
        let open = try render(renderer, head: head, strands: strands, lighting: lighting)
        lighting.keyRadiance = .zero
        let unlit = try render(renderer, head: head, strands: strands, lighting: lighting)
        let all = 0..<camera.widthPx
        XCTAssertEqual(radiance(shadowed, columns: all).covered, radiance(open, columns: all).covered, "shadows change colour, not coverage")
        XCTAssertGreaterThan(radiance(shadowed, columns: all).covered, 50)
        XCTAssertEqual(radiance(shadowed, columns: all).sum, radiance(unlit, columns: all).sum, accuracy: radiance(unlit, columns: all).sum * 0.01)
        XCTAssertGreaterThan(radiance(open, columns: all).sum, radiance(unlit, columns: all).sum * 1.2, "the back light shows without shadows")
    }

    /// A light from the subject's right-hand side (-x): the strand at -x stands between it and the one at
    /// +x. The far strand darkens; the near one keeps its light (a strand does not shadow itself).
    func testAStrandShadowsTheStrandBehindItAndNotItself() throws {
        let renderer = try makeRenderer()
        let head = renderer.upload(head: HeadModel(vertices: [Vec3(-5, -5, -200), Vec3(5, -5, -200), Vec3(0, 5, -200)], indices: [0, 1, 2],
                                                   scalpTriangles: [], landmarks68: [Vec3](repeating: .zero, count: 68)))
        // Each "strand" a dense sheet of parallel strands (a clump) 20 mm across in z, so the light crosses
        // real thickness.
        var positions: [Vec3] = []
        for x: Float in [-25, 25] {
            for k in 0..<10 {
                let z = 30 + Float(k) * 2
                positions += [Vec3(x, 40, z), Vec3(x, 0, z), Vec3(x, -40, z)]
            }
        }
        let strands = renderer.upload(strands: StrandSet(pointsPerStrand: 3, positions: positions), seed: 5, coverWidthMm: nil)
        var lighting = Lighting(keyDirection: Vec3(-1, 0, 0.05), fillRadiance: .zero, ambientRadiance: .zero)
        let shadowed = try render(renderer, head: head, strands: strands, lighting: lighting)
        lighting.keyShadow = nil
        let open = try render(renderer, head: head, strands: strands, lighting: lighting)
        let near = 0..<(camera.widthPx / 2), far = (camera.widthPx / 2)..<camera.widthPx
        XCTAssertGreaterThan(radiance(open, columns: far).covered, 30)
        XCTAssertLessThan(radiance(shadowed, columns: far).sum, radiance(open, columns: far).sum * 0.3, "the far clump is in the near one's shadow")
        XCTAssertGreaterThan(radiance(shadowed, columns: near).sum, radiance(open, columns: near).sum * 0.5, "the near clump is lit")
    }

    /// The hair's shadow on the skin: a clump in front of a face-sized plate, the key light from the front
    /// and above: the plate behind the clump (along the light) keeps less of its light, the plate away from
    /// it all of it, off the head nothing is written (1), and the head's own shading is not counted (the
    /// plate alone, with no hair, keeps all its light everywhere). Shadows off: no skin shadow at all. The
    /// head is marked in alpha, and the hair's occlusion (HairOcclusion) darkens the head beside the clump,
    /// less farther off, and neither far from it nor off the head.
    func testHairShadowsTheSkinAndOnlyTheHair() throws {
        let renderer = try makeRenderer()
        // A 120 mm plate, its vertices 10 mm apart as Coif's head's are (the skin's shadow is read per vertex).
        var vertices: [Vec3] = [], indices: [UInt32] = []
        for j in 0...12 { for i in 0...12 { vertices.append(Vec3(-60 + Float(i) * 10, -60 + Float(j) * 10, 0)) } }
        for j in 0..<12 {
            for i in 0..<12 {
                let a = UInt32(j * 13 + i)
                indices += [a, a + 1, a + 14, a, a + 14, a + 13]
            }
        }
        let plate = renderer.upload(head: HeadModel(vertices: vertices, indices: indices, scalpTriangles: [],
                                                    landmarks68: [Vec3](repeating: .zero, count: 68)))
        var positions: [Vec3] = []
        for k in 0..<12 {  // a sheet of strands 12 mm in front of the plate's upper left
            let x = -40 + Float(k) * 2
            positions += [Vec3(x, 50, 12), Vec3(x, 30, 12), Vec3(x, 10, 12)]
        }
        let strands = renderer.upload(strands: StrandSet(pointsPerStrand: 3, positions: positions), seed: 2, coverWidthMm: nil)
        let empty = renderer.upload(strands: StrandSet(pointsPerStrand: 3, positions: [Vec3(0, 0, -500), Vec3(0, 1, -500), Vec3(0, 2, -500)]), seed: 2, coverWidthMm: nil)
        let lighting = Lighting(keyDirection: Vec3(0, 0.3, 1), fillRadiance: .zero, ambientRadiance: Vec3(repeating: 0.2))
        func skinLight(_ strands: StrandGeometry, _ lighting: Lighting) throws -> HairLayer? {
            try renderer.draw(camera: camera, headToCamera: headToCamera, occluder: plate, shell: nil, strands: strands, widths: widths,
                              shading: HairShading(color: try HairColor.parse("black")), lighting: lighting)
            var hair = HairLayer(), skin = HairLayer()
            try renderer.readBack(into: &hair)
            return try renderer.readSkinLight(into: &skin) ? skin : nil
        }
        let shadowed = try XCTUnwrap(try skinLight(strands, lighting))
        // Where on the plate (head x, y) lands in the image: frontal, 300 mm away, f = 80 px.
        func pixel(_ x: Float, _ y: Float) -> Int {
            let p = camera.project(headToCamera.transformPoint(Vec3(x, y, 0)))
            return Int(p.y) * shadowed.width + Int(p.x)
        }
        func at(_ x: Float, _ y: Float, _ layer: HairLayer) -> Float { layer.rgba[pixel(x, y) * 4] }
        XCTAssertLessThan(at(-30, 25, shadowed), 0.85, "behind the sheet along the light")
        XCTAssertEqual(at(30, -40, shadowed), 1, accuracy: 1e-3, "away from the sheet")
        XCTAssertEqual(shadowed.rgba[0], 1, "off the head")
        XCTAssertEqual(shadowed.rgba[3], 0, "off the head: no head for the hair to occlude")
        XCTAssertEqual(shadowed.rgba[pixel(30, -40) * 4 + 3], 1, "on the head")

        // The hair's occlusion (HairOcclusion): the head's light falls beside the sheet, less farther off,
        // not at all far away or off the head.
        var hair = HairLayer()
        try renderer.draw(camera: camera, headToCamera: headToCamera, occluder: plate, shell: nil, strands: strands, widths: widths,
                          shading: HairShading(color: try HairColor.parse("black")), lighting: lighting)
        try renderer.readBack(into: &hair)
        var occluded = shadowed, scratch: [Float] = []
        HairOcclusion.apply(to: &occluded, hair: hair, reachPx: 6, scratch: &scratch)
        func ratio(_ x: Float, _ y: Float) -> Float { occluded.rgba[pixel(x, y) * 4] / shadowed.rgba[pixel(x, y) * 4] }
        print(String(format: "KeyLightShadowTests: the hair's occlusion leaves %.3f of the light 2 mm below the sheet, %.3f at 8 mm, %.3f far off",
                     ratio(-30, 8), ratio(-30, 2), ratio(30, -40)))
        XCTAssertLessThan(ratio(-30, 8), 0.95, "just below the sheet")
        XCTAssertGreaterThan(ratio(-30, 8), 1 - HairOcclusion.strength - 1e-3)
        XCTAssertGreaterThan(ratio(-30, 2), ratio(-30, 8), "less occlusion farther from the hair")
        XCTAssertEqual(ratio(30, -40), 1, accuracy: 1e-4, "far from the hair")
        XCTAssertEqual(occluded.rgba[0], 1, "off the head")
        let bare = try XCTUnwrap(try skinLight(empty, lighting))
        XCTAssertEqual(bare.rgba.enumerated().filter { $0.offset % 4 == 0 }.map(\.element).min() ?? 0, 1, accuracy: 1e-3,
                       "no hair, no skin shadow (the head does not shadow itself here)")
        var off = lighting
        off.keyShadow = nil
        XCTAssertNil(try skinLight(strands, off))
    }

    /// The composite darkens the photo by the light left, in linear light, only where it is below 1, and
    /// leaves the hair's matte alone.
    func testTheCompositeDarkensThePhotoByTheLightLeft() {
        let photo = PixelImage(width: 8, height: 8, channels: 3, pixels: [UInt8](repeating: 200, count: 8 * 8 * 3))
        let layer = HairLayer(width: 8, height: 8)
        var left = HairLayer(width: 8, height: 8)
        for p in 0..<64 { left.rgba[p * 4] = p % 8 < 4 ? 0.5 : 1 }
        let out = Compositor().composite(layer: layer, at: PixelRect(x: 0, y: 0, width: 8, height: 8), over: photo, lightLeft: left)
        let expected = UInt8((linearToSrgb(srgbToLinear(200 / 255) * 0.5) * 255).rounded())
        for p in 0..<64 {
            XCTAssertEqual(out.composite.pixels[p * 3], p % 8 < 4 ? expected : 200)
        }
        XCTAssertEqual(out.matte.pixels, [UInt8](repeating: 0, count: 64))
    }

    /// The light's projection puts the sphere it was made for inside the clip cube, nearest the light at
    /// depth −1, and its depth range is the sphere's diameter.
    func testTheLightViewHoldsItsSphere() {
        let headToView = PinholeCamera.cameraToView * headToCamera
        let center = Vec3(5, 20, -10), radius: Float = 150
        let view = KeyLightView(keyDirectionView: Vec3(-0.35, 0.65, 0.68), headToView: headToView, center: center, radius: radius)
        let toLight = normalize(Vec3(-0.35, 0.65, 0.68))  // frontal: head directions are view directions
        let nearest = view.headToLightClip * Vec4(center.x + toLight.x * radius, center.y + toLight.y * radius, center.z + toLight.z * radius, 1)
        let farthest = view.headToLightClip * Vec4(center.x - toLight.x * radius, center.y - toLight.y * radius, center.z - toLight.z * radius, 1)
        XCTAssertEqual(nearest.z, -1, accuracy: 1e-4)
        XCTAssertEqual(farthest.z, 1, accuracy: 1e-4)
        XCTAssertEqual(view.depthRangeMm, 2 * radius)
        for direction in [Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1), normalize(Vec3(1, -1, 1))] {
            let p = center + direction * radius
            let clip = view.headToLightClip * Vec4(p.x, p.y, p.z, 1)
            XCTAssertLessThanOrEqual(max(abs(clip.x), abs(clip.y), abs(clip.z)), 1.0001)
        }
    }
}
