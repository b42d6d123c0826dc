// OBJWriter: the one writer of Coif's Wavefront OBJ text: the generated head (triangles in groups) and
// hairstyles, generated or imported (one polyline per strand). Numbers go through `fixed` (3 decimals,
// head-space mm), so the same geometry always gives the same bytes: Meshes/ is compared byte for byte.
import CoifCore

struct OBJWriter {
    private(set) var text: String

    /// Starts the text with one `# ` comment line per element of `comments`.
    init(comments: [String], reservingCapacity capacity: Int = 0) {
        text = comments.map { "# " + $0 + "\n" }.joined()
        text.reserveCapacity(text.utf8.count + capacity)
    }

    mutating func object(_ name: String) { text += "o \(name)\n" }
    mutating func group(_ name: String) { text += "g \(name)\n" }

    mutating func vertex(_ v: Vec3) { text += "v \(fixed(v.x)) \(fixed(v.y)) \(fixed(v.z))\n" }

    /// A triangle over 0-based vertex indices (OBJ's are 1-based).
    mutating func face(_ f: SIMD3<UInt32>) { text += "f \(f.x + 1) \(f.y + 1) \(f.z + 1)\n" }

    /// A polyline through `count` consecutive vertices, the first of them 1-based vertex `first`.
    mutating func line(first: Int, count: Int) {
        text += "l"
        for index in first..<(first + count) { text += " \(index)" }
        text += "\n"
    }

    /// A hairstyle's file: two comment lines (what it is; its space, ended by `provenance`), object `name`,
    /// one `v` per point, then one `l` per strand, root first.
    static func hairstyle(name: String, strands: StrandSet, provenance: String) -> String {
        var obj = OBJWriter(comments: [
            "Coif hairstyle '\(name)': \(strands.strandCount) guide strands × \(strands.pointsPerStrand) points, root first.",
            "Head space (mm, +x subject's left, +y up, +z toward camera). " + provenance,
        ], reservingCapacity: strands.positions.count * 30)
        obj.object(name)
        for v in strands.positions { obj.vertex(v) }
        for i in 0..<strands.strandCount { obj.line(first: i * strands.pointsPerStrand + 1, count: strands.pointsPerStrand) }
        return obj.text
    }
}
