// MARK: - Comparing times

/// Returns the numerical relationship of two times: −1 if `time1` is less than `time2`, 1 if greater, 0 if equal.
///
/// Numeric times compare as exact rationals (1/2 == 500/1000); numeric times in numerically larger epochs are always
/// greater than those in smaller epochs. So that sorting always terminates, every value has a place in one total
/// order: −infinity < all finite values < indefinite < +infinity < invalid. All invalid times are equal to each
/// other, as are all indefinite times and each infinity with itself (their other fields are ignored).
public func CMTimeCompare(_ time1: CMTime, _ time2: CMTime) -> Int32 {
    let kind1 = time1.kind
    let kind2 = time2.kind
    if kind1 != kind2 { return kind1.rawValue < kind2.rawValue ? -1 : 1 }
    guard kind1 == .numeric else { return 0 }
    if time1.epoch != time2.epoch { return time1.epoch < time2.epoch ? -1 : 1 }
    // Both timescales are positive, so cross multiplication keeps the order; each product is below 2^95.
    let left = Int128(time1.value) * Int128(time2.timescale)
    let right = Int128(time2.value) * Int128(time1.timescale)
    return left == right ? 0 : (left < right ? -1 : 1)
}

/// Returns the lesser of two times, as ordered by `CMTimeCompare(_:_:)`; `time1` when they are equal.
public func CMTimeMinimum(_ time1: CMTime, _ time2: CMTime) -> CMTime {
    CMTimeCompare(time1, time2) <= 0 ? time1 : time2
}

/// Returns the greater of two times, as ordered by `CMTimeCompare(_:_:)`; `time1` when they are equal.
public func CMTimeMaximum(_ time1: CMTime, _ time2: CMTime) -> CMTime {
    CMTimeCompare(time1, time2) >= 0 ? time1 : time2
}

// MARK: - Equatable, Comparable, Hashable

/// Equality and order are `CMTimeCompare(_:_:)`'s, as in Apple's overlay: `CMTime(value: 1, timescale: 2) ==
/// CMTime(value: 500, timescale: 1000)`, every invalid time equals `.invalid`, and the flags' `hasBeenRounded` bit
/// does not take part.
extension CMTime: Equatable, Comparable {
    /// Whether `time1` sorts before `time2` (`CMTimeCompare(time1, time2) < 0`).
    public static func < (time1: CMTime, time2: CMTime) -> Bool {
        CMTimeCompare(time1, time2) < 0
    }

    /// Whether `time1` sorts before or with `time2` (`CMTimeCompare(time1, time2) <= 0`).
    public static func <= (time1: CMTime, time2: CMTime) -> Bool {
        CMTimeCompare(time1, time2) <= 0
    }

    /// Whether `time1` sorts after `time2` (`CMTimeCompare(time1, time2) > 0`).
    public static func > (time1: CMTime, time2: CMTime) -> Bool {
        CMTimeCompare(time1, time2) > 0
    }

    /// Whether `time1` sorts after or with `time2` (`CMTimeCompare(time1, time2) >= 0`).
    public static func >= (time1: CMTime, time2: CMTime) -> Bool {
        CMTimeCompare(time1, time2) >= 0
    }

    /// Whether the times are equal as rationals in the same epoch (`CMTimeCompare(time1, time2) == 0`).
    public static func == (time1: CMTime, time2: CMTime) -> Bool {
        CMTimeCompare(time1, time2) == 0
    }

    /// Whether the times differ (`CMTimeCompare(time1, time2) != 0`).
    public static func != (time1: CMTime, time2: CMTime) -> Bool {
        CMTimeCompare(time1, time2) != 0
    }
}

/// Apple's SDK declares `CMTime: Hashable` from macOS 13 / iOS 16. The hash agrees with `==`: a numeric time hashes
/// its epoch and its value and timescale in lowest terms; every other time hashes only its kind.
extension CMTime: Hashable {
    /// Feeds the time's identity under `==` into the hasher.
    public func hash(into hasher: inout Hasher) {
        let kind = self.kind
        hasher.combine(kind.rawValue)
        guard kind == .numeric else { return }
        let common = greatestCommonDivisor(Int128(value), Int128(timescale))
        hasher.combine(epoch)
        hasher.combine(Int128(value) / common)
        hasher.combine(Int128(timescale) / common)
    }
}
