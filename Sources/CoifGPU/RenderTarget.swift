// RenderTarget: a multisampled half-float colour + depth target and the single-sample buffer it
// resolves into. Half-float keeps dark premultiplied linear colour free of 8-bit banding; MSAA gives
// sub-pixel strand coverage. Reused across frames: re-allocated only when the size changes.
import CEGL
import CoifCore

public final class RenderTarget {
    public private(set) var width = 0
    public private(set) var height = 0
    public let samples: Int32
    private var msaaFramebuffer: GLuint = 0
    private var colorBuffer: GLuint = 0
    private var depthBuffer: GLuint = 0
    private var resolveFramebuffer: GLuint = 0
    private var resolveColor: GLuint = 0

    private let context: GPUContext

    public init(context: GPUContext, samples: Int32) {
        self.context = context
        self.samples = samples
    }

    deinit {
        context.ensureCurrent()
        release()
    }

    /// Makes sure the target is `width`×`height`, then binds the multisampled framebuffer for drawing.
    public func bindForDrawing(width: Int, height: Int) throws {
        if width != self.width || height != self.height || msaaFramebuffer == 0 {
            release()
            try allocate(width: width, height: height)
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), msaaFramebuffer)
        glViewport(0, 0, GLsizei(width), GLsizei(height))
    }

    /// Resolves the samples and reads RGBA floats (premultiplied, linear) into `into`, which must hold
    /// width*height*4 floats. Rows come out in the order they were rasterised (row 0 = framebuffer y 0).
    public func resolveAndRead(into pixels: UnsafeMutablePointer<Float>) {
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), msaaFramebuffer)
        glBindFramebuffer(GLenum(GL_DRAW_FRAMEBUFFER), resolveFramebuffer)
        glBlitFramebuffer(0, 0, GLint(width), GLint(height), 0, 0, GLint(width), GLint(height),
                          GLbitfield(GL_COLOR_BUFFER_BIT), GLenum(GL_NEAREST))
        glBindFramebuffer(GLenum(GL_READ_FRAMEBUFFER), resolveFramebuffer)
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_FLOAT), pixels)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
    }

    private func allocate(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        glGenRenderbuffers(1, &colorBuffer)
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), colorBuffer)
        glRenderbufferStorageMultisample(GLenum(GL_RENDERBUFFER), samples, GLenum(GL_RGBA16F), GLsizei(width), GLsizei(height))
        glGenRenderbuffers(1, &depthBuffer)
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), depthBuffer)
        glRenderbufferStorageMultisample(GLenum(GL_RENDERBUFFER), samples, GLenum(GL_DEPTH_COMPONENT24), GLsizei(width), GLsizei(height))
        glGenFramebuffers(1, &msaaFramebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), msaaFramebuffer)
        glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), colorBuffer)
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
        if colorBuffer != 0 { glDeleteRenderbuffers(1, &colorBuffer); colorBuffer = 0 }
        if depthBuffer != 0 { glDeleteRenderbuffers(1, &depthBuffer); depthBuffer = 0 }
        if resolveColor != 0 { glDeleteRenderbuffers(1, &resolveColor); resolveColor = 0 }
        width = 0
        height = 0
    }
}
