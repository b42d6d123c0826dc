// Frame: one decoded picture on its way through the pipeline, with what is known of the camera that took
// it. A still photo, a video frame and a batch item are all a Frame; where it came from (a file, a
// decoder, a test's memory) is not the analysis's business. Decoding is its own step (CoifMedia).

/// An upright RGB image (sRGB-encoded) and its camera facts. A value: nothing in it refers back to a file.
public struct Frame: Sendable {
    /// RGB, sRGB-encoded, upright (EXIF orientation already applied by the decoder).
    public var image: PixelImage
    /// Names the input in error messages: the photo's path, or a label such as "clip.mp4 frame 12".
    public var source: String
    /// FocalLengthIn35mmFilm from EXIF, when the file had it.
    public var focalLength35mm: Double?
    /// The camera's horizontal field of view asked for by the user (--fov-degrees); wins over EXIF.
    public var fieldOfViewDegrees: Double?
    /// The EXIF orientation the decoder applied (1 = none).
    public var exifOrientation: Int
    /// Position in a sequence (a video's frame number), nil for a still.
    public var index: Int?
    /// When the frame is shown, in seconds from the sequence's start (a video's presentation time), nil for a
    /// still.
    public var timestamp: Double?

    public init(image: PixelImage, source: String, focalLength35mm: Double? = nil, fieldOfViewDegrees: Double? = nil,
                exifOrientation: Int = 1, index: Int? = nil, timestamp: Double? = nil) {
        self.image = image
        self.source = source
        self.focalLength35mm = focalLength35mm
        self.fieldOfViewDegrees = fieldOfViewDegrees
        self.exifOrientation = exifOrientation
        self.index = index
        self.timestamp = timestamp
    }

    /// The same frame with the user's field of view (nil keeps EXIF or the default).
    public func withFieldOfView(_ degrees: Double?) -> Frame {
        var copy = self
        copy.fieldOfViewDegrees = degrees
        return copy
    }
}
