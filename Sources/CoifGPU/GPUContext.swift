// GPUContext: one headless OpenGL ES 3.x context through EGL, with no window and no pbuffer.
// Platform choice: the EGL device platform on a real GPU (NVIDIA's driver offers it), else Mesa's
// surfaceless platform (llvmpipe on a machine with no GPU). COIF_EGL_PLATFORM=device|surfaceless forces one.
// An EGL context is current on one OS thread: create and use a GPUContext on one thread only.
import CEGL
import CoifCore
import Foundation

public final class GPUContext {
    public let display: EGLDisplay
    public let context: EGLContext
    /// Which EGL platform the context came from ("device" or "surfaceless").
    public let platform: String
    /// GL_RENDERER, GL_VERSION and GL_VENDOR as the driver reports them.
    public let renderer: String
    public let version: String
    public let vendor: String
    /// True for software rasterisers (llvmpipe, softpipe, swiftshader), whose timer queries are not trusted.
    public let isSoftware: Bool
    public let maxSamples: Int32
    private let extensions: Set<String>

    /// What decides this context's pixels: GL_RENDERER, and for a software rasteriser the host CPU's vector
    /// instructions too. llvmpipe compiles its shaders for the CPU it runs on, so one GL_RENDERER string
    /// ("llvmpipe (LLVM 15.0.6, 256 bits)") drew the same hair on an AVX-512 host and on the host the goldens
    /// were recorded on with 0.5–1.4% of the hair's pixels apart (at most 40 levels; 4 pixels past 24).
    public var pixelIdentity: String { isSoftware ? renderer + " on " + Self.thisHostsVectorInstructions : renderer }
    /// `hostVectorInstructions()` of this host, read once a process.
    static let thisHostsVectorInstructions = hostVectorInstructions()

    /// The host CPU's widest vector instructions and whether it fuses multiply-adds, from /proc/cpuinfo's flags
    /// ("avx512f+fma", "avx2+fma", "neon"); "unknown CPU" where there is no such file.
    public static func hostVectorInstructions(cpuinfo: String? = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) -> String {
        guard let cpuinfo,
              let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") || $0.hasPrefix("Features") }),
              let colon = line.firstIndex(of: ":") else { return "unknown CPU" }
        let flags = Set(line[line.index(after: colon)...].split(separator: " ").map(String.init))
        let widest = ["avx512f", "avx2", "avx", "sse4_2", "asimd", "neon"].first { flags.contains($0) } ?? "scalar"
        return widest + (flags.contains("fma") ? "+fma" : "")
    }

    public init() throws {
        let forced = getenvString("COIF_EGL_PLATFORM")
        var chosen: (EGLDisplay, String)?
        if forced != "surfaceless", let display = Self.deviceDisplay() { chosen = (display, "device") }
        if chosen == nil, forced != "device", let display = Self.surfacelessDisplay() { chosen = (display, "surfaceless") }
        guard let (display, platform) = chosen else {
            throw CoifError.gpuUnavailable(reason: "no EGL device or surfaceless display could be initialised (forced: \(forced ?? "none"))")
        }
        guard eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) == EGLBoolean(EGL_TRUE) else {
            eglTerminate(display)
            throw CoifError.gpuUnavailable(reason: "eglBindAPI(OpenGL ES) failed: \(eglErrorName())")
        }
        let eglExtensions = String(cString: eglQueryString(display, EGL_EXTENSIONS))
        var config: EGLConfig? = nil  // EGL_NO_CONFIG_KHR
        if !eglExtensions.contains("EGL_KHR_no_config_context") {
            var attributes: [EGLint] = [EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE]
            var count: EGLint = 0
            eglChooseConfig(display, &attributes, &config, 1, &count)
            if count == 0 { config = nil }
        }
        var made: EGLContext?
        for minor: EGLint in [2, 1, 0] {
            var attributes: [EGLint] = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, minor, EGL_NONE]
            if let context = eglCreateContext(display, config, nil, &attributes) { made = context; break }
        }
        guard let context = made else {
            eglTerminate(display)
            throw CoifError.gpuUnavailable(reason: "eglCreateContext(OpenGL ES 3.x) failed on the \(platform) platform: \(eglErrorName())")
        }
        guard eglMakeCurrent(display, nil, nil, context) == EGLBoolean(EGL_TRUE) else {
            eglDestroyContext(display, context)
            eglTerminate(display)
            throw CoifError.gpuUnavailable(reason: "eglMakeCurrent without a surface failed: \(eglErrorName())")
        }
        self.display = display
        self.context = context
        self.platform = platform
        renderer = glString(GL_RENDERER)
        version = glString(GL_VERSION)
        vendor = glString(GL_VENDOR)
        let lower = renderer.lowercased()
        isSoftware = lower.contains("llvmpipe") || lower.contains("softpipe") || lower.contains("swiftshader")
        var samples: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_SAMPLES), &samples)
        maxSamples = samples
        var count: GLint = 0
        glGetIntegerv(GLenum(GL_NUM_EXTENSIONS), &count)
        var names = Set<String>()
        for i in 0..<count {
            if let name = glGetStringi(GLenum(GL_EXTENSIONS), GLuint(i)) { names.insert(String(cString: name)) }
        }
        extensions = names
    }

    /// Destroys this context only. The display is left initialised: EGL hands every caller the same
    /// display for a platform, and eglTerminate would kill the other contexts of the process with it.
    /// Where it is current, the thread's EGL state goes with it (eglReleaseThread): a worker that made its
    /// context leaves nothing of EGL's for its thread's exit to free while the process exits.
    deinit {
        Self.lifecycle.lock()
        defer { Self.lifecycle.unlock() }
        let current = eglGetCurrentContext() == context
        if current { eglMakeCurrent(display, nil, nil, nil) }
        eglDestroyContext(display, context)
        if current { eglReleaseThread() }
    }

    /// Runs `body` (a context's creation, its programs' compiles and a warm-up frame) while no other thread
    /// of the process creates or destroys a context. Two batch workers bringing up their engines at once
    /// crashed in llvmpipe (SIGSEGV in swrast_dri.so in one worker while the other waited on a lock inside
    /// it: once in three runs of BatchFaultTests' two-worker job under MALLOC_CHECK_ on 2026-11-28); Mesa's
    /// software drivers are known to fault on contexts created from several threads at once. Bring-up is a
    /// once-per-engine cost, so serialising it costs a batch a fraction of a second; rendering stays parallel.
    /// Recursive: a context destroyed inside `body` (a failed bring-up) takes the same lock.
    public static func serialized<T>(_ body: () throws -> T) rethrows -> T {
        lifecycle.lock()
        defer { lifecycle.unlock() }
        return try body()
    }

    private static let lifecycle = NSRecursiveLock()

    public func hasExtension(_ name: String) -> Bool { extensions.contains(name) }

    /// Makes this context current on the calling thread (a no-op when it already is).
    public func makeCurrent() throws {
        if eglGetCurrentContext() == context { return }
        guard eglMakeCurrent(display, nil, nil, context) == EGLBoolean(EGL_TRUE) else {
            throw CoifError.gpuUnavailable(reason: "eglMakeCurrent failed: \(eglErrorName())")
        }
    }

    /// Makes this context current if it is not; for GL resources' set-up and clean-up, which must reach
    /// the context that owns them (a GL name means nothing in another context). A failure here shows up
    /// as a GL error at the next checked call.
    @discardableResult
    public func ensureCurrent() -> Bool {
        eglGetCurrentContext() == context || eglMakeCurrent(display, nil, nil, context) == EGLBoolean(EGL_TRUE)
    }

    /// Blocks until the GPU has finished all submitted work: how stages are timed where timer queries lie.
    public func finish() { glFinish() }

    // MARK: - Platforms

    /// The first EGL device that is hardware (its extensions do not name a software device).
    private static func deviceDisplay() -> EGLDisplay? {
        typealias QueryDevices = @convention(c) (EGLint, UnsafeMutablePointer<EGLDeviceEXT?>?, UnsafeMutablePointer<EGLint>?) -> EGLBoolean
        typealias QueryDeviceString = @convention(c) (EGLDeviceEXT?, EGLint) -> UnsafePointer<CChar>?
        typealias PlatformDisplay = @convention(c) (EGLenum, UnsafeMutableRawPointer?, UnsafePointer<EGLint>?) -> EGLDisplay?
        guard let queryPtr = eglGetProcAddress("eglQueryDevicesEXT"),
              let stringPtr = eglGetProcAddress("eglQueryDeviceStringEXT"),
              let displayPtr = eglGetProcAddress("eglGetPlatformDisplayEXT") else { return nil }
        let queryDevices = unsafeBitCast(queryPtr, to: QueryDevices.self)
        let queryDeviceString = unsafeBitCast(stringPtr, to: QueryDeviceString.self)
        let platformDisplay = unsafeBitCast(displayPtr, to: PlatformDisplay.self)
        var devices = [EGLDeviceEXT?](repeating: nil, count: 16)
        var count: EGLint = 0
        guard queryDevices(16, &devices, &count) == EGLBoolean(EGL_TRUE) else { return nil }
        for device in devices.prefix(Int(count)) {
            let deviceExtensions = queryDeviceString(device, EGL_EXTENSIONS).map { String(cString: $0) } ?? ""
            if deviceExtensions.contains("EGL_MESA_device_software") { continue }
            guard let display = platformDisplay(EGLenum(EGL_PLATFORM_DEVICE_EXT), device, nil) else { continue }
            var major: EGLint = 0, minor: EGLint = 0
            if eglInitialize(display, &major, &minor) == EGLBoolean(EGL_TRUE) { return display }
        }
        return nil
    }

    private static func surfacelessDisplay() -> EGLDisplay? {
        typealias PlatformDisplay = @convention(c) (EGLenum, UnsafeMutableRawPointer?, UnsafePointer<EGLint>?) -> EGLDisplay?
        guard let displayPtr = eglGetProcAddress("eglGetPlatformDisplayEXT") else { return nil }
        let platformDisplay = unsafeBitCast(displayPtr, to: PlatformDisplay.self)
        guard let display = platformDisplay(EGLenum(EGL_PLATFORM_SURFACELESS_MESA), nil, nil) else { return nil }
        var major: EGLint = 0, minor: EGLint = 0
        return eglInitialize(display, &major, &minor) == EGLBoolean(EGL_TRUE) ? display : nil
    }
}

func glString(_ name: Int32) -> String {
    guard let value = glGetString(GLenum(name)) else { return "" }
    return String(cString: value)
}

func eglErrorName() -> String { "EGL error 0x" + String(eglGetError(), radix: 16) }

func getenvString(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
}

#if canImport(Glibc)
import Glibc
#endif
