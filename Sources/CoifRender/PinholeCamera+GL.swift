// PinholeCamera+GL: the photo's camera (CoifCore) as the matrices GL needs: OpenCV's camera space (x right,
// y down, z forward) to GL's view space, and a projection that matches the intrinsics exactly.
import CoifCore

extension PinholeCamera {
    /// OpenCV camera space → GL view space: flip y and z (GL looks down −z with +y up).
    public static let cameraToView = Mat4.scale(Vec3(1, -1, -1))

    /// A direction in OpenCV camera space as GL view space, or back (the flip is its own inverse).
    public static func flipCameraAndView(_ direction: Vec3) -> Vec3 { Vec3(direction.x, -direction.y, -direction.z) }

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
}
