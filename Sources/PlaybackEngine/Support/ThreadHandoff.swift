/// Carries a value that is not `Sendable` to the thread that will own it from then on (the engine core to the
/// engine thread). The sender must not use the value after handing it over; that is what makes the
/// `@unchecked Sendable` sound.
struct ThreadHandoff<Value>: @unchecked Sendable {
    /// The value, to be used by the receiving thread only.
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
