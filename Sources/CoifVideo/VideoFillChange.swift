// What a clip measures across a shot, frame to frame: how much the fill behind the removed hair changes
// against the background (VideoFillChange). The light a shot eases is the render stage's (RenderStage).
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation
import Logging

/// How much a clip's fill behind the removed hair changes from frame to frame, against how much the visible
/// background does (the clip's own noise): a still background changes by its noise only; a fill that is
/// re-made each frame flickers well above it.
struct VideoFillChange {
    /// The last frame's input, output and masks (1: background fill, 2: visible background), and its shot.
    private var last: (input: PixelImage, output: PixelImage, mask: [UInt8], shot: Int)?

    mutating func reset() { last = nil }

    /// The mean level of `image` where `matte` (8-bit) is over half; nil under 300 such pixels.
    static func meanLevel(_ image: PixelImage, where matte: PixelImage) -> Double? {
        var sum = 0.0, count = 0
        for i in 0..<(image.width * image.height) where matte.pixels[i * matte.channels] > 128 {
            sum += Double(image.pixels[3 * i]) + Double(image.pixels[3 * i + 1]) + Double(image.pixels[3 * i + 2])
            count += 1
        }
        return count >= 300 ? sum / Double(3 * count) : nil
    }

    mutating func next(input: PixelImage, output: PixelImage, analysis: PhotoAnalysis, removal: [Float]?, newHair: PixelImage, shot: Int)
        -> (fill: Double?, background: Double?) {
        let count = input.width * input.height
        var mask = [UInt8](repeating: 0, count: count)
        if let hair = analysis.ownHair, let plate = analysis.plate, let skin = analysis.filledSkin, let removal {
            for i in 0..<count where newHair.pixels[i * newHair.channels] == 0 {
                if removal[i] < 0.01 {
                    if hair.classes[i] == OwnHair.background { mask[i] = 2 }
                } else if skin[i] < 0.01 && (plate.pixels[3 * i] != input.pixels[3 * i] || plate.pixels[3 * i + 1] != input.pixels[3 * i + 1]
                                             || plate.pixels[3 * i + 2] != input.pixels[3 * i + 2]) {
                    mask[i] = 1
                }
            }
        }
        defer { last = (input, output, mask, shot) }
        guard let last, last.shot == shot, last.input.width == input.width, last.input.height == input.height else { return (nil, nil) }
        var fill = 0.0, fillCount = 0, background = 0.0, backgroundCount = 0
        for i in 0..<count where mask[i] != 0 && mask[i] == last.mask[i] {
            for c in 0..<3 {
                let j = 3 * i + c
                if mask[i] == 1 {
                    let d = Double(output.pixels[j]) - Double(last.output.pixels[j])
                    fill += d * d
                    fillCount += 1
                } else {
                    let d = Double(input.pixels[j]) - Double(last.input.pixels[j])
                    background += d * d
                    backgroundCount += 1
                }
            }
        }
        return (fillCount >= 300 ? (fill / Double(fillCount)).squareRoot() : nil,
                backgroundCount >= 300 ? (background / Double(backgroundCount)).squareRoot() : nil)
    }
}
