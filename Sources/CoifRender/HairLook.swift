// HairLook: what a job says about how the hair looks: the fibres' shading (derived from a colour) and the
// lights. Part of the job, so a caller can set either.
import CoifCore

public struct HairLook: Sendable, Equatable {
    public var shading: HairShading
    public var lighting: Lighting
    /// The colour the shading was derived from (its name goes into records).
    public var color: HairColor

    public init(color: HairColor, lighting: Lighting = Lighting()) {
        self.color = color
        shading = HairShading(color: color)
        self.lighting = lighting
    }
}
