// ShaderProgram: a GLSL ES program built from stage files. Sources come through a lookup closure (the
// embedded Shaders/ folder in production), `#include "name"` lines are resolved by that same lookup, and
// variants are a `#define` prelude inserted after `#version`. Failures name the file and the stage.
import CEGL
import CoifCore

public final class ShaderProgram {
    public let handle: GLuint
    public let name: String
    private let context: GPUContext
    private var uniformLocations: [String: GLint] = [:]

    /// - Parameters:
    ///   - vertexFile, fragmentFile: names passed to `source` ("strand.vert").
    ///   - defines: lines such as "STRAND_SAMPLE_MASK 1", each becoming `#define …`.
    ///   - source: returns a file's text, or nil when there is no such file.
    public init(context: GPUContext, vertexFile: String, fragmentFile: String, defines: [String] = [],
                source: (String) -> String?) throws {
        self.context = context
        context.ensureCurrent()
        name = "\(vertexFile) + \(fragmentFile)"
        let vertex = try Self.compile(file: vertexFile, stage: GLenum(GL_VERTEX_SHADER), defines: defines, source: source)
        defer { glDeleteShader(vertex) }
        let fragment = try Self.compile(file: fragmentFile, stage: GLenum(GL_FRAGMENT_SHADER), defines: defines, source: source)
        defer { glDeleteShader(fragment) }
        let program = glCreateProgram()
        glAttachShader(program, vertex)
        glAttachShader(program, fragment)
        glLinkProgram(program)
        var linked: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &linked)
        if linked == 0 {
            let log = Self.infoLog(program, isProgram: true)
            glDeleteProgram(program)
            throw CoifError.shaderFailed(file: name, log: "link failed: \(log)")
        }
        handle = program
    }

    deinit {
        context.ensureCurrent()
        glDeleteProgram(handle)
    }

    public func use() { glUseProgram(handle) }

    /// The location of a uniform (cached); -1 when the linker removed it as unused. For set-up: a frame
    /// sets uniforms through `UniformLocation`s found once (`uniform(_:)`), never by name.
    public func location(_ uniform: String) -> GLint {
        if let known = uniformLocations[uniform] { return known }
        let found = glGetUniformLocation(handle, uniform)
        uniformLocations[uniform] = found
        return found
    }

    /// A plain uniform's location, to keep and set every frame without a name lookup.
    public func uniform(_ name: String) -> UniformLocation { UniformLocation(location(name)) }

    /// How the linker laid out an active uniform block: its binding point, its size in bytes and each
    /// member's byte offset, by name; nil when the program has no such active block. For checking a Swift
    /// std140 struct against the GLSL block (tests), not for frames.
    public func uniformBlockLayout(named block: String) -> (binding: Int, byteCount: Int, offsets: [String: Int])? {
        context.ensureCurrent()
        let index = glGetUniformBlockIndex(handle, block)
        guard index != GLuint(GL_INVALID_INDEX) else { return nil }
        var binding: GLint = 0, size: GLint = 0, count: GLint = 0
        glGetActiveUniformBlockiv(handle, index, GLenum(GL_UNIFORM_BLOCK_BINDING), &binding)
        glGetActiveUniformBlockiv(handle, index, GLenum(GL_UNIFORM_BLOCK_DATA_SIZE), &size)
        glGetActiveUniformBlockiv(handle, index, GLenum(GL_UNIFORM_BLOCK_ACTIVE_UNIFORMS), &count)
        var members = [GLint](repeating: 0, count: Int(count))
        glGetActiveUniformBlockiv(handle, index, GLenum(GL_UNIFORM_BLOCK_ACTIVE_UNIFORM_INDICES), &members)
        var offsets: [String: Int] = [:]
        for member in members {
            var uniform = GLuint(member), offset: GLint = 0
            glGetActiveUniformsiv(handle, 1, &uniform, GLenum(GL_UNIFORM_OFFSET), &offset)
            var nameBuffer = [GLchar](repeating: 0, count: 256)
            var length: GLsizei = 0, arraySize: GLint = 0, type: GLenum = 0
            glGetActiveUniform(handle, uniform, GLsizei(nameBuffer.count), &length, &arraySize, &type, &nameBuffer)
            offsets[String(nulTerminated: nameBuffer)] = Int(offset)
        }
        return (Int(binding), Int(size), offsets)
    }

    // MARK: - Compilation

    /// The full text of a stage after includes and defines: what the driver compiles (exposed for tests
    /// and for offline validation with glslangValidator).
    public static func preprocess(file: String, defines: [String], source: (String) -> String?) throws -> String {
        guard let text = source(file) else { throw CoifError.shaderFailed(file: file, log: "no such shader file") }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let versionLine = lines.firstIndex(where: { $0.hasPrefix("#version") }) else {
            throw CoifError.shaderFailed(file: file, log: "first directive must be #version")
        }
        var expanded: [String] = []
        var included = Set<String>()
        for (index, line) in lines.enumerated() {
            let directive = trimmed(line)
            if directive.hasPrefix("#include") {
                let parts = directive.split(separator: "\"")
                guard parts.count >= 2 else { throw CoifError.shaderFailed(file: file, log: "line \(index + 1): malformed #include") }
                let includeName = String(parts[1])
                if included.insert(includeName).inserted {
                    guard let body = source(includeName) else {
                        throw CoifError.shaderFailed(file: file, log: "line \(index + 1): included file \(includeName) not found")
                    }
                    expanded.append(body)
                }
                expanded.append("#line \(index + 2)")
            } else {
                expanded.append(line)
                if index == versionLine {
                    expanded.append(contentsOf: defines.map { "#define \($0)" })
                    expanded.append("#line \(index + 2)")
                }
            }
        }
        lines = expanded
        return lines.joined(separator: "\n")
    }

    private static func compile(file: String, stage: GLenum, defines: [String], source: (String) -> String?) throws -> GLuint {
        let text = try preprocess(file: file, defines: defines, source: source)
        let shader = glCreateShader(stage)
        text.withCString { pointer in
            var pointers: [UnsafePointer<GLchar>?] = [pointer]
            glShaderSource(shader, 1, &pointers, nil)
        }
        glCompileShader(shader)
        var compiled: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &compiled)
        if compiled == 0 {
            let log = infoLog(shader, isProgram: false)
            glDeleteShader(shader)
            let stageName = stage == GLenum(GL_VERTEX_SHADER) ? "vertex" : "fragment"
            throw CoifError.shaderFailed(file: file, log: "\(stageName) stage failed to compile: \(log)")
        }
        return shader
    }

    private static func infoLog(_ object: GLuint, isProgram: Bool) -> String {
        var length: GLint = 0
        if isProgram { glGetProgramiv(object, GLenum(GL_INFO_LOG_LENGTH), &length) } else { glGetShaderiv(object, GLenum(GL_INFO_LOG_LENGTH), &length) }
        guard length > 1 else { return "(no log)" }
        var buffer = [GLchar](repeating: 0, count: Int(length))
        if isProgram { glGetProgramInfoLog(object, length, nil, &buffer) } else { glGetShaderInfoLog(object, length, nil, &buffer) }
        return String(nulTerminated: buffer).split(separator: "\n").joined(separator: "; ")
    }
}

/// `line` without leading and trailing blanks (CoifGPU stays free of Foundation).
private func trimmed(_ line: String) -> Substring {
    var s = Substring(line)
    while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
    return s
}
