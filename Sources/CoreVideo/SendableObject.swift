// A box that lets immutable CF-style objects cross isolation boundaries.

/// Holds one object (an attachment value or an attribute value) so that it can live in `Sendable` state such as
/// a lock-guarded dictionary or a pool's attribute copy.
///
/// `@unchecked Sendable`: the values CoreVideo stores are the immutable CF-style objects Apple's API deals in
/// (strings, numbers, dictionaries, arrays, converted with `as AnyObject`), which Apple shares across threads
/// the same way.
package struct SendableObject: @unchecked Sendable {
    /// The boxed object.
    package let object: AnyObject

    /// Boxes `value`, bridging Swift values to their Foundation objects (`String` to `NSString`, `Int` to
    /// `NSNumber`, dictionaries to `NSDictionary`, ...).
    package init(_ value: Any) {
        self.object = value as AnyObject
    }
}
