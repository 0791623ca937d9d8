/// A growable first-in first-out buffer over one contiguous circular array: O(1) append at the back
/// and removal at the front, no per-element allocation once its capacity has grown to the working set
/// (swift-collections' `Deque`, which this package cannot depend on, reduced to what the queues need).
///
/// A value type with no synchronisation of its own: it lives inside a lock-guarded queue.
package struct RingBuffer<Element> {
    /// Storage; `nil` outside the occupied range.
    private var slots: [Element?]
    /// Index of the first element in `slots`.
    private var head = 0
    /// Number of stored elements.
    package private(set) var count = 0

    /// An empty buffer with room for `capacity` elements before it grows.
    package init(capacity: Int = 16) {
        slots = Array(repeating: nil, count: max(1, capacity))
    }

    /// Whether the buffer is empty.
    package var isEmpty: Bool { count == 0 }

    /// The number of elements it holds before it must grow.
    package var capacity: Int { slots.count }

    /// The oldest element.
    package var first: Element? {
        count > 0 ? slots[head] : nil
    }

    /// The element `offset` places after the oldest one, if there is one.
    package subscript(offset offset: Int) -> Element? {
        guard offset >= 0, offset < count else { return nil }
        return slots[(head + offset) % slots.count]
    }

    /// Appends `element` at the back, doubling the storage when it is full.
    package mutating func append(_ element: Element) {
        if count == slots.count { grow() }
        slots[(head + count) % slots.count] = element
        count += 1
    }

    /// Removes and returns the oldest element.
    @discardableResult
    package mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Removes every element, keeping the storage.
    package mutating func removeAll() {
        while removeFirst() != nil {}
        head = 0
    }

    /// Moves the elements to a storage twice as large, oldest first.
    private mutating func grow() {
        var larger: [Element?] = Array(repeating: nil, count: slots.count * 2)
        for offset in 0..<count {
            larger[offset] = slots[(head + offset) % slots.count]
        }
        slots = larger
        head = 0
    }
}
