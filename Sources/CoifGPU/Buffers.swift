// GPU buffers Coif draws from: a float data texture (points fetched by index in a vertex shader, which
// works on every GLES 3.0 driver, unlike vertex-stage SSBOs) and an indexed triangle mesh.
import CEGL
import CoifCore

/// An RGBA32F texture used as an array of vec4 records, `rowLength` records per row; fetch record i at
/// (i % rowLength, i / rowLength) with texelFetch.
public final class DataTexture {
    public static let rowLength = 2048
    public let handle: GLuint
    public let recordCount: Int
    /// The owning context: kept alive while this texture is, and made current to delete it.
    private let context: GPUContext

    public init(context: GPUContext, records: UnsafeBufferPointer<Float>) {
        precondition(records.count % 4 == 0)
        self.context = context
        context.ensureCurrent()
        recordCount = records.count / 4
        let rows = max(1, (recordCount + Self.rowLength - 1) / Self.rowLength)
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        handle = texture
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        glTexStorage2D(GLenum(GL_TEXTURE_2D), 1, GLenum(GL_RGBA32F), GLsizei(Self.rowLength), GLsizei(rows))
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        let fullRows = recordCount / Self.rowLength
        if fullRows > 0 {
            glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(Self.rowLength), GLsizei(fullRows),
                            GLenum(GL_RGBA), GLenum(GL_FLOAT), records.baseAddress)
        }
        let rest = recordCount - fullRows * Self.rowLength
        if rest > 0 {
            glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, GLint(fullRows), GLsizei(rest), 1,
                            GLenum(GL_RGBA), GLenum(GL_FLOAT), records.baseAddress! + fullRows * Self.rowLength * 4)
        }
        for parameter in [GL_TEXTURE_MIN_FILTER, GL_TEXTURE_MAG_FILTER] {
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), GL_NEAREST)
        }
        glBindTexture(GLenum(GL_TEXTURE_2D), 0)
    }

    deinit {
        context.ensureCurrent()
        var texture = handle
        glDeleteTextures(1, &texture)
    }

    /// Bytes of GPU memory the texture holds (whole rows of RGBA32F).
    public var byteCount: Int { Self.rowLength * max(1, (recordCount + Self.rowLength - 1) / Self.rowLength) * 16 }

    public func bind(unit: Int32) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit))
        glBindTexture(GLenum(GL_TEXTURE_2D), handle)
    }
}

/// An indexed triangle mesh with interleaved position + normal (6 floats a vertex), optionally one more
/// float a vertex (attribute 2), in a vertex array.
public final class TriangleMesh {
    public let vertexArray: GLuint
    private var buffers: [GLuint] = [0, 0]
    public let indexCount: Int32
    /// Bytes of GPU memory the vertex and index buffers hold.
    public let byteCount: Int
    private let context: GPUContext

    /// - Parameters:
    ///   - interleaved: x, y, z, nx, ny, nz per vertex, then a scalar when `withScalar`.
    ///   - indices: triangle list.
    public init(context: GPUContext, interleaved: [Float], indices: [UInt32], withScalar: Bool = false) {
        self.context = context
        context.ensureCurrent()
        (vertexArray, buffers[1]) = boundVertexArray(indices: indices)
        glGenBuffers(1, &buffers[0])
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), buffers[0])
        interleaved.withUnsafeBytes { glBufferData(GLenum(GL_ARRAY_BUFFER), $0.count, $0.baseAddress, GLenum(GL_STATIC_DRAW)) }
        let stride = GLsizei((withScalar ? 7 : 6) * MemoryLayout<Float>.size)
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 3, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, nil)
        glEnableVertexAttribArray(1)
        glVertexAttribPointer(1, 3, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, UnsafeRawPointer(bitPattern: 3 * MemoryLayout<Float>.size))
        if withScalar {
            glEnableVertexAttribArray(2)
            glVertexAttribPointer(2, 1, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, UnsafeRawPointer(bitPattern: 6 * MemoryLayout<Float>.size))
        }
        glBindVertexArray(0)
        indexCount = Int32(indices.count)
        byteCount = (interleaved.count + indices.count) * 4
    }

    deinit {
        context.ensureCurrent()
        glDeleteBuffers(2, &buffers)
        var vao = vertexArray
        glDeleteVertexArrays(1, &vao)
    }

    public func draw() { drawIndexedTriangles(vertexArray, count: indexCount) }
}

/// A vertex array with no attributes and an element buffer: for shaders that fetch their own data by
/// gl_VertexID (which, in an indexed draw, is the index value, so shared corners run the shader once).
public final class IndexedDraw {
    public let vertexArray: GLuint
    private var buffer: GLuint = 0
    public let indexCount: Int32
    private let context: GPUContext

    public init(context: GPUContext, indices: [UInt32]) {
        self.context = context
        context.ensureCurrent()
        (vertexArray, buffer) = boundVertexArray(indices: indices)
        glBindVertexArray(0)
        indexCount = Int32(indices.count)
    }

    deinit {
        context.ensureCurrent()
        glDeleteBuffers(1, &buffer)
        var vao = vertexArray
        glDeleteVertexArrays(1, &vao)
    }

    /// Bytes of GPU memory the index buffer holds.
    public var byteCount: Int { Int(indexCount) * MemoryLayout<UInt32>.size }

    public func drawTriangles() { drawIndexedTriangles(vertexArray, count: indexCount) }
}

/// A new vertex array, left bound, with `indices` uploaded as its element buffer (which the vertex array
/// records): what TriangleMesh and IndexedDraw share. The caller adds its attributes, then unbinds.
private func boundVertexArray(indices: [UInt32]) -> (vertexArray: GLuint, elementBuffer: GLuint) {
    var vao: GLuint = 0, buffer: GLuint = 0
    glGenVertexArrays(1, &vao)
    glBindVertexArray(vao)
    glGenBuffers(1, &buffer)
    glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), buffer)
    indices.withUnsafeBytes { glBufferData(GLenum(GL_ELEMENT_ARRAY_BUFFER), $0.count, $0.baseAddress, GLenum(GL_STATIC_DRAW)) }
    return (vao, buffer)
}

/// `count` indices of `vertexArray`'s element buffer drawn as triangles.
private func drawIndexedTriangles(_ vertexArray: GLuint, count: Int32) {
    glBindVertexArray(vertexArray)
    glDrawElements(GLenum(GL_TRIANGLES), count, GLenum(GL_UNSIGNED_INT), nil)
    glBindVertexArray(0)
}
