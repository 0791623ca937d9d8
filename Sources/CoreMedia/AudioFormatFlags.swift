// Core Audio's linear PCM format flags (CoreAudioTypes on Apple's systems), for the `mFormatFlags` of an
// `AudioStreamBasicDescription`: what the format descriptions of decoded audio say about their samples.

/// Samples are floating point (else integer).
public let kAudioFormatFlagIsFloat: AudioFormatFlags = 1 << 0
/// Samples are big-endian (else little-endian).
public let kAudioFormatFlagIsBigEndian: AudioFormatFlags = 1 << 1
/// Integer samples are signed.
public let kAudioFormatFlagIsSignedInteger: AudioFormatFlags = 1 << 2
/// Sample bits fill every byte of a channel's sample.
public let kAudioFormatFlagIsPacked: AudioFormatFlags = 1 << 3
/// Unpacked samples sit in the high bits.
public let kAudioFormatFlagIsAlignedHigh: AudioFormatFlags = 1 << 4
/// Each channel's samples are in their own buffer (else interleaved).
public let kAudioFormatFlagIsNonInterleaved: AudioFormatFlags = 1 << 5
/// The audio is not to be mixed.
public let kAudioFormatFlagIsNonMixable: AudioFormatFlags = 1 << 6
/// The platform's byte order: little-endian here (no flag).
public let kAudioFormatFlagsNativeEndian: AudioFormatFlags = 0
/// Native-endian packed 32-bit float.
public let kAudioFormatFlagsNativeFloatPacked: AudioFormatFlags =
    kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked
/// Linear PCM samples are floating point (the same bit as ``kAudioFormatFlagIsFloat``).
public let kLinearPCMFormatFlagIsFloat: AudioFormatFlags = kAudioFormatFlagIsFloat
/// Linear PCM samples are big-endian.
public let kLinearPCMFormatFlagIsBigEndian: AudioFormatFlags = kAudioFormatFlagIsBigEndian
/// Linear PCM integer samples are signed.
public let kLinearPCMFormatFlagIsSignedInteger: AudioFormatFlags = kAudioFormatFlagIsSignedInteger
/// Linear PCM samples are packed.
public let kLinearPCMFormatFlagIsPacked: AudioFormatFlags = kAudioFormatFlagIsPacked
/// Linear PCM unpacked samples sit in the high bits.
public let kLinearPCMFormatFlagIsAlignedHigh: AudioFormatFlags = kAudioFormatFlagIsAlignedHigh
/// Linear PCM channels are in separate buffers.
public let kLinearPCMFormatFlagIsNonInterleaved: AudioFormatFlags = kAudioFormatFlagIsNonInterleaved
