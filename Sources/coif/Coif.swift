// coif: the command line. Argument parsing and printing only; the work is in CoifPipeline.
import ArgumentParser
import CoifCore
import CoifPipeline
import Foundation
import Logging

@main
struct Coif: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Headless GPU hair try-on: a portrait photo + a hairstyle + a colour → a composite PNG.",
        discussion: "Exit codes: 0 ok, 1 images differ or a golden case fails (diff, golden), 3 some batch items failed (batch), 10 input missing, 11 not an image (or not a video ffmpeg reads), 12 damaged image or clip, 13 no face, 14 image sizes differ, 15 image too large, 20 unknown style, 21 malformed colour, 22 invalid option, 23 batch job refused, 30 output not writable, 40 no GPU context, 41 shader error, 50 asset error, 64 usage, 70 internal error, 130/143 stopped by SIGINT/SIGTERM.",
        version: coifVersion,
        subcommands: [Render.self, VideoCommand.self, VideoJoin.self, TimingChartCommand.self, Batch.self, BatchReportCommand.self, Styles.self, Landmarks.self, Bench.self, GroomCommand.self, Diff.self, GoldenCommand.self, Eval.self, Preview.self, Sheet.self, Recommend.self, Recolor.self]
    )

    /// Parses, runs, and turns every failure into one line and its documented exit code.
    static func main() {
        // Mesa's libEGL prints its own warnings ("libEGL warning: egl: failed to create dri2 screen") before
        // Coif's one-line error: fatal ones only, unless the user asked for more. Set first, before any thread
        // could read the environment.
        setenv("EGL_LOG_LEVEL", "fatal", 0)
        // One SIGINT/SIGTERM handler for every command: what a command registers (temporaries, ffmpeg's
        // logs and children) is removed and killed, one line is printed, and the exit is 130 or 143.
        StopSignals.install()
        do {
            try refuseNonUTF8Arguments()
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(reporting: error)
        }
    }

    static func exit(reporting error: Error) -> Never {
        if let failure = ArgumentFailure.first {
            printErrorLine("coif: \(failure.description)")
            Foundation.exit(failure.exitCode)
        }
        let parser = ParserFailure(error)
        // A command's validate() throws Coif's own errors; the parser hands them back wrapped.
        if let failure = (error as? CoifError) ?? (parser?.validationError as? CoifError) {
            printErrorLine("coif: \(failure.description)")
            Foundation.exit(failure.exitCode)
        }
        if let code = error as? ExitCode { Foundation.exit(code.rawValue) }  // already reported
        let code = exitCode(for: error)
        if code == .success {  // --help, --version
            print(fullMessage(for: error))
            Foundation.exit(0)
        }
        if let parser, let value = parser.refusedValue(arguments: CommandLine.arguments) {
            printErrorLine("coif: \(value.option): '\(value.text)' is not a value it takes (see 'coif --help')")
            Foundation.exit(CoifError.invalidOption(name: "", reason: "").exitCode)
        }
        let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "usage error"
        let trimmed = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
        printErrorLine("coif: \(trimmed) (see 'coif --help')")
        // A value an option cannot take (`--strands lots`) is an invalid option value, 22, as the README's
        // table says; 64 stays for usage (an unknown option, a missing argument or value).
        Foundation.exit(parser?.isRefusedValue == true ? CoifError.invalidOption(name: "", reason: "").exitCode : code.rawValue)
    }

    /// Coif's paths are Swift strings, which hold Unicode: an argument whose bytes are not UTF-8 (a Latin-1
    /// file name, `o\xff.png`) would reach the file system as other bytes (U+FFFD), writing a file of another
    /// name or missing one that exists. Such an argument is refused (exit 22), naming its position and
    /// showing its bytes escaped, before anything is read or written.
    static func refuseNonUTF8Arguments() throws {
        for i in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[i] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw))
            if String(validatingUTF8: raw) == nil {
                let shown = bytes.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : String(format: "\\x%02x", $0) }.joined()
                throw CoifError.invalidOption(name: "argument \(i) (\(shown))",
                                              reason: "not valid UTF-8; Coif takes UTF-8 file names and values (rename the file)")
            }
        }
    }
}

/// swift-argument-parser's error by its kind. The library keeps its error types internal (a `CommandError`
/// holding a `ParserError`) and its public `exitCode(for:)` gives every one of them 64; the kind, the
/// `ParserError` case's name read by reflection, tells a value an option cannot take (22) from the command
/// line's shape (64) without reading the library's English. CLITests pins each kind Coif relies on.
struct ParserFailure {
    /// The `ParserError` case: `unableToParseValue`, `missingValueForOption`, `unknownOption`, `noValue`, …
    let kind: String
    let payload: Any?

    init?(_ error: Error) {
        let parserError: Any
        if String(describing: type(of: error)) == "ParserError" { parserError = error } else {
            guard let inner = Mirror(reflecting: error).children.first(where: { $0.label == "parserError" })?.value else { return nil }
            parserError = inner
        }
        let mirror = Mirror(reflecting: parserError)
        guard mirror.displayStyle == .enum else { return nil }
        if let child = mirror.children.first, let label = child.label {
            kind = label
            payload = child.value
        } else {
            kind = "\(parserError)"
            payload = nil
        }
    }

    /// The error a command's `validate()` threw.
    var validationError: Error? { kind == "userValidationError" ? payload as? Error : nil }

    /// A value given that the option's type cannot hold (`--strands lots`, `--seed=-1`).
    var isRefusedValue: Bool { kind == "unableToParseValue" }

    /// For a missing value: the option and the number that follows it on the command line, which the parser
    /// takes for an option of its own (`--seed -1`): a value given and refused (22), not a missing one (64).
    func refusedValue(arguments: [String]) -> (option: String, text: String)? {
        guard kind == "missingValueForOption", let payload else { return nil }
        // The payload is (InputOrigin, Name); a Name is .long("seed"), .short("s", …) or .longWithSingleDash.
        guard let name = Mirror(reflecting: payload).children.dropFirst().first?.value,
              let caseChild = Mirror(reflecting: name).children.first, let label = caseChild.label else { return nil }
        let value = Mirror(reflecting: caseChild.value).children.first?.value ?? caseChild.value
        let option: String
        switch label {
        case "long": option = "--\(value)"
        case "short": option = "-\(value)"
        case "longWithSingleDash": option = "-\(value)"
        default: return nil
        }
        guard let at = arguments.lastIndex(of: option), at + 1 < arguments.count,
              arguments[at + 1].hasPrefix("-"), Double(arguments[at + 1]) != nil else { return nil }
        return (option, arguments[at + 1])
    }
}

let coifVersion = "0.1.0"

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .long, help: "Log progress to standard error.")
    var verbose = false

    func makeLogger() -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .debug
            return handler
        }
        var logger = Logger(label: "coif")
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}

/// Progress as a render farm's agent reads it: Open Job Description's `openjd_progress: P` (percent, 0–100)
/// and `openjd_status: MESSAGE` lines on standard output, each written whole at once (never interleaved
/// with another thread's), apart from the human bar on standard error.
final class FarmProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var lastTenths = -1

    /// `openjd_status: message` (one line: line breaks become spaces).
    func status(_ message: String) {
        Self.emit("openjd_status: " + message.replacingOccurrences(of: "\n", with: " "))
    }

    /// `openjd_progress: P` for `done` of `total`, when its tenth of a percent changed since the last line.
    func progress(_ done: Int, of total: Int) {
        guard total > 0 else { return }
        let tenths = min(1000, done * 1000 / total)
        let changed = lock.withLock { () -> Bool in
            guard tenths != lastTenths else { return false }
            lastTenths = tenths
            return true
        }
        if changed { Self.emit("openjd_progress: " + (tenths % 10 == 0 ? "\(tenths / 10)" : String(format: "%.1f", Double(tenths) / 10))) }
    }

    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Runs `body`, turning a CoifError into its one-line message and exit code.
func runReportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as CoifError {
        printErrorLine("coif: \(error.description)")
        throw ExitCode(error.exitCode)
    }
}

/// `text` padded with spaces to `width` characters, on the right (or the left with `right: true`):
/// Foundation's `%-10@` does not pad on Linux.
func padded(_ text: String, _ width: Int, right: Bool = false) -> String {
    guard text.count < width else { return text }
    let fill = String(repeating: " ", count: width - text.count)
    return right ? fill + text : text + fill
}
