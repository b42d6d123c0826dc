// SRGB: the IEC 61966-2-1 transfer function, one place for every module that turns 8-bit photo values into
// linear light and back (the render's colours and composite, the vision side's scalp texture).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// IEC 61966-2-1 sRGB decode.
@inlinable public func srgbToLinear(_ c: Float) -> Float {
    c <= 0.04045 ? c / 12.92 : powf((c + 0.055) / 1.055, 2.4)
}

/// `srgbToLinear` of each 8-bit value (v / 255), once per process: what turning a photo's bytes into linear
/// light looks up.
public let srgbDecodeTable: [Float] = (0..<256).map { srgbToLinear(Float($0) / 255) }

/// IEC 61966-2-1 sRGB encode.
@inlinable public func linearToSrgb(_ c: Float) -> Float {
    c <= 0.0031308 ? c * 12.92 : 1.055 * powf(c, 1 / 2.4) - 0.055
}

/// IEC 61966-2-1 sRGB decode, in double precision (the image comparison's colour difference).
@inlinable public func srgbToLinear(_ c: Double) -> Double {
    c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
}

/// IEC 61966-2-1 sRGB encode, in double precision.
@inlinable public func linearToSrgb(_ c: Double) -> Double {
    c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055
}
