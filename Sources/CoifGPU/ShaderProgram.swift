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

    /// The location of a uniform (cached); -1 when the linker removed it as unused.
    public func location(_ uniform: String) -> GLint {
        if let known = uniformLocations[uniform] { return known }
        let found = glGetUniformLocation(handle, uniform)
        uniformLocations[uniform] = found
        return found
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
