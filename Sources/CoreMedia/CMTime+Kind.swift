extension CMTime {
    /// What a time denotes, in `CMTimeCompare` order (`rawValue` is the rank in Apple's total order:
    /// −infinity < all finite values < indefinite < +infinity < invalid).
    enum Kind: Int {
        case negativeInfinity = 0
        case numeric = 1
        case indefinite = 2
        case positiveInfinity = 3
        case invalid = 4
    }

    /// The kind every operation in this module dispatches on.
    ///
    /// Differs from the public predicates in one place: a time whose flags say "valid and numeric" but whose
    /// timescale is 0 or negative (only the memberwise initializer can make one) counts as invalid, so no operation
    /// divides by it. When several implied-value flags are set, positive infinity wins, then negative infinity,
    /// then indefinite.
    var kind: Kind {
        guard flags.contains(.valid) else { return .invalid }
        if flags.contains(.positiveInfinity) { return .positiveInfinity }
        if flags.contains(.negativeInfinity) { return .negativeInfinity }
        if flags.contains(.indefinite) { return .indefinite }
        return timescale > 0 ? .numeric : .invalid
    }

    /// Whether `.hasBeenRounded` is set, whatever the other flags (results inherit it from operands).
    var carriesRoundedFlag: Bool {
        flags.contains(.hasBeenRounded)
    }

    /// A numeric time with the given fields; `rounded` sets `.hasBeenRounded`.
    static func numeric(value: Int64, timescale: Int32, epoch: Int64, rounded: Bool) -> CMTime {
        CMTime(value: value, timescale: timescale, flags: rounded ? [.valid, .hasBeenRounded] : .valid, epoch: epoch)
    }
}
