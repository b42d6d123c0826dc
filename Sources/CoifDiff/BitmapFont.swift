// BitmapFont: a 3×5 pixel font for the few labels a heatmap legend needs (digits, capitals, a little
// punctuation), drawn scaled into an RGB image. Unknown characters draw as blanks.
enum BitmapFont {
    static let glyphWidth = 3, glyphHeight = 5

    /// Rows top to bottom, 3 bits each, most significant bit = left column.
    static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 3, 1, 7],
        "4": [5, 5, 7, 1, 1], "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 2, 2, 2],
        "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7],
        "A": [2, 5, 7, 5, 5], "B": [6, 5, 6, 5, 6], "C": [7, 4, 4, 4, 7], "D": [6, 5, 5, 5, 6],
        "E": [7, 4, 6, 4, 7], "F": [7, 4, 6, 4, 4], "G": [7, 4, 5, 5, 7], "H": [5, 5, 7, 5, 5],
        "I": [7, 2, 2, 2, 7], "K": [5, 5, 6, 5, 5], "L": [4, 4, 4, 4, 7], "M": [5, 7, 7, 5, 5],
        "N": [6, 5, 5, 5, 5], "O": [7, 5, 5, 5, 7], "P": [7, 5, 7, 4, 4], "R": [6, 5, 6, 5, 5],
        "S": [7, 4, 7, 1, 7], "T": [7, 2, 2, 2, 2], "U": [5, 5, 5, 5, 7], "V": [5, 5, 5, 5, 2],
        "W": [5, 5, 7, 7, 5], "X": [5, 5, 2, 5, 5], "Y": [5, 5, 2, 2, 2],
        ".": [0, 0, 0, 0, 2], ":": [0, 2, 0, 2, 0], "-": [0, 0, 7, 0, 0], "=": [0, 7, 0, 7, 0],
        ">": [4, 2, 1, 2, 4], "%": [5, 1, 2, 4, 5], "/": [1, 1, 2, 4, 4], " ": [0, 0, 0, 0, 0],
    ]

    /// Width in pixels of `text` at `scale` (one blank column between glyphs).
    static func width(of text: String, scale: Int) -> Int {
        text.isEmpty ? 0 : (text.count * (glyphWidth + 1) - 1) * scale
    }

    /// Draws `text` with its top-left at (x, y) into 8-bit RGB `pixels` of `width`×`height`, clipped.
    static func draw(_ text: String, x: Int, y: Int, scale: Int, color: (UInt8, UInt8, UInt8),
                     into pixels: inout [UInt8], width: Int, height: Int) {
        var penX = x
        for character in text.uppercased() {
            let rows = glyphs[character] ?? glyphs[" "]!
            for (row, bits) in rows.enumerated() {
                for column in 0..<glyphWidth where bits & (4 >> UInt8(column)) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            let px = penX + column * scale + dx, py = y + row * scale + dy
                            guard px >= 0, py >= 0, px < width, py < height else { continue }
                            let i = (py * width + px) * 3
                            pixels[i] = color.0; pixels[i + 1] = color.1; pixels[i + 2] = color.2
                        }
                    }
                }
            }
            penX += (glyphWidth + 1) * scale
        }
    }
}
