// HairLookTests: a job's look is set from outside CoifRender with the public API alone (no @testable
// here): every field of HairShading and Lighting through their memberwise initialisers, whose defaults
// are the ones a colour gives.
import CoifCore
import CoifRender
import XCTest

final class HairLookTests: XCTestCase {
    func testAColourGivesTheDefaultsTheMemberwiseInitialisersSpellOut() throws {
        let color = try HairColor.parse("auburn")
        let look = HairLook(color: color)
        XCTAssertEqual(look.lighting, Lighting())
        XCTAssertEqual(look, HairLook(shading: HairShading(color: color), lighting: Lighting(), name: "auburn"))
        let derived = look.shading
        let spelled = HairShading(recipe: color.recipe, longitudinalRoughness: 0.25, azimuthalRoughness: 0.3,
                                  cuticleTiltDegrees: 2, indexOfRefraction: 1.55, colorVariation: 0.25,
                                  rootOcclusion: 0.55, tipFade: 0.25, clumpVariation: 0.6)
        XCTAssertEqual(spelled, derived)
        XCTAssertEqual(HairShading(recipe: color.recipe), derived)
        XCTAssertEqual(Lighting(keyDirection: normalize(Vec3(-0.35, 0.65, 0.68)), keyRadiance: Vec3(1.5, 1.45, 1.4),
                                fillDirection: normalize(Vec3(0.7, 0.1, 0.7)), fillRadiance: Vec3(0.35, 0.37, 0.4),
                                ambientRadiance: Vec3(0.3, 0.31, 0.33), exposure: 1), Lighting())
    }

    /// Every field of the look is settable from outside CoifRender, and each one on its own changes the look
    /// (a field that `==` ignored, or a setter that wrote elsewhere, fails here, naming the field).
    func testEveryFieldIsSettable() throws {
        let base = HairLook(color: try HairColor.parse("black"))
        let edits: [(String, (inout HairLook) -> Void)] = [
            ("recipe", { $0.shading.recipe = HairRecipe(melanin: 0.3, redness: 0.5) }),
            ("longitudinalRoughness", { $0.shading.longitudinalRoughness = 0.3 }),
            ("azimuthalRoughness", { $0.shading.azimuthalRoughness = 0.4 }),
            ("cuticleTiltDegrees", { $0.shading.cuticleTiltDegrees = 3 }),
            ("indexOfRefraction", { $0.shading.indexOfRefraction = 1.5 }),
            ("colorVariation", { $0.shading.colorVariation = 0 }),
            ("rootOcclusion", { $0.shading.rootOcclusion = 0.5 }),
            ("tipFade", { $0.shading.tipFade = 0.2 }),
            ("clumpVariation", { $0.shading.clumpVariation = 0 }),
            ("keyDirection", { $0.lighting.keyDirection = Vec3(0, 1, 0) }),
            ("keyRadiance", { $0.lighting.keyRadiance = Vec3(2, 2, 2) }),
            ("fillDirection", { $0.lighting.fillDirection = Vec3(1, 0, 0) }),
            ("fillRadiance", { $0.lighting.fillRadiance = Vec3(0, 0, 0) }),
            ("ambientRadiance", { $0.lighting.ambientRadiance = Vec3(0.1, 0.1, 0.1) }),
            ("exposure", { $0.lighting.exposure = 0.8 }),
        ]
        for (field, edit) in edits {
            var look = base
            edit(&look)
            XCTAssertNotEqual(look, base, "setting \(field) changes the look")
        }
    }
}
