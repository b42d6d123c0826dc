// PixelImage.blitDownsampled: one image shrunk into a rectangle of another (contact sheets, report thumbnails).

extension PixelImage {
    /// `src` (RGB), area-averaged down into the `width`×`height` rectangle of this RGB image at (x, y): a contact
    /// sheet's tile, a report's thumbnail.
    public mutating func blitDownsampled(_ src: PixelImage, x: Int, y: Int, width: Int, height: Int) {
        let sx = Double(src.width) / Double(width), sy = Double(src.height) / Double(height)
        for ty in 0..<height {
            let y0 = Int(Double(ty) * sy), y1 = max(y0 + 1, min(src.height, Int(Double(ty + 1) * sy)))
            for tx in 0..<width {
                let x0 = Int(Double(tx) * sx), x1 = max(x0 + 1, min(src.width, Int(Double(tx + 1) * sx)))
                var sum = (0, 0, 0)
                for yy in y0..<y1 {
                    for xx in x0..<x1 {
                        let i = (yy * src.width + xx) * src.channels
                        sum.0 += Int(src.pixels[i]); sum.1 += Int(src.pixels[i + 1]); sum.2 += Int(src.pixels[i + 2])
                    }
                }
                let n = (y1 - y0) * (x1 - x0)
                let o = ((y + ty) * self.width + x + tx) * 3
                pixels[o] = UInt8(sum.0 / n); pixels[o + 1] = UInt8(sum.1 / n); pixels[o + 2] = UInt8(sum.2 / n)
            }
        }
    }
}
