// Heatmap: a difference map as a picture a person reads at a glance. The reference is drawn as faded
// gray; differing pixels in a ramp from yellow (just over the threshold) to red (255 steps); anti-aliased
// pixels in blue; pixels outside the mask darker. Below the image a legend strip: the ramp as a bar with
// tick marks labelled in 8-bit steps, and swatches for AA and masked-out pixels.
import CoifCore

public enum Heatmap {
    static let antialiasColor: (UInt8, UInt8, UInt8) = (40, 120, 255)
    static let legendHeight = 40
    static let minimumWidth = 280

    /// Yellow → orange → red by error (8-bit steps, `threshold` to 255), on a square-root scale so that
    /// small differences are not all the same yellow.
    static func rampColor(error: Double, threshold: Double) -> (UInt8, UInt8, UInt8) {
        let lo = max(threshold, 1)
        let t = error <= lo ? 0 : min(((error - lo) / max(255 - lo, 1)).squareRoot(), 1)
        // (255, 230, 0) → (230, 0, 0)
        return (UInt8(255 - 25 * t), UInt8(230 * (1 - t)), 0)
    }

    /// Draws the map: RGB, the image's width (at least `minimumWidth`) × height + the legend strip.
    public static func render(_ map: DifferenceMap, threshold: Double) -> PixelImage {
        let width = max(map.width, minimumWidth), height = map.height + legendHeight
        var pixels = [UInt8](repeating: 255, count: width * height * 3)
        for y in 0..<map.height {
            for x in 0..<map.width {
                let i = y * map.width + x, o = (y * width + x) * 3
                let cell = map.cells[i]
                let color: (UInt8, UInt8, UInt8)
                switch cell {
                case DifferenceMap.equal:
                    let v = UInt8(185 + 0.25 * Double(map.referenceLuma[i]))  // faded: 185…249
                    color = (v, v, v)
                case DifferenceMap.notCompared:
                    let v = UInt8(90 + 0.25 * Double(map.referenceLuma[i]))   // darker: 90…154
                    color = (v, v, v)
                case DifferenceMap.antialiased:
                    color = antialiasColor
                default:
                    color = rampColor(error: Double(cell), threshold: threshold)
                }
                pixels[o] = color.0; pixels[o + 1] = color.1; pixels[o + 2] = color.2
            }
        }
        var image = PixelImage(width: width, height: height, channels: 3, pixels: pixels)
        drawLegend(into: &image, top: map.height, threshold: threshold)
        return image
    }

    private static func drawLegend(into image: inout PixelImage, top: Int, threshold: Double) {
        let width = image.width, height = image.height
        func fill(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int, _ c: (UInt8, UInt8, UInt8)) {
            for y in max(y0, 0)..<min(y0 + h, height) {
                for x in max(x0, 0)..<min(x0 + w, width) {
                    let o = (y * width + x) * 3
                    image.pixels[o] = c.0; image.pixels[o + 1] = c.1; image.pixels[o + 2] = c.2
                }
            }
        }
        let ink: (UInt8, UInt8, UInt8) = (20, 20, 20)
        fill(0, top, width, 1, ink)  // separator
        // Label, then the ramp bar over error = threshold…255 with ticks.
        BitmapFont.draw("ERR", x: 4, y: top + 6, scale: 2, color: ink, into: &image)
        let barX = 4 + BitmapFont.width(of: "ERR", scale: 2) + 6
        let swatches = 4 + BitmapFont.width(of: "AA", scale: 2) + 4 + 14 + 4 + BitmapFont.width(of: "OUT", scale: 2) + 14 + 8
        let barWidth = max(width - barX - swatches - 8, 60)
        let lo = max(threshold, 1)
        for i in 0..<barWidth {
            let error = lo + (255 - lo) * Double(i) / Double(max(barWidth - 1, 1))
            fill(barX + i, top + 5, 1, 12, rampColor(error: error, threshold: threshold))
        }
        for tick in ticks(from: lo) {
            let x = barX + Int((tick - lo) / (255 - lo) * Double(barWidth - 1))
            fill(x, top + 17, 1, 4, ink)
            let label = formatNumber(tick, digits: 1)
            let labelWidth = BitmapFont.width(of: label, scale: 2)
            let labelX = min(max(x - labelWidth / 2, barX), barX + barWidth - labelWidth)
            BitmapFont.draw(label, x: labelX, y: top + 23, scale: 2, color: ink, into: &image)
        }
        // Swatches: anti-aliasing, outside the mask.
        var x = barX + barWidth + 10
        fill(x, top + 5, 12, 12, antialiasColor)
        BitmapFont.draw("AA", x: x + 16, y: top + 6, scale: 2, color: ink, into: &image)
        x += 16 + BitmapFont.width(of: "AA", scale: 2) + 8
        fill(x, top + 5, 12, 12, (120, 120, 120))
        BitmapFont.draw("OUT", x: x + 16, y: top + 6, scale: 2, color: ink, into: &image)
    }

    /// The threshold (or 1), 255 and round values between.
    static func ticks(from lo: Double) -> [Double] {
        var values = [lo]
        for v in [64.0, 128, 192] where v - lo > 24 { values.append(v) }
        if 255 - lo > 0.5 { values.append(255) }
        return values
    }
}
