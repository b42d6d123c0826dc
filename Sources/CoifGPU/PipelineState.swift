// PipelineState: the fixed-function state a draw runs under (depth test, depth function, depth writes,
// colour writes, blending, face culling) as one value, applied whole before a draw; plus the clear and the
// GL error check. Nothing here knows what is drawn: CoifRender's passes say which state they need.
import CEGL
import CoifCore

/// The fixed-function state of one draw. Applied whole by `GPUContext.apply(_:)`: every field is set on
/// every apply (no cache of what the driver already has), so a pass never inherits state from the one
/// before it. Not a description of shaders or targets.
///
/// The default configuration is: depth test on with `.less`, depth writes on, all colour channels written,
/// no blending, no face culling (`PipelineState.opaque`).
public struct PipelineState: Sendable, Equatable {
    public enum DepthFunction: Sendable, Equatable {
        case less, lessOrEqual, always
    }

    public enum Blend: Sendable, Equatable {
        /// The fragment replaces what is there.
        case disabled
        /// Premultiplied "over": `src + (1 − src.a) · dst`.
        case premultipliedOver
    }

    public var depthTest: Bool
    public var depthFunction: DepthFunction
    public var depthWrite: Bool
    /// Writes to all four colour channels (true) or to none (false: a depth-only pass).
    public var colorWrite: Bool
    public var blend: Blend
    public var cullBackFaces: Bool

    public init(depthTest: Bool = true, depthFunction: DepthFunction = .less, depthWrite: Bool = true,
                colorWrite: Bool = true, blend: Blend = .disabled, cullBackFaces: Bool = false) {
        self.depthTest = depthTest
        self.depthFunction = depthFunction
        self.depthWrite = depthWrite
        self.colorWrite = colorWrite
        self.blend = blend
        self.cullBackFaces = cullBackFaces
    }

    /// Depth-tested, depth-writing, colour-writing, unblended: the default.
    public static let opaque = PipelineState()
    /// Depth-tested and depth-writing with colour writes off: an occluder's pass.
    public static let depthOnly = PipelineState(colorWrite: false)
}

extension GPUContext {
    /// Sets every field of `state` on the current context.
    public func apply(_ state: PipelineState) {
        switch state.blend {
        case .disabled:
            glDisable(GLenum(GL_BLEND))
        case .premultipliedOver:
            glEnable(GLenum(GL_BLEND))
            glBlendEquation(GLenum(GL_FUNC_ADD))
            glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))
        }
        if state.cullBackFaces {
            glEnable(GLenum(GL_CULL_FACE))
            glCullFace(GLenum(GL_BACK))
        } else {
            glDisable(GLenum(GL_CULL_FACE))
        }
        if state.depthTest { glEnable(GLenum(GL_DEPTH_TEST)) } else { glDisable(GLenum(GL_DEPTH_TEST)) }
        switch state.depthFunction {
        case .less: glDepthFunc(GLenum(GL_LESS))
        case .lessOrEqual: glDepthFunc(GLenum(GL_LEQUAL))
        case .always: glDepthFunc(GLenum(GL_ALWAYS))
        }
        glDepthMask(GLboolean(state.depthWrite ? GL_TRUE : GL_FALSE))
        let color = GLboolean(state.colorWrite ? GL_TRUE : GL_FALSE)
        glColorMask(color, color, color, color)
    }

    /// Clears the bound framebuffer's colour to `color` and its depth to `depth`. Clears ignore the depth
    /// test but obey the write masks, so apply a state with colour and depth writes on first.
    public func clear(color: Vec4, depth: Float) {
        glClearColor(color.x, color.y, color.z, color.w)
        glClearDepthf(depth)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT) | GLbitfield(GL_DEPTH_BUFFER_BIT))
    }

    /// Throws when the driver has recorded a GL error since the last check (clearing it); `what` names the
    /// work that was running ("rendering hair"). The message is built only when there is an error.
    public func checkError(_ what: @autoclosure () -> String) throws {
        let error = glGetError()
        guard error != GLenum(GL_NO_ERROR) else { return }
        // Drain the rest: GL keeps one flag per error kind.
        while glGetError() != GLenum(GL_NO_ERROR) {}
        throw CoifError.internalError("OpenGL error 0x\(String(error, radix: 16)) while \(what())")
    }
}
