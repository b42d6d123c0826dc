// BitmapFont: Coif's one pixel font, 3×5 glyphs drawn scaled into an RGB image, for the labels tools draw
// (a diff heatmap's legend, a contact sheet's style names). Capitals (lower case draws as capitals),
// digits and a little punctuation; any other character draws as a blank. Not a text renderer: no
// kerning, no wrapping, no anti-aliasing.

public enum BitmapFont {
    public static let glyphWidth = 3, glyphHeight = 5

    /// Rows top to bottom, 3 bits each, most significant bit = left column.
    static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 3, 1, 7],
        "4": [5, 5, 7, 1, 1], "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 2, 2, 2],
        "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7],
        "A": [2, 5, 7, 5, 5], "B": [6, 5, 6, 5, 6], "C": [7, 4, 4, 4, 7], "D": [6, 5, 5, 5, 6],
        "E": [7, 4, 6, 4, 7], "F": [7, 4, 6, 4, 4], "G": [7, 4, 5, 5, 7], "H": [5, 5, 7, 5, 5],
        "I": [7, 2, 2, 2, 7], "J": [1, 1, 1, 5, 2], "K": [5, 5, 6, 5, 5], "L": [4, 4, 4, 4, 7],
        "M": [5, 7, 7, 5, 5], "N": [6, 5, 5, 5, 5], "O": [7, 5, 5, 5, 7], "P": [7, 5, 7, 4, 4],
        "Q": [2, 5, 5, 6, 3], "R": [6, 5, 6, 5, 5], "S": [7, 4, 7, 1, 7], "T": [7, 2, 2, 2, 2],
        "U": [5, 5, 5, 5, 7], "V": [5, 5, 5, 5, 2], "W": [5, 5, 7, 7, 5], "X": [5, 5, 2, 5, 5],
        "Y": [5, 5, 2, 2, 2], "Z": [7, 1, 2, 4, 7],
        ".": [0, 0, 0, 0, 2], ":": [0, 2, 0, 2, 0], "-": [0, 0, 7, 0, 0], "=": [0, 7, 0, 7, 0],
        ">": [4, 2, 1, 2, 4], "%": [5, 1, 2, 4, 5], "/": [1, 1, 2, 4, 4], "#": [5, 7, 5, 7, 5],
        "_": [0, 0, 0, 0, 7], " ": [0, 0, 0, 0, 0],
    ]

    /// Width in pixels of `text` at `scale` (one blank column between glyphs).
    public static func width(of text: String, scale: Int) -> Int {
        text.isEmpty ? 0 : (text.count * (glyphWidth + 1) - 1) * scale
    }

    /// Draws `text` with its top-left at (x, y), each glyph pixel a `scale`×`scale` square of `color`, into
    /// an RGB or RGBA image (alpha untouched), clipped to the image. With `maxWidth`, stops before the
    /// first glyph that would end past x + maxWidth.
    public static func draw(_ text: String, x: Int, y: Int, scale: Int, color: (UInt8, UInt8, UInt8),
                            into image: inout PixelImage, maxWidth: Int? = nil) {
        precondition(image.channels >= 3, "BitmapFont draws into RGB or RGBA images")
        var penX = x
        for character in text.uppercased() {
            if let maxWidth, penX + glyphWidth * scale > x + maxWidth { break }
            let rows = glyphs[character] ?? glyphs[" "]!
            for (row, bits) in rows.enumerated() {
                for column in 0..<glyphWidth where bits & (4 >> UInt8(column)) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            let px = penX + column * scale + dx, py = y + row * scale + dy
                            guard px >= 0, py >= 0, px < image.width, py < image.height else { continue }
                            let i = (py * image.width + px) * image.channels
                            image.pixels[i] = color.0; image.pixels[i + 1] = color.1; image.pixels[i + 2] = color.2
                        }
                    }
                }
            }
            penX += (glyphWidth + 1) * scale
        }
    }
}
