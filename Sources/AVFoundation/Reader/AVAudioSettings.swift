// The audio settings keys an asset reader's audio outputs take (AVFAudio's `AVAudioSettings.h` on Apple's systems,
// re-exported by AVFoundation there): a dictionary of these describes the linear PCM an output hands out.

/// The audio format, an `AudioFormatID` (`kAudioFormatLinearPCM` for a reader's outputs).
public let AVFormatIDKey: String = "AVFormatIDKey"
/// The sample rate in hertz, a floating-point number.
public let AVSampleRateKey: String = "AVSampleRateKey"
/// The number of channels, an integer.
public let AVNumberOfChannelsKey: String = "AVNumberOfChannelsKey"
/// Bits per linear PCM sample: 16 or 32 (integer), 32 or 64 (float) here.
public let AVLinearPCMBitDepthKey: String = "AVLinearPCMBitDepthKey"
/// Whether linear PCM samples are big-endian, a Boolean.
public let AVLinearPCMIsBigEndianKey: String = "AVLinearPCMIsBigEndianKey"
/// Whether linear PCM samples are floating point, a Boolean.
public let AVLinearPCMIsFloatKey: String = "AVLinearPCMIsFloatKey"
/// Whether linear PCM channels are in separate buffers, a Boolean.
public let AVLinearPCMIsNonInterleaved: String = "AVLinearPCMIsNonInterleaved"
/// Whether linear PCM channels are in separate buffers, a Boolean (the newer spelling of
/// ``AVLinearPCMIsNonInterleaved``).
public let AVLinearPCMIsNonInterleavedKey: String = "AVLinearPCMIsNonInterleavedKey"
