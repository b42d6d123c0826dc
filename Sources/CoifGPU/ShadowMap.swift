// ShadowMap: a single-sample depth texture seen from a light (with an R32F colour texture beside it for
// what the drawing shader wants kept: the first hair surface), drawn by one pass and then read
// (as plain depth values, not through a comparison sampler) by the passes it shadows. They read depth
// itself because hair's shadow is not a yes/no test: the distance a point lies behind the first surface
// the light meets becomes the thickness of hair the light crossed (see Shaders/key_shadow.glsl).
// Square, allocated once at its size; 32-bit float depth so the thickness is exact to well under a
// millimetre across a head-sized range.
import CEGL
import CoifCore

public final class ShadowMap {
    public let sizePx: Int
    private var framebuffer: GLuint = 0
    private var depthTexture: GLuint = 0
    /// R32F: what the drawing fragment shader writes (the key light's pass: the depth of the first *hair*
    /// surface, 1 where the head is first), beside the depth of the first surface of any kind.
    private var colorTexture: GLuint = 0
    private let context: GPUContext

    public init(context: GPUContext, sizePx: Int) throws {
        self.context = context
        self.sizePx = sizePx
        context.ensureCurrent()
        // Both read with texelFetch: nearest, and no comparison, so a fetch returns the stored value.
        func texture(_ format: Int32) -> GLuint {
            var texture: GLuint = 0
            glGenTextures(1, &texture)
            glBindTexture(GLenum(GL_TEXTURE_2D), texture)
            glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(format), GLsizei(sizePx), GLsizei(sizePx))
            for parameter in [GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER] {
                glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), GL_NEAREST)
            }
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_COMPARE_MODE), GL_NONE)
            return texture
        }
        depthTexture = texture(GL_DEPTH_COMPONENT32F)
        colorTexture = texture(GL_R32F)
        glBindTexture(GLenum(GL_TEXTURE_2D), 0)
        glGenFramebuffers(1, &framebuffer)
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_ATTACHMENT), GLenum(GL_TEXTURE_2D), depthTexture, 0)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), colorTexture, 0)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        if status != GLenum(GL_FRAMEBUFFER_COMPLETE) {
            throw CoifError.gpuUnavailable(reason: "framebuffer (shadow map, depth 32F + R32F \(sizePx)²) incomplete: 0x\(String(status, radix: 16))")
        }
    }

    deinit {
        context.ensureCurrent()
        glDeleteFramebuffers(1, &framebuffer)
        glDeleteTextures(1, &depthTexture)
        glDeleteTextures(1, &colorTexture)
    }

    /// Bytes of GPU memory the map holds (depth and colour).
    public var byteCount: Int { sizePx * sizePx * 8 }

    /// Binds the map for drawing, its whole square the viewport. Clear both before drawing.
    public func bindForDrawing() {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
        glViewport(0, 0, GLsizei(sizePx), GLsizei(sizePx))
    }

    /// Binds the depth texture to texture `unit` for reading.
    public func bind(unit: Int32) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit))
        glBindTexture(GLenum(GL_TEXTURE_2D), depthTexture)
        glActiveTexture(GLenum(GL_TEXTURE0))
    }

    /// Binds the colour texture (R32F) to texture `unit` for reading.
    public func bindColor(unit: Int32) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit))
        glBindTexture(GLenum(GL_TEXTURE_2D), colorTexture)
        glActiveTexture(GLenum(GL_TEXTURE0))
    }
}
