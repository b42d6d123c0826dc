// PinholeCamera: the photo's camera, one type from pose estimation to the renderer: its size, its pinhole
// intrinsics in pixels (no distortion; image points in pixel-index coordinates, the centre of the top-left
// pixel at (0, 0), as landmarks are), the clip planes a render uses, and where a crop of it lies. Solved for
// by the pose (CoifVision), turned into GL matrices by the renderer (CoifRender, PinholeCamera+GL).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public struct PinholeCamera: Sendable, Equatable, Codable {
    public var widthPx: Int
    public var heightPx: Int
    public var fx: Double, fy: Double, cx: Double, cy: Double
    /// Clip planes in millimetres: a head is 0.1–10 m from a camera in any portrait.
    public var nearMm: Double = 50
    public var farMm: Double = 20_000
    /// Where this image's pixel (0, 0) lies in the whole photo: non-zero for a crop (`cropped(to:)`).
    public var originPx: (x: Int, y: Int) { (originX, originY) }
    package var originX = 0, originY = 0

    /// The camera as JSON (`coif landmarks`, a batch's records): its size and intrinsics.
    enum CodingKeys: String, CodingKey { case widthPx, heightPx, fx, fy, cx, cy }

    public init(widthPx: Int, heightPx: Int, fx: Double, fy: Double, cx: Double, cy: Double) {
        self.widthPx = widthPx
        self.heightPx = heightPx
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
    }

    /// Horizontal field of view over the image width, principal point at the centre, square pixels.
    public static func fieldOfView(horizontalDegrees: Double, width: Int, height: Int) -> PinholeCamera {
        let f = Double(width) / 2 / tan(horizontalDegrees * .pi / 360)
        return PinholeCamera(widthPx: width, heightPx: height, fx: f, fy: f, cx: Double(width - 1) / 2, cy: Double(height - 1) / 2)
    }

    /// The horizontal field of view (degrees) over an image `width` px wide: `fieldOfView`'s inverse.
    public func horizontalFieldOfViewDegrees(width: Int) -> Double { 2 * atan(Double(width) / 2 / fx) * 180 / .pi }

    /// From EXIF FocalLengthIn35mmFilm: the 35 mm frame is 36 mm wide along the long side, so
    /// f(px) = mm / 36 × the long side in pixels. Principal point at the centre, square pixels.
    public static func focalLength35mm(_ mm: Double, width: Int, height: Int) -> PinholeCamera {
        let f = mm / 36 * Double(max(width, height))
        return PinholeCamera(widthPx: width, heightPx: height, fx: f, fy: f, cx: Double(width - 1) / 2, cy: Double(height - 1) / 2)
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

