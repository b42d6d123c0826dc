// StandardAssets: the models and catalogs a process loads once, from the embedded Shaders/ and Meshes/
// (CoifAssets) and Debian's dlib model: Coif's head, the built-in catalog, the style library with any user
// catalogs, the face analyzer, and the renderer on its GPU context.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifRender
import CoifVision

extension FaceAnalyzer {
    /// The analyzer with dlib's model from Debian's libdlib-data, MediaPipe's detector and face mesh from
    /// the model cache (`faceMesh: false`: dlib alone), and the landmarks of Coif's own head. A missing or
    /// damaged mesh model is `assetFailed` (exit 50), naming the file and `make models`.
    public static func standard(predictorPath: String = FaceFinder.defaultPredictorPath, faceMesh: Bool = true) throws -> FaceAnalyzer {
        let head = try HeadModel.standard()
        // The mesh first: dlib's load may write its compact cache, and a missing model must leave nothing written.
        let mesh = faceMesh ? try FaceMesh() : nil
        return FaceAnalyzer(faceFinder: try FaceFinder(predictorPath: predictorPath), headLandmarks: head.landmarks68, faceMesh: mesh)
    }
}

extension HeadModel {
    /// Coif's own head (Meshes/head.obj with its 68 reference points), from the embedded assets.
    public static func standard() throws -> HeadModel {
        guard let headText = Assets.text("Meshes/head.obj"), let landmarkText = Assets.text("Meshes/head-landmarks68.json") else {
            throw CoifError.assetFailed(path: "Meshes/head.obj", reason: "not embedded in this build")
        }
        return try HeadModel.load(objText: headText, landmarksJSON: landmarkText, name: "Meshes/head.obj")
    }
}

extension StyleCatalog {
    /// The catalog of Coif's generated styles (Meshes/catalog.json), from the embedded assets.
    public static func standard() throws -> StyleCatalog {
        guard let text = Assets.text("Meshes/catalog.json") else {
            throw CoifError.assetFailed(path: "Meshes/catalog.json", reason: "not embedded in this build")
        }
        return try StyleCatalog.parse(json: text)
    }
}

extension StyleLibrary {
    /// The built-in catalog plus the user catalogs in `userDirectories` (`--styles`), after those named by
    /// COIF_STYLES, so a directory named on the command line wins.
    public static func standard(userDirectories: [String] = [], head: HeadModel? = nil) throws -> StyleLibrary {
        try StyleLibrary(builtIn: try StyleCatalog.standard(), builtInFile: { Assets.text("Meshes/" + $0) },
                         userDirectories: environmentDirectories() + userDirectories, head: try head ?? HeadModel.standard())
    }
}

extension HairRenderer {
    /// A renderer on a new GPU context with the embedded shaders: the one place outside CoifGPU that makes a
    /// GPU context (an engine's and a preview's). Call inside `GPUContext.serialized`.
    static func standard() throws -> HairRenderer {
        try HairRenderer(context: try GPUContext(), shaderSource: embeddedShader)
    }

    /// An embedded shader's source by file name (Shaders/NAME).
    static func embeddedShader(_ name: String) -> String? { Assets.text("Shaders/" + name) }
}
