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
    /// Where this image's pixel (0, 0) lies in the whole photo: non-zero for a crop (`cropped(to:)`).
    public var originPx: (x: Int, y: Int) { (originX, originY) }
    var originX = 0, originY = 0

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

    /// Projects a point in OpenCV camera space to pixels (for tests and checks).
    public func project(_ p: Vec3) -> Vec2 {
        Vec2(Float(fx) * p.x / p.z + Float(cx), Float(fy) * p.y / p.z + Float(cy))
    }

    /// `project(p)`, or nil for a point not in front of the near plane (behind the camera, no image).
    public func projectInFront(_ p: Vec3) -> Vec2? {
        Double(p.z) > nearMm ? project(p) : nil
    }
}

/// A rectangle of whole pixels in an image: `x`, `y` its top-left, `width` × `height` its size.
public struct PixelRect: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest rectangle holding both.
    public func union(_ other: PixelRect) -> PixelRect {
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return PixelRect(x: x0, y: y0, width: max(x + width, other.x + other.width) - x0,
                         height: max(y + height, other.y + other.height) - y0)
    }
}

extension PinholeCamera {
    /// The same camera seeing only `rect` of its image: the principal point moves by the rectangle's
    /// corner, so every pixel of the crop sees what the same pixel of the whole image sees.
    public func cropped(to rect: PixelRect) -> PinholeCamera {
        var camera = PinholeCamera(widthPx: rect.width, heightPx: rect.height, fx: fx, fy: fy,
                                   cx: cx - Double(rect.x), cy: cy - Double(rect.y))
        camera.nearMm = nearMm
        camera.farMm = farMm
        camera.originX = originX + rect.x
        camera.originY = originY + rect.y
        return camera
    }

    /// The pixels a box of head space (corners `low`, `high`, mm) can cover through `headToCamera`, grown
    /// by `marginPx` and clipped to the image: the projection of its eight corners, which bounds the
    /// projection of everything inside it while all of them are in front of the camera. The whole image
    /// when a corner is not (a head that close fills the frame anyway); nil when it falls outside the image.
    public func pixelsCovering(low: Vec3, high: Vec3, headToCamera: Mat4, marginPx: Int) -> PixelRect? {
        var minU = Float.infinity, minV = Float.infinity, maxU = -Float.infinity, maxV = -Float.infinity
        for corner in 0..<8 {
            let p = Vec3(corner & 1 == 0 ? low.x : high.x, corner & 2 == 0 ? low.y : high.y, corner & 4 == 0 ? low.z : high.z)
            let c = headToCamera.transformPoint(p)
            guard Double(c.z) > nearMm else { return PixelRect(x: 0, y: 0, width: widthPx, height: heightPx) }
            let uv = project(c)
            minU = min(minU, uv.x); maxU = max(maxU, uv.x)
            minV = min(minV, uv.y); maxV = max(maxV, uv.y)
        }
        let margin = Float(marginPx)
        let x0 = max(0, Int((minU - margin).rounded(.down))), y0 = max(0, Int((minV - margin).rounded(.down)))
        let x1 = min(widthPx, Int((maxU + margin).rounded(.up)) + 1), y1 = min(heightPx, Int((maxV + margin).rounded(.up)) + 1)
        guard x1 > x0 && y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

