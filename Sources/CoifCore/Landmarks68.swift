// Landmarks68: facts about the iBUG 300-W 68-point scheme that both the vision side (fits on mirror
// images) and the groom side (Coif's symmetric reference head) rely on.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum Landmarks68 {
    /// The eye centres: the mean of the subject's right eye's six points (36–41, image left on a frontal
    /// face) and of the left eye's (42–47). Their line is the face's roll in the image.
    public static func eyeCentres(_ p: [Vec2]) -> (right: Vec2, left: Vec2) {
        (p[36...41].reduce(Vec2(), +) / 6, p[42...47].reduce(Vec2(), +) / 6)
    }

    /// The eye line's angle in the image (radians, image axes; + = clockwise as seen, y down): from the
    /// subject's right eye centre to the left's.
    public static func eyeLineRadians(_ p: [Vec2]) -> Float {
        let eyes = eyeCentres(p)
        return atan2(eyes.left.y - eyes.right.y, eyes.left.x - eyes.right.x)
    }

    /// Index i of a face becomes index mirror[i] when the face is mirrored left–right (subject's right ↔
    /// left): jaw 0…16 reversed, brows 17…21 ↔ 26…22, nose bridge 27…30 and 33 fixed, nostrils 31…35
    /// reversed, eyes swap (36↔45, 37↔44, 38↔43, 39↔42, 40↔47, 41↔46), outer lips 48…54 and 55…59
    /// reversed, inner lips 60…64 and 65…67 reversed. An involution: mirror[mirror[i]] == i.
    public static let mirror: [Int] = {
        var m = Array(0..<68)
        func pair(_ a: Int, _ b: Int) { m[a] = b; m[b] = a }
        for i in 0...7 { pair(i, 16 - i) }                       // jaw 0↔16 … 7↔9, chin 8 alone
        for i in 0...4 { pair(17 + i, 26 - i) }                  // brows 17↔26 … 21↔22
        pair(31, 35); pair(32, 34)                               // nostrils; bridge 27–30 and 33 alone
        pair(36, 45); pair(37, 44); pair(38, 43); pair(39, 42); pair(40, 47); pair(41, 46)   // eyes
        pair(48, 54); pair(49, 53); pair(50, 52); pair(55, 59); pair(56, 58)                 // outer lips
        pair(60, 64); pair(61, 63); pair(65, 67)                                             // inner lips
        return m
    }()
}
