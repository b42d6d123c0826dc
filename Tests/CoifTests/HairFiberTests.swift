// HairFiberTests: the strand scattering model (HairFiber, the CPU twin of Shaders/hair_shading.glsl) and
// the colour recipes: a white furnace (no lobe returns more than arrives), clear fibres are near-white,
// colour darkens monotonically with melanin, and hex targets are solved to within a stated ΔE.
import CoifCore
import CoifDiff
import CoifRender
import XCTest

final class HairFiberTests: XCTestCase {
    /// ∫ f_p |cos θi| dωi over the sphere (dω = cos θ dθ dφ in the fibre's frame), per lobe, for an outgoing
    /// direction at `sinThetaO`: the energy each lobe returns of unit incoming energy.
    func lobeEnergies(_ p: HairFiber.Parameters, sinThetaO: Float) -> [Vec3] {
        let nTheta = 180, nPhi = 180
        var sums = [Vec3](repeating: .zero, count: 4)
        for i in 0..<nTheta {
            let theta = -Float.pi / 2 + (Float(i) + 0.5) * Float.pi / Float(nTheta)
            for j in 0..<nPhi {
                let phi = -Float.pi + (Float(j) + 0.5) * 2 * Float.pi / Float(nPhi)
                let l = HairFiber.lobes(p, sinThetaI: sinf(theta), sinThetaO: sinThetaO, phi: phi)
                let w = cosf(theta) * (Float.pi / Float(nTheta)) * (2 * Float.pi / Float(nPhi))
                sums[0] += l.r * w; sums[1] += l.tt * w; sums[2] += l.trt * w; sums[3] += l.residual * w
            }
        }
        return sums
    }

    /// A clear fibre (σ_a = 0) in a white furnace: no lobe, nor their sum, returns more energy than arrives
    /// (tolerance 3%: the Gaussian longitudinal lobes are cut at ±90°, and each lobe's Fresnel is taken at
    /// its own representative angle); most of it comes back (≥ 85%: the lobes are R, TT, TRT and the rest).
    func testWhiteFurnaceNoLobeReturnsMoreThanArrives() {
        for roughness: Float in [0.15, 0.25, 0.5] {
            let p = HairFiber.Parameters(sigmaA: .zero, longitudinalRoughness: roughness)
            for sinThetaO: Float in [0, 0.3, 0.7] {
                let e = lobeEnergies(p, sinThetaO: sinThetaO)
                let total = e.reduce(Vec3.zero, +)
                print(String(format: "HairFiberTests: β_m %.2f sinθo %.1f: R %.3f TT %.3f TRT %.3f rest %.3f total %.3f",
                             roughness, sinThetaO, e[0].x, e[1].x, e[2].x, e[3].x, total.x))
                for lobe in e { XCTAssertLessThanOrEqual(lobe.max(), 1.03) }
                XCTAssertLessThanOrEqual(total.max(), 1.03)
                // Most comes back; less at grazing angles and high roughness, where the Gaussian lobes lose
                // their tails past ±90° (stated, not hidden: 0.73 at β_m 0.5, sin θo 0.7).
                XCTAssertGreaterThan(total.min(), sinThetaO <= 0.3 && roughness <= 0.25 ? 0.9 : 0.7)
            }
        }
    }

    /// Melanin 0 gives near-white fibres; the reference colour darkens in every channel as melanin rises,
    /// whatever the redness.
    func testMelaninZeroIsNearWhiteAndColourDarkensMonotonically() {
        let white = HairRecipe(melanin: 0, redness: 0).referenceColor
        // 0.56: a clear fibre's interior albedo (0.91, the cuticle's reflection being the R lobe) in a deep
        // volume, on Coif's head (HairRecipe.onHeadShare, 0.81 of the sphere's light).
        XCTAssertGreaterThan(white.min(), 0.5, "clear fibres are near-white: \(white)")
        XCTAssertLessThan(white.max() - white.min(), 0.05, "and neutral")
        for redness: Float in [0, 0.5, 1] {
            var previous = white
            for melanin: Float in [0.1, 0.3, 0.6, 1.2, 2.5, 5, 10] {
                let c = HairRecipe(melanin: melanin, redness: redness).referenceColor
                XCTAssertLessThan(c.x, previous.x + 1e-6, "red, melanin \(melanin) redness \(redness)")
                XCTAssertLessThan(c.y, previous.y + 1e-6, "green")
                XCTAssertLessThan(c.z, previous.z + 1e-6, "blue")
                previous = c
            }
            // Near-black: what is left is the white R highlight, which melanin cannot absorb.
            XCTAssertLessThan(previous.max(), 0.07, "melanin 10 is near-black")
        }
    }

    /// Hex targets a fibre can show solve to recipes whose reference colour is the target within ΔE00 1
    /// (natural browns by melanin alone, the rest with a dye); a preset's hex solves back to near its recipe's
    /// colour. Darker than the white R highlight allows (#101010) is clamped, not an error.
    func testHexTargetsAreSolvedToTheirColour() throws {
        XCTAssertNoThrow(try HairColor.parse("#101010"))
        for spec in HairColor.presets.map(\.hex) + ["#7a5a48", "#4060b0", "#b05080", "#70b080", "#a08060"] {
            let color = try HairColor.parse(spec)
            let got = color.recipe.referenceColor
            let target = color.linear
            let dE = CIEDE2000.difference(LabColor(linearR: Double(got.x), g: Double(got.y), b: Double(got.z)),
                                           LabColor(linearR: Double(target.x), g: Double(target.y), b: Double(target.z)))
            print(String(format: "HairFiberTests: %@ → melanin %.3f redness %.2f dye (%.2f %.2f %.2f): ΔE00 %.2f", spec,
                         color.recipe.base.melanin, color.recipe.base.redness, color.recipe.base.dyeSigmaA.x,
                         color.recipe.base.dyeSigmaA.y, color.recipe.base.dyeSigmaA.z, dE))
            XCTAssertLessThan(dE, 1, spec)
        }
    }

    func testRecipesParseAndBadOnesSayWhy() throws {
        let c = try HairColor.parse("melanin=1.3,redness=0.4,highlights=0.2@melanin=0.2,ombre=0.6@0.2@melanin=0.3/redness=0.6,dye=#ff2020@0.5")
        XCTAssertEqual(c.recipe.base.melanin, 1.3)
        XCTAssertEqual(c.recipe.highlightFraction, 0.2)
        XCTAssertEqual(c.recipe.highlight.melanin, 0.2)
        XCTAssertEqual(c.recipe.tip.redness, 0.6)
        XCTAssertGreaterThan(c.recipe.base.dyeSigmaA.z, c.recipe.base.dyeSigmaA.x)
        for bad in ["melanin=-1", "melanin=x", "glitter=1", "highlights=2@melanin=1", "dye=#zzz@1"] {
            XCTAssertThrowsError(try HairColor.parse(bad), bad)
        }
    }
}
