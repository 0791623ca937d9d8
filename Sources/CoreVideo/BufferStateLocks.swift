// The locks that guard every buffer's mutable state: base-address lock counts and attachments.
import Foundation
import OAVFLocking

/// A fixed table of locks shared by all `CVBuffer`s: a buffer's mutable state is guarded by the stripe its
/// address maps to (lock striping, as the Objective-C runtime's `StripedMap` guards atomic properties and
/// `@synchronized`). Buffers are made per frame (decoded frames, pool buffers, converted pictures), and a lock of
/// their own would add an allocation to each; the table costs nothing per buffer.
///
/// Rules for code holding a stripe: keep the critical section short; call no user code and release nothing
/// whose `deinit` could run some (replaced attachment values are handed out and dropped after unlocking); never
/// take a second stripe (two buffers may share one, and `ConditionLock` is not recursive).
///
/// A `ConditionLock` (the project's one lock, a pthread mutex) per stripe, not a `Locked` value: the state lives in
/// each buffer, not in the table. Not an engine command: buffers are values that decoders, pools, outputs and the
/// app touch from any thread, outside any engine.
enum BufferStateLocks {
    /// Number of stripes: a power of two, large against the few dozen buffers a player keeps in flight, so
    /// unrelated buffers seldom share one.
    static let stripeCount = 64

    private static let stripes: [ConditionLock] = (0..<stripeCount).map { _ in ConditionLock() }

    /// The stripe guarding `object`'s state; the same lock for the object's whole life.
    static func lock(for object: AnyObject) -> ConditionLock {
        let address = UInt(bitPattern: ObjectIdentifier(object))
        // Heap objects are 16-byte aligned: skip the zero bits and fold in higher ones, so neighbours spread.
        let index = ((address >> 4) ^ (address >> 10)) & UInt(stripeCount - 1)
        return stripes[Int(index)]
    }
}
