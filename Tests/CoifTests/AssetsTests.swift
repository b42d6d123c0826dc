// AssetsTests: what the binary embeds is exactly what the repository holds.
import CoifAssets
import Foundation
import XCTest

final class AssetsTests: XCTestCase {
    func testEveryShaderAndMeshIsEmbeddedByteForByte() throws {
        var onDisk: [String] = []
        for folder in ["Shaders", "Meshes"] {
            let base = Fixtures.packageRoot.appendingPathComponent(folder)
            let walker = try XCTUnwrap(FileManager.default.enumerator(atPath: base.path))
            for case let relative as String in walker {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: base.appendingPathComponent(relative).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    onDisk.append(folder + "/" + relative)
                }
            }
        }
        XCTAssertEqual(Assets.paths, onDisk.sorted())
        for path in onDisk {
            let expected = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent(path), encoding: .utf8)
            XCTAssertEqual(Assets.text(path), expected, path)
        }
        XCTAssertNil(Assets.text("Meshes/no-such-file.obj"))
    }
}
