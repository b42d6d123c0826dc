// EmbedAssets: a build-tool plugin that compiles Shaders/ and Meshes/ into the `CoifAssets` module, so an
// installed `coif` binary needs no files beside it. The inputs are listed, so editing a shader or
// regenerating a mesh rebuilds exactly this module.
import Foundation
import PackagePlugin

@main
struct EmbedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        var inputs: [URL] = []
        for folder in ["Shaders", "Meshes"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                inputs.append(url)
            }
        }
        inputs.sort { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedAssets.swift")
        return [.buildCommand(
            displayName: "Embedding \(inputs.count) shader and mesh files",
            executable: try context.tool(named: "coif-embed").url,
            arguments: [root.path, output.path] + inputs.map(\.path),
            inputFiles: inputs,
            outputFiles: [output]
        )]
    }
}
