// GPUTimer: GPU milliseconds of a frame's intervals (a renderer's passes) from GL_EXT_disjoint_timer_query,
// whose entry points come from eglGetProcAddress. Off (nil) where the numbers cannot be trusted: on
// software rasterisers (llvmpipe reports wall time of its own threads, not GPU time) and where the driver
// lacks the extension. Knows nothing of what the intervals draw.
import CEGL
import CoifCore

/// Times up to `capacity` consecutive intervals of one frame with GL_TIME_ELAPSED queries (they cannot
/// nest: one interval at a time). Queries are made once and reused; a frame allocates nothing.
///
/// Use: `beginFrame()`, then `begin()`/`end()` around each pass, then `collect()` once the frame's work has
/// been waited for (after a readback, say); `lastFrameMs` is then the sum of the intervals. A frame whose
/// timing the driver marks disjoint (GL_GPU_DISJOINT_EXT: a clock change, a power-state switch) or that had
/// more intervals than `capacity` reports nil rather than a wrong number.
public final class GPUTimer {
    /// Why timer queries are off for `context`, or nil when they can be used.
    public static func unavailableReason(_ context: GPUContext) -> String? {
        if context.renderer.lowercased().contains("llvmpipe") || context.isSoftware {
            return "\(context.renderer) is a software rasteriser: its timer queries measure CPU threads, not a GPU"
        }
        return extensionMissingReason(context)
    }

    private static func extensionMissingReason(_ context: GPUContext) -> String? {
        context.hasExtension("GL_EXT_disjoint_timer_query") ? nil : "\(context.renderer) lacks GL_EXT_disjoint_timer_query"
    }

    public let capacity: Int
    private let context: GPUContext
    private let functions: Functions
    private var queries: [GLuint]
    private var resultsMs: [Double]
    /// Intervals begun in the frame being recorded (may exceed `capacity`: those are not timed).
    private var begun = 0
    private var open = false
    private var pending = false
    public private(set) var lastFrameMs: Double?
    /// How many intervals `lastFrameMs` sums (0 before the first collected frame).
    public private(set) var lastIntervalCount = 0

    /// nil where timer queries are off (see `unavailableReason`). `trustSoftwareRenderer` turns them on
    /// for a software rasteriser that has the extension: for tests of the plumbing only, never for figures.
    public init?(context: GPUContext, capacity: Int = 16, trustSoftwareRenderer: Bool = false) {
        let reason = trustSoftwareRenderer ? Self.extensionMissingReason(context) : Self.unavailableReason(context)
        guard reason == nil, capacity > 0, context.ensureCurrent(), let functions = Functions() else { return nil }
        self.context = context
        self.capacity = capacity
        self.functions = functions
        queries = [GLuint](repeating: 0, count: capacity)
        resultsMs = [Double](repeating: 0, count: capacity)
        queries.withUnsafeMutableBufferPointer { functions.genQueries(GLsizei(capacity), $0.baseAddress) }
    }

    deinit {
        context.ensureCurrent()
        if open { functions.endQuery(GLenum(GL_TIME_ELAPSED_EXT)) }
        queries.withUnsafeBufferPointer { functions.deleteQueries(GLsizei(capacity), $0.baseAddress) }
    }

    /// Starts a frame. A previous frame that was never collected is collected first (waiting for it).
    public func beginFrame() {
        if pending { collect() }
        if open { end() }
        begun = 0
        pending = true
        // Reading the flag clears it: what `collect` sees then concerns this frame only.
        var disjoint: GLint = 0
        glGetIntegerv(GLenum(GL_GPU_DISJOINT_EXT), &disjoint)
    }

    /// Opens the frame's next interval; one interval at a time (an open one is ended first). Nothing
    /// outside a frame (before `beginFrame` or after `collect`).
    public func begin() {
        guard pending else { return }
        if open { end() }
        if begun < capacity {
            functions.beginQuery(GLenum(GL_TIME_ELAPSED_EXT), queries[begun])
            open = true
        }
        begun += 1
    }

    /// Closes the open interval (nothing when none is open).
    public func end() {
        guard open else { return }
        functions.endQuery(GLenum(GL_TIME_ELAPSED_EXT))
        open = false
    }

    /// Waits for the frame's intervals and sets `lastFrameMs` (nil when disjoint, over capacity, or no
    /// frame was begun). Cheap once the frame's work has finished.
    public func collect() {
        if open { end() }
        guard pending else { return }
        pending = false
        let timed = min(begun, capacity)
        var total: Double = 0
        for i in 0..<timed {
            var nanoseconds: GLuint64 = 0
            functions.queryResult(queries[i], GLenum(GL_QUERY_RESULT_EXT), &nanoseconds)
            resultsMs[i] = Double(nanoseconds) / 1_000_000
            total += resultsMs[i]
        }
        var disjoint: GLint = 0
        glGetIntegerv(GLenum(GL_GPU_DISJOINT_EXT), &disjoint)
        lastIntervalCount = timed
        lastFrameMs = disjoint != 0 || begun > capacity || begun == 0 ? nil : total
    }

    /// GPU milliseconds of interval `index` of the last collected frame (nil out of range or when the frame
    /// has no trustworthy total).
    public func lastIntervalMs(_ index: Int) -> Double? {
        guard lastFrameMs != nil, index >= 0, index < lastIntervalCount else { return nil }
        return resultsMs[index]
    }

    /// The extension's entry points, from eglGetProcAddress (CEGL defines no prototypes for them).
    private struct Functions {
        typealias GenQueries = @convention(c) (GLsizei, UnsafeMutablePointer<GLuint>?) -> Void
        typealias DeleteQueries = @convention(c) (GLsizei, UnsafePointer<GLuint>?) -> Void
        typealias BeginQuery = @convention(c) (GLenum, GLuint) -> Void
        typealias EndQuery = @convention(c) (GLenum) -> Void
        typealias QueryResult = @convention(c) (GLuint, GLenum, UnsafeMutablePointer<GLuint64>?) -> Void
        let genQueries: GenQueries
        let deleteQueries: DeleteQueries
        let beginQuery: BeginQuery
        let endQuery: EndQuery
        let queryResult: QueryResult

        init?() {
            guard let gen = eglGetProcAddress("glGenQueriesEXT"), let delete = eglGetProcAddress("glDeleteQueriesEXT"),
                  let begin = eglGetProcAddress("glBeginQueryEXT"), let end = eglGetProcAddress("glEndQueryEXT"),
                  let result = eglGetProcAddress("glGetQueryObjectui64vEXT") else { return nil }
            genQueries = unsafeBitCast(gen, to: GenQueries.self)
            deleteQueries = unsafeBitCast(delete, to: DeleteQueries.self)
            beginQuery = unsafeBitCast(begin, to: BeginQuery.self)
            endQuery = unsafeBitCast(end, to: EndQuery.self)
            queryResult = unsafeBitCast(result, to: QueryResult.self)
        }
    }
}
