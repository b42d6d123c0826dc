// RenderPassTests: a frame as a list of passes on a real EGL context (llvmpipe here). The standard list run
// through `render` gives draw()'s bytes; a pass appended to it runs in order; the std140 structs agree with
// the offsets the GL linker reports; GPU timing is off on llvmpipe and works where a driver has trustworthy
// timer queries; CoifRender issues no GL itself.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
@testable import CoifRender
import Foundation
import XCTest

final class RenderPassTests: XCTestCase {
    /// A renderer and a small scene: a head triangle, a shell over it, two strands in front of it.
    struct Scene {
        let renderer: HairRenderer
        let occluder: OccluderGeometry
        let shell: ShellGeometry
        let strands: StrandGeometry
        let camera = PinholeCamera(widthPx: 48, heightPx: 48, fx: 60, fy: 60, cx: 23.5, cy: 23.5)
        let headToCamera = Mat4.rigid(rotationRowMajor: [1, 0, 0, 0, -1, 0, 0, 0, -1], translation: SIMD3(0, 0, 300))
        let widths = StrandWidths(rootMm: 6, tipMm: 3)
        var look = HairLook(color: HairColor(srgb: Vec3(0.55, 0.3, 0.15), name: "test"))

        var frame: FrameDescription { FrameDescription(camera: camera, headToCamera: headToCamera, look: look) }

        func readBack() throws -> HairLayer {
            var layer = HairLayer()
            try renderer.readBack(into: &layer)
            return layer
        }
    }

    static func makeContext() throws -> GPUContext {
        do { return try GPUContext() } catch {
            print("RenderPassTests: skipping, no EGL context can be made here: \(error)")
            throw XCTSkip("no EGL context: \(error)")
        }
    }

    static func makeScene(context: GPUContext) throws -> Scene {
        let renderer = try HairRenderer(context: context, shaderSource: { Assets.text("Shaders/" + $0) })
        let head = HeadModel(vertices: [Vec3(-60, -60, 0), Vec3(60, -60, 0), Vec3(0, 70, 0)], indices: [0, 1, 2],
                             scalpTriangles: [], landmarks68: [Vec3](repeating: .zero, count: 68))
        let occluder = renderer.upload(head: head)
        let shell = renderer.upload(UnderLayer(triangles: [0, 1, 2], edgeCover: [1, 1, 1]), over: occluder)
        let strands = renderer.upload(strands: StrandSet(pointsPerStrand: 3, positions: [
            Vec3(-20, 50, 40), Vec3(-15, 0, 50), Vec3(-10, -50, 40),
            Vec3(25, 50, 30), Vec3(20, 0, 45), Vec3(15, -50, 30),
        ]), seed: 7, coverWidthMm: nil)
        return Scene(renderer: renderer, occluder: occluder, shell: shell, strands: strands)
    }

    /// A strand flagged as a flyaway (`StrandSet.flyaways`, carried to the shader in w's sign bit) is drawn
    /// `flyawayScale` as wide as the others: its coverage falls to about that share, and the other strand,
    /// the same strand unflagged, keeps every byte.
    func testAFlyawayIsDrawnItsOwnWidthAndTheOtherStrandsKeepTheirs() throws {
        let context = try Self.makeContext()
        let scene = try Self.makeScene(context: context)
        let r = scene.renderer
        let positions = [Vec3(-20, 50, 40), Vec3(-15, 0, 50), Vec3(-10, -50, 40),
                         Vec3(25, 50, 30), Vec3(20, 0, 45), Vec3(15, -50, 30)]
        let widths = StrandWidths(rootMm: 6, tipMm: 3, flyawayScale: 0.25)
        func coverage(flagged: [Bool]) throws -> (left: Float, right: Float) {
            let strands = r.upload(strands: StrandSet(pointsPerStrand: 3, positions: positions, flyaways: flagged), seed: 7, coverWidthMm: nil)
            // The strands alone, over nothing: no head, no under-layer in front of or behind them.
            try r.render([ClearPass(target: r.target), StrandPass(target: r.target, strands: strands, widths: widths)], frame: scene.frame)
            let layer = try scene.readBack()
            var left: Float = 0, right: Float = 0
            for y in 0..<layer.height {
                for x in 0..<layer.width {
                    let a = layer.rgba[(y * layer.width + x) * 4 + 3]
                    if x < layer.width / 2 { left += a } else { right += a }
                }
            }
            return (left, right)
        }
        let plain = try coverage(flagged: [])
        let flyaway = try coverage(flagged: [false, true])
        print(String(format: "RenderPassTests: the flagged strand's coverage %.1f → %.1f, the other's %.1f → %.1f", plain.right, flyaway.right, plain.left, flyaway.left))
        XCTAssertEqual(flyaway.left, plain.left, "the unflagged strand is drawn as before")
        XCTAssertEqual(flyaway.right / plain.right, 0.25, accuracy: 0.1, "the flyaway is drawn a quarter as wide")
    }

    func testTheStandardListRunThroughRenderGivesDrawsBytes() throws {
        let scene = try Self.makeScene(context: try Self.makeContext())
        let r = scene.renderer
        try r.draw(camera: scene.camera, headToCamera: scene.headToCamera, occluder: scene.occluder, shell: scene.shell,
                   strands: scene.strands, widths: scene.widths, shading: scene.look.shading, lighting: scene.look.lighting)
        let drawn = try scene.readBack()
        XCTAssertGreaterThan(stride(from: 3, to: drawn.rgba.count, by: 4).filter { drawn.rgba[$0] > 0 }.count, 100)

        let passes = r.standardPasses(occluder: scene.occluder, shell: scene.shell, strands: scene.strands, widths: scene.widths)
        XCTAssertEqual(passes.map { "\($0.label)" }, ["key-light shadow", "clear", "occluder depth", "under-layer", "strands", "skin shadow"])
        try r.render(passes, frame: scene.frame)
        XCTAssertEqual(try scene.readBack().rgba, drawn.rgba, "render(standardPasses) is what draw() runs")

        // Ending the list with the resolve (instead of leaving it to readBack) changes nothing either.
        try r.render(passes + [ResolvePass(target: r.target)], frame: scene.frame)
        XCTAssertFalse(r.target.needsResolve)
        XCTAssertEqual(try scene.readBack().rgba, drawn.rgba)

        // The look travels in the frame: another colour, other pixels, same coverage.
        var other = scene
        other.look = HairLook(color: try HairColor.parse("platinum"))
        try r.render(passes, frame: other.frame)
        let recoloured = try other.readBack()
        XCTAssertNotEqual(recoloured.rgba, drawn.rgba)
        XCTAssertEqual(stride(from: 3, to: drawn.rgba.count, by: 4).map { recoloured.rgba[$0] },
                       stride(from: 3, to: drawn.rgba.count, by: 4).map { drawn.rgba[$0] })
    }

    /// A pass written outside CoifRender, with CoifGPU's public API only, is added by appending it to the
    /// list: it runs after the others, in order, under its own state.
    func testAnAppendedPassRunsInOrderAfterTheStandardOnes() throws {
        final class Log { var labels: [String] = [] }
        struct Recording<Inner: RenderPass>: RenderPass {
            let inner: Inner
            let log: Log
            var label: StaticString { inner.label }
            func run(in context: RenderPassContext) throws {
                log.labels.append("\(inner.label)")
                try inner.run(in: context)
            }
        }
        /// Wipes the hair where it was drawn: proves the appended pass ran last, on the same target.
        struct WipePass: RenderPass {
            let target: RenderTarget
            var label: StaticString { "wipe" }
            func run(in context: RenderPassContext) throws {
                try context.bind(target)
                context.gpu.apply(PipelineState(depthTest: false, depthWrite: false))
                context.gpu.clear(color: Vec4(0, 0, 0, 0), depth: 1)
            }
        }
        let scene = try Self.makeScene(context: try Self.makeContext())
        let r = scene.renderer
        let log = Log()
        var passes: [any RenderPass] = [
            Recording(inner: ClearPass(target: r.target), log: log),
            Recording(inner: OccluderDepthPass(target: r.target, occluder: scene.occluder, insetMm: r.occluderInsetMm), log: log),
            Recording(inner: StrandPass(target: r.target, strands: scene.strands, widths: scene.widths), log: log),
        ]
        try r.render(passes, frame: scene.frame)
        XCTAssertEqual(log.labels, ["clear", "occluder depth", "strands"])
        XCTAssertGreaterThan(try scene.readBack().rgba.max() ?? 0, 0)

        passes.append(Recording(inner: WipePass(target: r.target), log: log))
        log.labels = []
        try r.render(passes, frame: scene.frame)
        XCTAssertEqual(log.labels, ["clear", "occluder depth", "strands", "wipe"])
        XCTAssertEqual(try scene.readBack().rgba.max(), 0, "the appended pass ran after the strands")
    }

    func testAPreviewHeadPassWithoutItsProgramNamesTheMissingStep() throws {
        let scene = try Self.makeScene(context: try Self.makeContext())
        let pass = HeadShadingPass(target: scene.renderer.target, head: scene.occluder, insetMm: 1.5, albedoLinear: Vec3(0.5, 0.5, 0.5))
        XCTAssertThrowsError(try scene.renderer.render([ClearPass(target: scene.renderer.target), pass], frame: scene.frame)) { error in
            guard case CoifError.internalError(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("prepareHeadShading"), message)
        }
        try scene.renderer.prepareHeadShading(shaderSource: { Assets.text("Shaders/" + $0) })
        try scene.renderer.render([ClearPass(target: scene.renderer.target), pass], frame: scene.frame)
        let layer = try scene.readBack()
        XCTAssertGreaterThan(stride(from: 3, to: layer.rgba.count, by: 4).filter { layer.rgba[$0] == 1 }.count, 100,
                             "the head is drawn opaque")
    }

    /// The Swift std140 images put every member where the GL linker says the GLSL block has it, at the
    /// binding the renderer binds, and are at least as large as the block.
    func testUniformBlockStructsMatchTheLinkersLayout() throws {
        let context = try Self.makeContext()
        XCTAssertEqual(MemoryLayout<HairShadingBlock>.size, 96)
        XCTAssertEqual(MemoryLayout<LightingBlock>.size, 80)
        XCTAssertEqual(MemoryLayout<Std140Vec3>.size, 12)
        let strand = try ShaderProgram(context: context, vertexFile: "strand.vert", fragmentFile: "strand.frag",
                                       source: { Assets.text("Shaders/" + $0) })
        let blocks: [(String, Int, Int, [(member: String, offset: Int?)])] = [
            ("HairShadingBlock", UniformBinding.shading, MemoryLayout<HairShadingBlock>.size, HairShadingBlock.memberOffsets),
            ("LightingBlock", UniformBinding.lighting, MemoryLayout<LightingBlock>.size, LightingBlock.memberOffsets),
        ]
        for (name, binding, size, members) in blocks {
            let layout = try XCTUnwrap(strand.uniformBlockLayout(named: name), name)
            XCTAssertEqual(layout.binding, binding, name)
            XCTAssertLessThanOrEqual(layout.byteCount, size, name)
            XCTAssertEqual(layout.offsets.count, members.count, "\(name): \(layout.offsets)")
            for (member, offset) in members {
                XCTAssertEqual(layout.offsets[member], try XCTUnwrap(offset), "\(name).\(member)")
            }
        }
        // The under-layer and preview head programs read the same blocks.
        for (vertex, fragment, block) in [("shell.vert", "shell.frag", "HairShadingBlock"), ("shell.vert", "shell.frag", "LightingBlock"),
                                          ("head.vert", "head.frag", "LightingBlock")] {
            let program = try ShaderProgram(context: context, vertexFile: vertex, fragmentFile: fragment,
                                            source: { Assets.text("Shaders/" + $0) })
            XCTAssertNotNil(program.uniformBlockLayout(named: block), "\(fragment) \(block)")
        }
    }

    // MARK: - GPU timing

    /// llvmpipe's timer queries measure its own threads: the renderer must not report them as GPU time.
    func testGPUTimeIsNilOnLlvmpipe() throws {
        let context = try Self.makeContext()
        guard context.renderer.lowercased().contains("llvmpipe") else {
            print("RenderPassTests: skipping the llvmpipe timing check, the renderer is \(context.renderer)")
            throw XCTSkip("not llvmpipe: \(context.renderer)")
        }
        XCTAssertNotNil(GPUTimer.unavailableReason(context))
        XCTAssertNil(GPUTimer(context: context))
        let scene = try Self.makeScene(context: context)
        XCTAssertNil(scene.renderer.gpuTimer)
        try scene.renderer.render(scene.renderer.standardPasses(occluder: scene.occluder, shell: scene.shell, strands: scene.strands,
                                                                widths: scene.widths), frame: scene.frame)
        _ = try scene.readBack()
        XCTAssertNil(scene.renderer.lastFrameGPUMs)
    }

    /// The query plumbing itself, forced on where the driver has the extension but is not trusted (llvmpipe):
    /// the figures are meaningless there, so only their shape is checked.
    func testTimerQueryPlumbingRunsWhenForced() throws {
        let context = try Self.makeContext()
        guard let timer = GPUTimer(context: context, trustSoftwareRenderer: true) else {
            let reason = "\(context.renderer) offers no GL_EXT_disjoint_timer_query entry points"
            print("RenderPassTests: skipping the forced timer check: \(reason)")
            throw XCTSkip(reason)
        }
        let scene = try Self.makeScene(context: context)
        scene.renderer.gpuTimer = timer
        try assertFrameIsTimed(scene)
    }

    private func assertFrameIsTimed(_ scene: Scene) throws {
        let r = scene.renderer
        let timer = try XCTUnwrap(r.gpuTimer)
        for _ in 0..<3 {
            try r.draw(camera: scene.camera, headToCamera: scene.headToCamera, occluder: scene.occluder, shell: scene.shell,
                       strands: scene.strands, widths: scene.widths, shading: scene.look.shading, lighting: scene.look.lighting)
            _ = try scene.readBack()
            // Disjoint frames (a clock change) legitimately report nil; three in a row would not be.
            if r.lastFrameGPUMs != nil { break }
        }
        let total = try XCTUnwrap(r.lastFrameGPUMs, "three frames in a row disjoint")
        XCTAssertTrue(total.isFinite && total >= 0, "\(total)")
        XCTAssertEqual(timer.lastIntervalCount, 7, "key-light shadow, clear, occluder, under-layer, strands, skin shadow, and the resolve readBack ran")
        let parts = (0..<timer.lastIntervalCount).compactMap { timer.lastIntervalMs($0) }
        XCTAssertEqual(parts.count, 7)
        XCTAssertEqual(parts.reduce(0, +), total, accuracy: 1e-9)
        XCTAssertNil(timer.lastIntervalMs(7))
    }

    // MARK: - Layering

    /// CoifRender describes frames; CoifGPU issues the GL. No file of CoifRender imports CEGL or calls gl*.
    func testCoifRenderIssuesNoGLItself() throws {
        let folder = Fixtures.packageRoot.appendingPathComponent("Sources/CoifRender")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        XCTAssertFalse(files.isEmpty)
        let call = try NSRegularExpression(pattern: "\\b(gl|egl)[A-Z][A-Za-z0-9]*\\s*\\(")
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            XCTAssertFalse(text.contains("import CEGL"), file)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            let hits = call.matches(in: code, range: NSRange(code.startIndex..., in: code)).map { (code as NSString).substring(with: $0.range) }
            XCTAssertEqual(hits, [], file)
        }
    }

    /// Mean coverage (alpha) of `layer` over rows `rows` and columns `columns`.
    static func meanAlpha(_ layer: HairLayer, rows: ClosedRange<Int>, columns: ClosedRange<Int>) -> Float {
        var sum: Float = 0
        for y in rows { for x in columns { sum += layer.rgba[(y * layer.width + x) * 4 + 3] } }
        return sum / Float(rows.count * columns.count)
    }

    /// A strand's coverage grows in from nothing over `rootFadeMm` at its root (so a hairline's roots do
    /// not draw a row of blunt stubs), and starts whole when the fade is 0.
    func testStrandRootsGrowInOverTheRootFade() throws {
        let scene = try Self.makeScene(context: try Self.makeContext())
        let r = scene.renderer
        // One horizontal strand, root on the left: 3.2 px a mm, the root at column 15.5, the tip at 111.5.
        let camera = PinholeCamera(widthPx: 128, heightPx: 128, fx: 800, fy: 800, cx: 63.5, cy: 63.5)
        let strand = r.upload(strands: StrandSet(pointsPerStrand: 3, positions: [Vec3(-15, 0, 50), Vec3(0, 0, 50), Vec3(15, 0, 50)]),
                              seed: 3, coverWidthMm: nil)
        let passes: [any RenderPass] = [ClearPass(target: r.target),
                                        StrandPass(target: r.target, strands: strand, widths: StrandWidths(rootMm: 2, tipMm: 2))]
        func alongTheStrand(rootFadeMm: Float) throws -> (root: Float, body: Float) {
            var look = scene.look
            look.shading.rootFadeMm = rootFadeMm
            try r.render(passes, frame: FrameDescription(camera: camera, headToCamera: scene.headToCamera, look: look))
            let layer = try scene.readBack()
            // The first millimetre, and 10-14 mm along (past any root fade, before the tips thin out).
            return (Self.meanAlpha(layer, rows: 62...65, columns: 16...18), Self.meanAlpha(layer, rows: 62...65, columns: 48...60))
        }
        let faded = try alongTheStrand(rootFadeMm: 6)
        let whole = try alongTheStrand(rootFadeMm: 0)
        XCTAssertGreaterThan(faded.body, 0.9, "the strand's body is fully covered")
        XCTAssertLessThan(faded.root, 0.35 * faded.body, "the root grows in: \(faded)")
        XCTAssertGreaterThan(whole.root, 0.8 * whole.body, "no fade, a whole root: \(whole)")
    }

    /// The under-layer fades out toward a vertex whose cover is 0 (its outline: CoifGroom's UnderLayer), in
    /// whole samples, and is opaque where every corner's cover is 1.
    func testTheUnderLayersEdgeFadesOut() throws {
        let scene = try Self.makeScene(context: try Self.makeContext())
        let r = scene.renderer
        // The head triangle at 0.4 px a mm: its apex (0, 70) near row 19, its base (y = -60) near row 72.
        let camera = PinholeCamera(widthPx: 96, heightPx: 96, fx: 120, fy: 120, cx: 47.5, cy: 47.5)
        func apexAndBase(edgeCover: [Float]) throws -> (apex: Float, base: Float) {
            let shell = r.upload(UnderLayer(triangles: [0, 1, 2], edgeCover: edgeCover), over: scene.occluder)
            try r.render([ClearPass(target: r.target), UnderLayerPass(target: r.target, shell: shell, offsetMm: r.shellOffsetMm)],
                         frame: FrameDescription(camera: camera, headToCamera: scene.headToCamera, look: scene.look))
            let layer = try scene.readBack()
            return (Self.meanAlpha(layer, rows: 26...30, columns: 46...49), Self.meanAlpha(layer, rows: 64...68, columns: 40...55))
        }
        let fading = try apexAndBase(edgeCover: [1, 1, 0])
        let opaque = try apexAndBase(edgeCover: [1, 1, 1])
        XCTAssertEqual(opaque.apex, 1, accuracy: 1e-6)
        XCTAssertEqual(opaque.base, 1, accuracy: 1e-6)
        XCTAssertGreaterThan(fading.base, 0.75, "far from the outline the layer stays nearly opaque: \(fading)")
        XCTAssertLessThan(fading.apex, 0.35, "near the outline it is mostly gone: \(fading)")
        XCTAssertGreaterThan(fading.apex, 0, "a fade, not a cut: \(fading)")
    }
}
