// DecodingProblem: a JSON file's decoding error as one line a person can act on, for every file Coif reads
// with Codable (style presets, golden manifests, batch job files): where in the file, then what is wrong.
import Foundation

extension DecodingError {
    /// "styles[3].gravityPerMm: Expected to decode Float but found a string instead.", "items[0]: missing
    /// 'photo'", "The given data was not valid JSON. (Unexpected end of file …)".
    public var oneLine: String {
        func place(_ path: [CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        let context: Context, what: String
        switch self {
        case .keyNotFound(let key, let c):
            context = c
            what = "missing '\(key.stringValue)'"
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            context = c
            // A syntax error's position is in the JSON parser's own error, underneath.
            let cause = (c.underlyingError as NSError?).map { " (" + ($0.userInfo[NSDebugDescriptionErrorKey] as? String ?? $0.localizedDescription) + ")" }
            what = c.debugDescription + (cause ?? "")
        @unknown default:
            return "\(self)"
        }
        let at = place(context.codingPath)
        return (at.isEmpty ? "" : at + ": ") + what
    }
}
