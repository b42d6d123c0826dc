// MatFile: numeric variables from MATLAB v5 .mat files (libmatio through CVision), for ground truth
// such as AFLW2000-3D's Pose_Para and pt3d_68. Reads; never writes.

import CVision
import CoifCore

public enum MatFile {
    /// Variable `name` as doubles in MATLAB's column-major order, with its rows and columns.
    /// Throws `CoifError.inputMissing` (missing or unreadable file) or `assetFailed` naming the file: not a
    /// .mat file, the variable absent, or not a real numeric matrix.
    public static func read(path: String, variable name: String) throws -> (values: [Double], rows: Int, cols: Int) {
        var rows: Int32 = 0, cols: Int32 = 0
        let count = cv_mat_read(path, name, nil, 0, &rows, &cols)
        switch count {
        case -1: throw CoifError.inputMissing(path: path)
        case -2: throw CoifError.assetFailed(path: path, reason: "no variable '\(name)'")
        case -4: throw CoifError.assetFailed(path: "libmatio.so.11", reason: "not installed (Debian libmatio11), needed to read \(path)")
        case -5: throw CoifError.assetFailed(path: path, reason: "not a MATLAB .mat file (empty, truncated or another format)")
        case ..<0: throw CoifError.assetFailed(path: path, reason: "'\(name)' is not a real numeric matrix")
        default: break
        }
        var values = [Double](repeating: 0, count: Int(count))
        _ = cv_mat_read(path, name, &values, count, &rows, &cols)
        return (values, Int(rows), Int(cols))
    }
}
