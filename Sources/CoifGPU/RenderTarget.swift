// RenderTarget: a multisampled half-float colour + depth target and the single-sample buffer it
// resolves into. Half-float keeps dark premultiplied linear colour free of 8-bit banding; MSAA gives
// sub-pixel strand coverage. Reused across frames: re-allocated only when the size changes.
// The colour samples live in a multisample texture and are resolved by Coif's own shader
// (Shaders/resolve.*) rather than glBlitFramebuffer: same box average, but a shader the driver caches.
// Resolving and reading are two steps (`resolve`, `read`) so a renderer can run the resolve as a pass of
// its own; `read` resolves first when nothing has since drawing.
// With `holdsCapacity`, the storage only grows: a frame smaller than what is allocated draws into its
// corner (viewport at the origin), so the frames of one shot, whose hair crops differ by a few pixels,
// never re-allocate.
import CEGL
import CoifCore

public final class RenderTarget {
    /// The current frame's size (what is drawn, resolved and read).
    public private(set) var width = 0
    public private(set) var height = 0
    /// The allocated size: at least the frame's.
    public private(set) var capacityWidth = 0
    public private(set) var capacityHeight = 0
    /// Keep the storage when a frame is smaller than it (grow only); off, the storage follows each frame's size.
    public var holdsCapacity = false
    public let samples: Int32
    /// True from `bindForDrawing` until `resolve`: the single-sample buffer is older than the samples.
    public private(set) var needsResolve = false
    private var msaaFramebuffer: GLuint = 0
    /// GL_TEXTURE_2D_MULTISAMPLE holding the colour samples.
    private var colorSamples: GLuint = 0
    private var depthBuffer: GLuint = 0
    private var resolveFramebuffer: GLuint = 0
    private var resolveColor: GLuint = 0

    private let context: GPUContext
    private let resolveProgram: ShaderProgram
    private let samplesLocation: GLint
    private let sampleCountLocation: GLint
    /// Texture unit the samples are bound to while resolving (unit 0 belongs to the strand points).
    private static let resolveUnit: GLint = 1

    /// - Parameter resolveProgram: Shaders/resolve.vert + resolve.frag, compiled in `context`.
    public init(context: GPUContext, samples: Int32, resolveProgram: ShaderProgram) {
        self.context = context
        self.samples = samples
        self.resolveProgram = resolveProgram
        samplesLocation = resolveProgram.location("uSamples")
        sampleCountLocation = resolveProgram.location("uSampleCount")
    }

    deinit {
        context.ensureCurrent()
        release()
    }

    /// Bytes of GPU memory the target asks for as allocated: RGBA16F and 24-bit depth (stored in 32 bits)
    /// per sample, plus the RGBA16F resolve buffer. Nominal: a driver may pad or compress.
    public var byteCount: Int { capacityWidth * capacityHeight * (Int(samples) * (8 + 4) + 8) }

    /// Makes sure the target holds `width`×`height` (see `holdsCapacity`), then binds the multisampled
    /// framebuffer for drawing with the viewport on that corner.
    public func bindForDrawing(width: Int, height: Int) throws {
        let fits = holdsCapacity ? width <= capacityWidth && height <= capacityHeight
                                 : width == capacityWidth && height == capacityHeight
        if !fits || msaaFramebuffer == 0 {
            let newWidth = holdsCapacity ? max(width, capacityWidth) : width
            let newHeight = holdsCapacity ? max(height, capacityHeight) : height
            release()
            try allocate(width: newWidth, height: newHeight)
        }
        self.width = width
        self.height = height
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), msaaFramebuffer)
        glViewport(0, 0, GLsizei(width), GLsizei(height))
        needsResolve = true
    }

    /// Resolves the samples and reads RGBA floats (premultiplied, linear) into `into`, which must hold
    /// width*height*4 floats. Rows come out in the order they were rasterised (row 0 = framebuffer y 0).
    public func resolveAndRead(into pixels: UnsafeMutablePointer<Float>) {
        resolve()
        read(into: pixels)
    }

    /// Averages each pixel's samples into the single-sample buffer (a full-viewport draw with its own
    /// state: no depth test, no blending, all colour channels). Leaves that buffer bound.
    public func resolve() {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), resolveFramebuffer)
        glViewport(0, 0, GLsizei(width), GLsizei(height))
        glDisable(GLenum(GL_DEPTH_TEST))
        glDisable(GLenum(GL_BLEND))
        glDisable(GLenum(GL_CULL_FACE))
        glColorMask(GLboolean(GL_TRUE), GLboolean(GL_TRUE), GLboolean(GL_TRUE), GLboolean(GL_TRUE))
        resolveProgram.use()
        glActiveTexture(GLenum(GL_TEXTURE0 + Int32(Self.resolveUnit)))
        glBindTexture(GLenum(GL_TEXTURE_2D_MULTISAMPLE), colorSamples)
        glUniform1i(samplesLocation, Self.resolveUnit)
        glUniform1i(sampleCountLocation, samples)
        glDrawArrays(GLenum(GL_TRIANGLES), 0, 3)
        glBindTexture(GLenum(GL_TEXTURE_2D_MULTISAMPLE), 0)
        glActiveTexture(GLenum(GL_TEXTURE0))
        needsResolve = false
    }

    /// Reads the resolved RGBA floats (premultiplied, linear) into `pixels`, which must hold width*height*4
    /// floats, resolving first if the samples were drawn since the last resolve. Rows come out in the order
    /// they were rasterised (row 0 = framebuffer y 0).
    public func read(into pixels: UnsafeMutablePointer<Float>) {
        if needsResolve { resolve() }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), resolveFramebuffer)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_FLOAT), pixels)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }

    private func allocate(width: Int, height: Int) throws {
        capacityWidth = width
        capacityHeight = height
        glGenTextures(1, &colorSamples)
        glBindTexture(GLenum(GL_TEXTURE_2D_MULTISAMPLE), colorSamples)
        // Fixed sample locations: the same standard pattern in every pixel, as a renderbuffer has.
        glTexStorage2DMultisample(GLenum(GL_TEXTURE_2D_MULTISAMPLE), samples, GLenum(GL_RGBA16F), GLsizei(width), GLsizei(height),
                                  GLboolean(GL_TRUE))
        glBindTexture(GLenum(GL_TEXTURE_2D_MULTISAMPLE), 0)
        glGenRenderbuffers(1, &depthBuffer)
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), depthBuffer)
        glRenderbufferStorageMultisample(GLenum(GL_RENDERBUFFER), samples, GLenum(GL_DEPTH_COMPONENT24), GLsizei(width), GLsizei(height))
        glGenFramebuffers(1, &msaaFramebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), msaaFramebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D_MULTISAMPLE), colorSamples, 0)
        glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_ATTACHMENT), GLenum(GL_RENDERBUFFER), depthBuffer)
        try checkComplete("multisampled RGBA16F + depth, \(samples) samples")
        glGenRenderbuffers(1, &resolveColor)
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), resolveColor)
        glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(GL_RGBA16F), GLsizei(width), GLsizei(height))
        glGenFramebuffers(1, &resolveFramebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), resolveFramebuffer)
        glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), resolveColor)
        try checkComplete("resolve RGBA16F")
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }

    private func checkComplete(_ what: String) throws {
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        if status != GLenum(GL_FRAMEBUFFER_COMPLETE) {
            throw CoifError.gpuUnavailable(reason: "framebuffer (\(what)) incomplete: 0x\(String(status, radix: 16))")
        }
    }

    private func release() {
        if msaaFramebuffer != 0 { glDeleteFramebuffers(1, &msaaFramebuffer); msaaFramebuffer = 0 }
        if resolveFramebuffer != 0 { glDeleteFramebuffers(1, &resolveFramebuffer); resolveFramebuffer = 0 }
        if colorSamples != 0 { glDeleteTextures(1, &colorSamples); colorSamples = 0 }
        if depthBuffer != 0 { glDeleteRenderbuffers(1, &depthBuffer); depthBuffer = 0 }
        if resolveColor != 0 { glDeleteRenderbuffers(1, &resolveColor); resolveColor = 0 }
        capacityWidth = 0
        capacityHeight = 0
    }
}
