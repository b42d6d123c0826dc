// Arguments: Coif's value types as command-line arguments, and the one way an error reaches the user.
// A value the parser cannot convert keeps its CoifError (a malformed colour is exit 21, a bad --face 22,
// as the README's table says) instead of becoming argument-parser's generic usage error; every error,
// the parser's own included, is one line `coif: <input>: <problem>` on standard error.
import ArgumentParser
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation

/// The first CoifError met while converting an argument (parsing runs on the main thread, once).
enum ArgumentFailure {
    nonisolated(unsafe) static var first: CoifError?

    /// Converts with `body`, keeping the error for `Coif.main` when it throws.
    static func convert<T>(_ body: () throws -> T) -> T? {
        do { return try body() } catch let error as CoifError {
            if first == nil { first = error }
            return nil
        } catch {
            return nil
        }
    }
}

extension HairColor: ExpressibleByArgument {
    public init?(argument: String) {
        guard let color = ArgumentFailure.convert({ try HairColor.parse(argument) }) else { return nil }
        self = color
    }
}

extension FaceChoice: ExpressibleByArgument {
    public init?(argument: String) {
        guard let choice = ArgumentFailure.convert({ try FaceChoice.parse(argument) }) else { return nil }
        self = choice
    }

    static func parse(_ text: String) throws -> FaceChoice {
        if text == "largest" { return .largest }
        if text == "all" { return .all }
        guard let index = Int(text), index >= 0 else {
            throw CoifError.invalidOption(name: "--face", reason: "must be 'largest', 'all' or a 0-based index, got '\(text)'")
        }
        return .index(index)
    }
}

extension PNGCompression: ExpressibleByArgument {
    public init?(argument: String) {
        guard let value: PNGCompression = choice(argument, flag: "--png-compression") else { return nil }
        self = value
    }
}

extension PreviewView: ExpressibleByArgument {
    public init?(argument: String) {
        guard let value: PreviewView = choice(argument, flag: "--view") else { return nil }
        self = value
    }
}

/// `--progress` (batch and video): how a long run reports how far it is.
enum ProgressOption: String, CaseIterable, ExpressibleByArgument {
    /// A bar on a terminal, lines otherwise.
    case auto
    /// A bar on standard error.
    case bar
    /// Open Job Description's openjd_progress and openjd_status lines on standard output.
    case lines
    case none

    init?(argument: String) {
        guard let value: ProgressOption = choice(argument, flag: "--progress") else { return nil }
        self = value
    }

    /// What is shown: `auto` decided by whether standard error is a terminal.
    var mode: ProgressMode {
        switch self {
        case .auto: return isatty(2) != 0 ? .bar : .lines
        case .bar: return .bar
        case .lines: return .lines
        case .none: return .none
        }
    }
}

/// What a run's progress shows (`ProgressOption.mode`).
enum ProgressMode { case bar, lines, none }

/// The 30-character bar a run's progress draws on a terminal: `done` of `total` as "#", the rest "-" (all
/// "#" for an empty total; all "-" for an unknown one).
func progressBar(_ done: Int, of total: Int?) -> String {
    let width = 30
    let filled = total.map { $0 > 0 ? min(width, done * width / $0) : width } ?? 0
    return String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
}

/// One of an enumerated option's values by name; else nil, keeping `invalidOption` naming the flag and
/// the choices (exit 22).
func choice<T: RawRepresentable & CaseIterable>(_ argument: String, flag: String) -> T? where T.RawValue == String {
    ArgumentFailure.convert {
        guard let value = T(rawValue: argument) else {
            let names = T.allCases.map(\.rawValue)
            throw CoifError.invalidOption(name: flag, reason: "must be \(names.dropLast().joined(separator: ", ")) or \(names.last ?? ""), got '\(argument)'")
        }
        return value
    }
}

/// One line on standard error, control characters in it escaped (a path may hold a newline).
func printErrorLine(_ text: String) {
    var line = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": line += "\\n"
        case "\r": line += "\\r"
        case "\t": line += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7f: line += String(format: "\\x%02x", scalar.value)
        default: line.unicodeScalars.append(scalar)
        }
    }
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// `--face`: one meaning of "largest" and of an index in every command. The largest face is the nearest to the
/// camera (its head's size in the photo given its pose; a box's width shrinks as a face turns), the face
/// `coif landmarks --face all` lists first; an index counts faces in that list's order.
enum FaceHelp {
    static let order = "'largest' is the nearest face (its head's size in the photo given its pose), the first that `coif landmarks --face all` lists; an index counts faces in that order, from 0"

    /// Render and recolor: one face, or every face.
    static let oneOrAll = ArgumentHelp("Which face: 'largest', 'all' (every face, the nearest drawn last) or a 0-based index. " + order + ".",
                                       valueName: "largest|all|index")
    /// Commands that follow or measure one face.
    static let one = ArgumentHelp("Which face: 'largest' or a 0-based index. " + order + ".", valueName: "largest|index")
}

/// `--face` where one face or every face may be chosen (render, recolor).
struct FacesOption: ParsableArguments {
    @Option(help: FaceHelp.oneOrAll)
    var face: FaceChoice = .largest
}

/// `--face` where one face is chosen (recommend, video: in the first frame, then followed).
struct FaceOption: ParsableArguments {
    @Option(help: FaceHelp.one)
    var face: FaceChoice = .largest
}

/// `--styles DIR`: user catalog directories, wherever a style is named.
struct StyleDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("styles"), help: ArgumentHelp(
        "A user catalog directory (catalog.json + styles/, as `coif groom import --out DIR` writes); repeatable. COIF_STYLES adds more (colon-separated). A user style of the same name wins over a built-in one.",
        valueName: "dir"))
    var directories: [String] = []

    /// Every user catalog's files (COIF_STYLES's and these): inputs no output may replace.
    var catalogFiles: [String] { StyleLibrary.userCatalogFiles(directories: StyleLibrary.environmentDirectories() + directories) }
}

/// The render's own flags, declared once for every command that renders hair on a person (render, sheet,
/// video, bench): the same names, help and defaults everywhere, and one mapping to `RenderSettings`, the form a
/// batch job file and a golden case give them in, so each checks and applies them the same way.
struct RenderFlags: ParsableArguments {
    @Option(help: "Seed for child strand placement and per-strand variation.")
    var seed: UInt64 = 1

    @Option(help: "Horizontal field of view of the camera in degrees (default: a photo's EXIF focal length, else 50).")
    var fovDegrees: Double?

    @Option(help: "Strand count multiplier on the automatic level of detail (0.05–4).")
    var detail: Double = 1

    @Option(help: "Draw exactly this many strands (the guides plus interpolated children; fewer than the guides: that many guides) instead of the automatic count.")
    var strands: Int?

    @Flag(help: "Draw the new hair over the person's own hair instead of taking it away first (no parse, no plate).")
    var keepOwnHair = false

    @Flag(help: "Light the hair without the key light's shadow (the hair's on itself and the head's on the hair).")
    var noShadows = false

    @Flag(help: "Light the hair with Coif's portrait lights instead of the light read from the face's shading.")
    var studioLight = false

    @Flag(help: "Leave the hair as rendered instead of giving it the picture's grain and softness at the face.")
    var sharpHair = false

    @Flag(help: "Shade every clump of strands alike, without the tone each clump takes from its patch of scalp.")
    var flatClumps = false

    /// The flags checked as a still checks its settings (field of view, detail, strands, face), before a model
    /// is loaded or a file read: each command's `validate()`, for its photo, face and colour.
    func validateSettings(photo: String, face: FaceChoice, color: HairColor) throws {
        var probe = TryOnJob(photoPath: photo, color: color)
        try settings(face: face).apply(to: &probe)
        try probe.validateSettings()
    }

    /// The flags as settings, with the command's face and PNG effort.
    func settings(face: FaceChoice, pngCompression: PNGCompression? = nil) -> RenderSettings {
        RenderSettings(seed: seed, detail: detail, strands: strands, face: RenderSettings.FaceSetting(face), fovDegrees: fovDegrees,
                       keepOwnHair: keepOwnHair, noShadows: noShadows, studioLight: studioLight, sharpHair: sharpHair,
                       flatClumps: flatClumps, pngCompression: pngCompression?.rawValue)
    }
}
