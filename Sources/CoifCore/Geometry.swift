// Small linear algebra for the pipeline: column-major 4x4 matrices in Float (what GL takes), and
// 3x3 rotations in Double (what pose estimation produces). Linux has no simd matrix types.

public typealias Vec2 = SIMD2<Float>
public typealias Vec3 = SIMD3<Float>
public typealias Vec4 = SIMD4<Float>

@inlinable public func dot(_ a: Vec3, _ b: Vec3) -> Float { (a * b).sum() }
@inlinable public func cross(_ a: Vec3, _ b: Vec3) -> Vec3 {
    Vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
@inlinable public func length(_ a: Vec3) -> Float { dot(a, a).squareRoot() }
@inlinable public func normalize(_ a: Vec3) -> Vec3 {
    let l = length(a)
    return l > 0 ? a / l : a
}
/// How far apart two directions given as angles (radians, as `atan2` returns them) are: 0…π, either way round.
@inlinable public func angleBetween(_ a: Float, _ b: Float) -> Float {
    let d = abs(a - b).truncatingRemainder(dividingBy: 2 * .pi)
    return d > .pi ? 2 * .pi - d : d
}

/// A 4x4 matrix stored column-major, as `glUniformMatrix4fv(…, GL_FALSE, …)` expects.
public struct Mat4: Sendable, Equatable {
    public var columns: (Vec4, Vec4, Vec4, Vec4)

    public init(_ c0: Vec4, _ c1: Vec4, _ c2: Vec4, _ c3: Vec4) { columns = (c0, c1, c2, c3) }

    public static let identity = Mat4(Vec4(1, 0, 0, 0), Vec4(0, 1, 0, 0), Vec4(0, 0, 1, 0), Vec4(0, 0, 0, 1))

    public static func == (a: Mat4, b: Mat4) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2 && a.columns.3 == b.columns.3
    }

    /// Element at row r, column c.
    public subscript(r: Int, c: Int) -> Float {
        switch c {
        case 0: return columns.0[r]
        case 1: return columns.1[r]
        case 2: return columns.2[r]
        default: return columns.3[r]
        }
    }

    public static func * (a: Mat4, b: Mat4) -> Mat4 {
        Mat4(a * b.columns.0, a * b.columns.1, a * b.columns.2, a * b.columns.3)
    }

    public static func * (m: Mat4, v: Vec4) -> Vec4 {
        m.columns.0 * v.x + m.columns.1 * v.y + m.columns.2 * v.z + m.columns.3 * v.w
    }

    /// The 16 floats, column-major.
    public var floats: [Float] {
        [columns.0.x, columns.0.y, columns.0.z, columns.0.w, columns.1.x, columns.1.y, columns.1.z, columns.1.w,
         columns.2.x, columns.2.y, columns.2.z, columns.2.w, columns.3.x, columns.3.y, columns.3.z, columns.3.w]
    }

    /// A rigid transform from a row-major 3x3 rotation and a translation.
    public static func rigid(rotationRowMajor r: [Double], translation t: SIMD3<Double>) -> Mat4 {
        precondition(r.count == 9)
        return Mat4(Vec4(Float(r[0]), Float(r[3]), Float(r[6]), 0),
                    Vec4(Float(r[1]), Float(r[4]), Float(r[7]), 0),
                    Vec4(Float(r[2]), Float(r[5]), Float(r[8]), 0),
                    Vec4(Float(t.x), Float(t.y), Float(t.z), 1))
    }

    public static func scale(_ s: Vec3) -> Mat4 {
        Mat4(Vec4(s.x, 0, 0, 0), Vec4(0, s.y, 0, 0), Vec4(0, 0, s.z, 0), Vec4(0, 0, 0, 1))
    }

    public func transformPoint(_ p: Vec3) -> Vec3 {
        let v = self * Vec4(p.x, p.y, p.z, 1)
        return Vec3(v.x, v.y, v.z) / v.w
    }
}
