// StrictDecoding: a JSON object read strictly. A key its reader does not know is refused by name: a job file's
// misspelt "colours", ignored, would render the default colour for thousands of items.

public enum StrictDecoding {
    /// Throws when the object at `decoder` has a key outside `known`.
    public static func refuseUnknownKeys(_ decoder: Decoder, known: [String]) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = c.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "unknown key \"\(unknown)\" (known: \(known.joined(separator: ", ")))"))
        }
    }
}

/// Any key of a JSON object (for listing an object's keys).
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
