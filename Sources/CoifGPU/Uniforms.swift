// Uniforms: how values reach shaders. `UniformBuffer<Block>` holds one std140 uniform block, written whole
// from a Swift struct whose layout states the std140 offsets field by field (with explicit padding) and
// bound to a binding point with glBindBufferBase; `UniformLocation` is a plain uniform's location, looked
// up once when a program is built so a frame sets it without a name lookup. Both know nothing of hair.
import CEGL
import CoifCore

/// A GLSL `vec3` as std140 stores it: three floats, 12 bytes. Base alignment is 16 in std140, so a block
/// struct places it at a multiple of 16; a `float` may follow in the remaining 4 bytes. (Swift's
/// `SIMD3<Float>` is 16 bytes and cannot stand in for it.)
public struct Std140Vec3: Sendable, Equatable, BitwiseCopyable {
    public var x: Float, y: Float, z: Float
    public init(_ v: Vec3) { x = v.x; y = v.y; z = v.z }
}

/// One uniform buffer object holding a `Block`: a plain struct of `Float`, `Int32`, `Std140Vec3` and
/// padding fields laid out exactly as std140 places the GLSL block's members (check it with
/// `ShaderProgram.uniformBlockLayout`). Sized once; `update` rewrites it whole, `bind` attaches it to the
/// block's binding point. Not a general buffer: one block, no arrays.
public final class UniformBuffer<Block: BitwiseCopyable> {
    public let handle: GLuint
    /// The block's bytes: `MemoryLayout<Block>.size`.
    public let byteCount: Int
    private let context: GPUContext

    public init(context: GPUContext) {
        self.context = context
        context.ensureCurrent()
        byteCount = MemoryLayout<Block>.size
        var buffer: GLuint = 0
        glGenBuffers(1, &buffer)
        handle = buffer
        glBindBuffer(GLenum(GL_UNIFORM_BUFFER), buffer)
        glBufferData(GLenum(GL_UNIFORM_BUFFER), byteCount, nil, GLenum(GL_DYNAMIC_DRAW))
        glBindBuffer(GLenum(GL_UNIFORM_BUFFER), 0)
    }

    deinit {
        context.ensureCurrent()
        var buffer = handle
        glDeleteBuffers(1, &buffer)
    }

    /// Replaces the buffer's contents with `block` (no allocation: the struct's own bytes are uploaded).
    public func update(_ block: Block) {
        glBindBuffer(GLenum(GL_UNIFORM_BUFFER), handle)
        withUnsafeBytes(of: block) { glBufferSubData(GLenum(GL_UNIFORM_BUFFER), 0, $0.count, $0.baseAddress) }
        glBindBuffer(GLenum(GL_UNIFORM_BUFFER), 0)
    }

    /// Attaches the whole buffer to uniform binding point `index` (the block's `layout(binding = N)`).
    public func bind(index: Int) {
        glBindBufferBase(GLenum(GL_UNIFORM_BUFFER), GLuint(index), handle)
    }
}

/// A plain uniform's location in one program, found once by `ShaderProgram.uniform(_:)`. −1 (the linker
/// removed an unused uniform) is legal: GL ignores sets to it. Set only while its program is in use.
public struct UniformLocation: Sendable, Equatable {
    public let value: GLint
    public init(_ value: GLint) { self.value = value }

    public func set(_ x: Float) { glUniform1f(value, x) }
    public func set(_ x: Int32) { glUniform1i(value, x) }
    public func set(_ v: Vec2) { glUniform2f(value, v.x, v.y) }
    public func set(_ v: SIMD2<Int32>) { glUniform2i(value, v.x, v.y) }
    public func set(_ v: Vec3) { glUniform3f(value, v.x, v.y, v.z) }

    /// A column-major 4×4 matrix.
    public func set(_ m: Mat4) {
        // The four SIMD4<Float> columns are 64 contiguous bytes, column-major: no array per call.
        withUnsafeBytes(of: m.columns) { raw in
            glUniformMatrix4fv(value, 1, GLboolean(GL_FALSE), raw.baseAddress!.assumingMemoryBound(to: GLfloat.self))
        }
    }
}
