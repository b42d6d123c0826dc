// HairOcclusion: the light the hair takes from the skin beside and under it, not along the key light (the
// key's shadow is KeyLightShadow's) but from all round: skin with hair close over it sees less of the room.
// Without it the skin between a fringe's strands and under its ends kept the plate's full light, and read as
// a pale band under the fringe (#48); hair laid on skin looked pasted, not seated.
import CoifCore

public enum HairOcclusion {
    /// The most of the skin's light the hair beside it can take: the light from all round is about half of a
    /// portrait's light on skin (the rest is the key's), and hair on one side hides about half of the
    /// hemisphere that light comes from.
    public static let strength: Float = 0.25
    /// How far the hair's occlusion reaches over the skin (mm; the blur's σ is half of it): about the depth of
    /// a fringe or a curtain of hair standing off the skin under it.
    public static let reachMm: Float = 10

    /// Takes the hair's occlusion from `lightLeft` (R: the share of the light left; A: 1 on the drawn head,
    /// 0 off it: the background is far behind the hair and keeps its light): R × (1 − strength × the hair's
    /// coverage blurred over `reachPx`), on the head only. `scratch` is reused from frame to frame.
    public static func apply(to lightLeft: inout HairLayer, hair: HairLayer, reachPx: Float, scratch: inout [Float]) {
        precondition(lightLeft.width == hair.width && lightLeft.height == hair.height)
        guard hair.width > 0, hair.height > 0, reachPx >= 1 else { return }
        hair.blurCoverage(sigmaPx: reachPx / 2, into: &scratch)
        for p in 0..<(hair.width * hair.height) where lightLeft.rgba[p * 4 + 3] > 0.5 {
            lightLeft.rgba[p * 4] *= 1 - strength * min(max(scratch[p], 0), 1)
        }
    }
}
