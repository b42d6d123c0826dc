// VideoBackgroundPlate: the background behind a video's removed hair, kept from frame to frame. A still's
// plate synthesises the background where the own hair stood; a clip's frames each synthesised anew flicker,
// since the fill follows the matte's edge and its seeded tiles move with it. Over a clip the camera has often
// seen that background: the head moves and uncovers it. So, for a fixed camera:
//   - every pixel the parse calls background, with no hair near it (outside the removal), is remembered as
//     the real background;
//   - where a frame's removal reaches past the head (background fill, not skin), the remembered background
//     is used where the clip has shown it; elsewhere the fill is a running average of the frames' fills there,
//     so it holds still instead of being re-synthesised each frame, and a region the removal has left fades
//     out in a few frames rather than standing as a ghost of where the head was.
// A moving camera or a cut changes the remembered pixels wholesale: when the pixels seen in both differ by
// more than `sceneChangeLevels` on average, the memory is dropped and starts again. Limit: a camera that pans
// slowly keeps a memory that is slightly off until that test trips; a panning shot is not what it is for.
import CoifCore
import CoifPipeline
import CoifVision
import Foundation

final class VideoBackgroundPlate {
    /// Mean absolute difference (8-bit levels, over RGB) between a frame's visible background and the
    /// memory's, past which the scene is taken to have changed.
    static let sceneChangeLevels = 18.0
    /// A removal this strong (0…1) is the fill's own colour, with hardly any of the photo's: only such pixels
    /// seed the kept fill.
    static let keptFillFrom: Float = 0.9
    /// How far the kept fill moves toward each new frame's fill (a running average over ~1/fillFollow frames).
    static let fillFollow: Float = 0.25

    private(set) var width = 0, height = 0
    /// The real background, where `seen`.
    private var memory: [UInt8] = []
    private var seen: [Bool] = []
    /// The first fill made at each pixel not seen, where `filled`.
    private var keptFill: [UInt8] = []
    private var filled: [Bool] = []
    /// How many times the memory was dropped for a changed scene.
    private(set) var resets = 0

    func reset() {
        memory = []
        seen = []
        keptFill = []
        filled = []
    }

    /// `plate` (this frame's fill, from `frame` and its own hair `hair` removed by `removal`, skin filled by
    /// `skin`) with its background fill replaced by what the clip has shown there, or by the fills made there.
    func stabilise(_ plate: inout PixelImage, frame: PixelImage, hair: OwnHair, removal: [Float], skin: [Float]) {
        let count = frame.width * frame.height
        if frame.width != width || frame.height != height || memory.count != count * 3 {
            width = frame.width
            height = frame.height
            memory = [UInt8](repeating: 0, count: count * 3)
            keptFill = memory
            seen = [Bool](repeating: false, count: count)
            filled = seen
        }
        // The scene test, over pixels remembered and visible now.
        var difference = 0.0, compared = 0
        for i in 0..<count where seen[i] && removal[i] < 0.01 && hair.classes[i] == OwnHair.background {
            for c in 0..<3 { difference += Double(abs(Int(frame.pixels[3 * i + c]) - Int(memory[3 * i + c]))) }
            compared += 3
        }
        if compared > count / 20 && difference / Double(compared) > Self.sceneChangeLevels {
            for i in 0..<count { seen[i] = false; filled[i] = false }
            resets += 1
        }
        // The kept fill starts only clear of the skin the frame fills: the skin's silhouette is softened over
        // the background beside it, and a kept fill begun there held a skin-coloured line where the head's
        // edge had been, frame after frame: rings behind a moving head (Megamind).
        let nearSkin = HairPlate.maxFilter(skin, width: width, height: height, radius: HairPlate.growRadius(hair))
        frame.pixels.withUnsafeBufferPointer { photo in
            plate.pixels.withUnsafeMutableBufferPointer { out in
                for i in 0..<count {
                    let r = removal[i]
                    if r < 0.01 {
                        if hair.classes[i] == OwnHair.background {
                            seen[i] = true
                            for c in 0..<3 { memory[3 * i + c] = photo[3 * i + c] }
                        }
                        continue
                    }
                    // Skin fill (inside the head) follows the head: left to the frame's own fill. What was kept
                    // there before the head came over is stale.
                    guard skin[i] < 0.01 else { filled[i] = false; continue }
                    let changed = out[3 * i] != photo[3 * i] || out[3 * i + 1] != photo[3 * i + 1] || out[3 * i + 2] != photo[3 * i + 2]
                    guard changed else { continue }
                    let weight = min(r, 1)
                    if seen[i] {
                        for c in 0..<3 {
                            let value = Float(out[3 * i + c]) + weight * (Float(memory[3 * i + c]) - Float(out[3 * i + c]))
                            out[3 * i + c] = UInt8(max(0, min(255, value.rounded())))
                        }
                    } else if filled[i] {
                        // The fill's running average: steady where it stays, and a shape the removal had frames ago
                        // fades within a few frames instead of standing as a ghost of the old head.
                        for c in 0..<3 {
                            let kept = Float(keptFill[3 * i + c]) + Self.fillFollow * (Float(out[3 * i + c]) - Float(keptFill[3 * i + c]))
                            keptFill[3 * i + c] = UInt8(max(0, min(255, kept.rounded())))
                            let value = Float(out[3 * i + c]) + weight * (kept - Float(out[3 * i + c]))
                            out[3 * i + c] = UInt8(max(0, min(255, value.rounded())))
                        }
                    } else if r >= Self.keptFillFrom && nearSkin[i] < 0.01 {
                        filled[i] = true
                        for c in 0..<3 { keptFill[3 * i + c] = out[3 * i + c] }
                    }
                }
            }
        }
    }
}
