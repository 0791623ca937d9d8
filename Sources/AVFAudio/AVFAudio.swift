// `import AVFAudio`: on Apple's systems the framework of AVAudioSession (and AVAudioPlayer, AVAudioEngine …), which
// `import AVFoundation` also brings. Here AVAudioSession lives in the AVFoundation module — it is observable through
// that module's key-value observation machinery (AVKeyValueObservable, ObservationHub), which is internal to it — and
// this module re-exports AVFoundation, so code that imports AVFAudio compiles unchanged. Differs from Apple: it brings
// all of AVFoundation's names, not AVFAudio's alone.
@_exported import AVFoundation
