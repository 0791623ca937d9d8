import Foundation

/// Widths of the edges of a render area (Apple's `AVEdgeWidths`).
public struct AVEdgeWidths: Sendable, Equatable {
    /// The left edge width.
    public var left: CGFloat
    /// The top edge width.
    public var top: CGFloat
    /// The right edge width.
    public var right: CGFloat
    /// The bottom edge width.
    public var bottom: CGFloat

    /// Zero widths.
    public init() {
        self.init(left: 0, top: 0, right: 0, bottom: 0)
    }

    /// The given widths.
    public init(left: CGFloat, top: CGFloat, right: CGFloat, bottom: CGFloat) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }
}
