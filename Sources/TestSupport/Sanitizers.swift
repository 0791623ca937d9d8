import Foundation

/// Which sanitizer runtime this process was built with (`swift test --sanitize=…`), for the few checks that mean
/// nothing under one: AddressSanitizer keeps freed memory resident in its quarantine, so resident-memory bounds
/// (leak checks by RSS) do not apply there; LeakSanitizer watches the allocations instead.
public enum Sanitizers {
    /// Whether AddressSanitizer's runtime is in the process (its `__asan_init` symbol resolves).
    public static let isAddressSanitizerActive: Bool =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
}
