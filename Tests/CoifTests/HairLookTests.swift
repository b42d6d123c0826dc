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

    func testEveryFieldIsSettable() throws {
        var look = HairLook(color: try HairColor.parse("black"))
        look.shading.recipe = HairRecipe(melanin: 0.3, redness: 0.5)
        look.shading.longitudinalRoughness = 0.3
        look.shading.azimuthalRoughness = 0.4
        look.shading.cuticleTiltDegrees = 3
        look.shading.indexOfRefraction = 1.5
        look.shading.colorVariation = 0
        look.shading.rootOcclusion = 0.5
        look.shading.tipFade = 0.2
        look.shading.clumpVariation = 0
        look.lighting.keyDirection = Vec3(0, 1, 0)
        look.lighting.keyRadiance = Vec3(2, 2, 2)
        look.lighting.fillDirection = Vec3(1, 0, 0)
        look.lighting.fillRadiance = Vec3(0, 0, 0)
        look.lighting.ambientRadiance = Vec3(0.1, 0.1, 0.1)
        look.lighting.exposure = 0.8
        XCTAssertNotEqual(look, HairLook(color: try HairColor.parse("black")))
    }
}
