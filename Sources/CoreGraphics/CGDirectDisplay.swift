/// A display's identifier (Apple's `CGDirectDisplayID`). Here the displays are the window system's (SDL's), numbered
/// from 1 in SDL's order; 0 is ``kCGNullDirectDisplay``.
public typealias CGDirectDisplayID = UInt32

/// No display (Apple's `kCGNullDirectDisplay`).
public let kCGNullDirectDisplay: CGDirectDisplayID = 0

/// The main display's identifier (Apple's `CGMainDisplayID()`): the first display.
public func CGMainDisplayID() -> CGDirectDisplayID { 1 }
