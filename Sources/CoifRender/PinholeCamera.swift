// PinholeCamera: the photo's camera, in the terms pose estimation uses (OpenCV: x right, y down, z forward,
// pixels), turned into the GL matrices the renderer needs.
import CoifCore

public struct PinholeCamera: Sendable, Equatable {
    public var widthPx: Int
    public var heightPx: Int
    public var fx: Double, fy: Double, cx: Double, cy: Double
    /// Clip planes in millimetres: a head is 0.1–10 m from a camera in any portrait.
    public var nearMm: Double = 50
    public var farMm: Double = 20_000

    public init(widthPx: Int, heightPx: Int, fx: Double, fy: Double, cx: Double, cy: Double) {
        self.widthPx = widthPx
        self.heightPx = heightPx
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
    }

    /// OpenCV camera space → GL view space: flip y and z (GL looks down −z with +y up).
    public static let cameraToView = Mat4.scale(Vec3(1, -1, -1))

    /// GL view space → clip space, matching the intrinsics exactly. NDC y is made to grow *downward*
    /// (ndc_y = 2v/H − 1) so framebuffer row 0 is the photo's top row and readback needs no flip.
    /// The intrinsics count pixels as landmarks do (pixel centres at whole numbers); GL puts centres at
    /// +0.5, hence the half-pixel shift of the principal point.
    public var viewToClip: Mat4 {
        let w = Double(widthPx), h = Double(heightPx), n = nearMm, f = farMm
        let a = Float(2 * fx / w), b = Float(1 - 2 * (cx + 0.5) / w)
        let c = Float(-2 * fy / h), d = Float(2 * (cy + 0.5) / h - 1)
        let e = Float(-(f + n) / (f - n)), g = Float(-2 * f * n / (f - n))
        // Column-major: column 2 holds the principal-point terms (they multiply view z).
        return Mat4(Vec4(a, 0, 0, 0), Vec4(0, c, 0, 0), Vec4(b, -d, e, -1), Vec4(0, 0, g, 0))
    }

    /// Projects a point in OpenCV camera space to pixels (for tests and checks).
    public func project(_ p: Vec3) -> Vec2 {
        Vec2(Float(fx) * p.x / p.z + Float(cx), Float(fy) * p.y / p.z + Float(cy))
    }
}
