import Foundation

/// The shape of a pixel: horizontal to vertical spacing (Apple's `AVPixelAspectRatio`).
public struct AVPixelAspectRatio: Sendable, Equatable {
    /// The relative horizontal spacing.
    public var horizontalSpacing: Int
    /// The relative vertical spacing.
    public var verticalSpacing: Int

    /// Zero spacings.
    public init() {
        self.init(horizontalSpacing: 0, verticalSpacing: 0)
    }

    /// The given spacings.
    public init(horizontalSpacing: Int, verticalSpacing: Int) {
        self.horizontalSpacing = horizontalSpacing
        self.verticalSpacing = verticalSpacing
    }
}
