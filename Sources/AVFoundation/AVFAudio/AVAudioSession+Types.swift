import Foundation

// The value types of AVFAudio's `AVAudioSession`, with Apple's names and raw values (AVAudioSessionTypes.h).

extension AVAudioSession {
    /// An audio session category: how the app uses audio (Apple's `AVAudioSession.Category`, same raw strings).
    ///
    /// On Linux the category is kept, reported and observable, and changing it while the session is active posts
    /// `routeChangeNotification` with `.categoryChange`, as Apple's does; it does not change how other programs'
    /// sound mixes with the app's (the sound server mixes every stream; see ``AVAudioSession``).
    public struct Category: RawRepresentable, Hashable, Sendable {
        /// Apple's string for the category.
        public let rawValue: String
        /// Creates a category from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates a category from its raw value.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Sound that mixes with other apps' and is silenced by the Ring/Silent switch.
        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        /// Routing input and output data to several devices at once.
        public static let multiRoute = Category(rawValue: "AVAudioSessionCategoryMultiRoute")
        /// Recording and playback, as a VoIP app does.
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
        /// Playing recorded music or other sound central to the app (what players set).
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        /// Recording audio, silencing playback.
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        /// The default: sound that silences other apps' and is silenced by the Ring/Silent switch.
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
    }

    /// An audio session mode, which specialises a category (Apple's `AVAudioSession.Mode`, same raw strings).
    /// Kept, reported and observable; it changes no processing on Linux.
    public struct Mode: RawRepresentable, Hashable, Sendable {
        /// Apple's string for the mode.
        public let rawValue: String
        /// Creates a mode from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates a mode from its raw value.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The default mode.
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        /// A game's voice chat.
        public static let gameChat = Mode(rawValue: "AVAudioSessionModeGameChat")
        /// Measuring audio input or output, with the least signal processing.
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        /// Playing movie content.
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        /// Continuous spoken audio that pauses when another app plays a short prompt.
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        /// Two-way video conferencing.
        public static let videoChat = Mode(rawValue: "AVAudioSessionModeVideoChat")
        /// Recording video.
        public static let videoRecording = Mode(rawValue: "AVAudioSessionModeVideoRecording")
        /// Two-way voice communication (VoIP).
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        /// Text-to-speech prompts.
        public static let voicePrompt = Mode(rawValue: "AVAudioSessionModeVoicePrompt")
    }

    /// Options that tailor a category (Apple's `AVAudioSession.CategoryOptions`, same bits). Kept, reported and
    /// observable; on Linux the sound server decides mixing and routing, so they change nothing heard.
    public struct CategoryOptions: OptionSet, Sendable {
        /// The bits of the set.
        public let rawValue: UInt
        /// Wraps a raw value (Apple's bit layout).
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Mix with other apps' audio.
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        /// Lower other apps' audio while this session plays.
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        /// Allow Bluetooth hands-free devices as inputs.
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        /// Route to the built-in speaker rather than the receiver.
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        /// Pause spoken audio of other apps and mix with the rest.
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        /// Allow Bluetooth A2DP outputs.
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        /// Allow AirPlay outputs.
        public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
        /// Keep the session from being interrupted when the built-in microphone is muted.
        public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)
    }

    /// Options for ``AVAudioSession/setActive(_:options:)`` (Apple's `AVAudioSession.SetActiveOptions`, same bits).
    public struct SetActiveOptions: OptionSet, Sendable {
        /// The bits of the set.
        public let rawValue: UInt
        /// Wraps a raw value (Apple's bit layout).
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// On deactivation, tell other sessions they may resume. Accepted and without effect on Linux: there are no
        /// other sessions to tell.
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// How the session's route is shared (Apple's `AVAudioSession.RouteSharingPolicy`, same raw values). Kept and
    /// reported.
    public enum RouteSharingPolicy: UInt, Sendable {
        /// The system's default routing.
        case `default` = 0
        /// Long-form audio (music, podcasts) routed as the system's music app is.
        case longFormAudio = 1
        /// The app picks its own route.
        case independent = 2
        /// Long-form video routed as the system's TV app is.
        case longFormVideo = 3
    }

    /// Whether an interruption began or ended (Apple's `AVAudioSession.InterruptionType`, same raw values): the
    /// value of `userInfo[AVAudioSessionInterruptionTypeKey]` in `interruptionNotification` (never posted on Linux).
    public enum InterruptionType: UInt, Sendable {
        /// The system interrupted the session.
        case began = 1
        /// The interruption ended.
        case ended = 0
    }

    /// What an ended interruption suggests (Apple's `AVAudioSession.InterruptionOptions`, same bits).
    public struct InterruptionOptions: OptionSet, Sendable {
        /// The bits of the set.
        public let rawValue: UInt
        /// Wraps a raw value (Apple's bit layout).
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// The app may resume playback.
        public static let shouldResume = InterruptionOptions(rawValue: 1)
    }

    /// Why an interruption happened (Apple's `AVAudioSession.InterruptionReason`, same raw values).
    public enum InterruptionReason: UInt, Sendable {
        /// Another session was activated.
        case `default` = 0
        /// The built-in microphone was muted.
        case builtInMicMuted = 2
    }

    /// Why the route changed (Apple's `AVAudioSession.RouteChangeReason`, same raw values): the value of
    /// `userInfo[AVAudioSessionRouteChangeReasonKey]` in `routeChangeNotification`. Posted on Linux:
    /// `.newDeviceAvailable`, `.oldDeviceUnavailable`, `.categoryChange`.
    public enum RouteChangeReason: UInt, Sendable {
        /// Unknown.
        case unknown = 0
        /// A device became available (SDL reported `SDL_AUDIODEVICEADDED`).
        case newDeviceAvailable = 1
        /// The device in use went away (SDL reported `SDL_AUDIODEVICEREMOVED`).
        case oldDeviceUnavailable = 2
        /// The session's category changed while it was active.
        case categoryChange = 3
        /// The route was overridden (never on Linux).
        case override = 4
        /// The device woke from sleep (never on Linux).
        case wakeFromSleep = 6
        /// No route suits the category (never on Linux).
        case noSuitableRouteForCategory = 7
        /// The route's configuration changed (never on Linux).
        case routeConfigurationChange = 8
    }

    /// Whether other apps' secondary audio should be silenced (Apple's `AVAudioSession.SilenceSecondaryAudioHintType`,
    /// same raw values; `silenceSecondaryAudioHintNotification` is never posted on Linux).
    public enum SilenceSecondaryAudioHintType: UInt, Sendable {
        /// Another app's primary audio began.
        case begin = 1
        /// It ended.
        case end = 0
    }

    /// A port on an audio route (Apple's `AVAudioSession.Port`, same raw strings).
    public struct Port: RawRepresentable, Hashable, Sendable {
        /// Apple's string for the port type.
        public let rawValue: String
        /// Creates a port type from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates a port type from its raw value.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A line-level output (also what an unrecognised Linux device is reported as).
        public static let lineOut = Port(rawValue: "LineOut")
        /// Wired headphones.
        public static let headphones = Port(rawValue: "Headphones")
        /// Bluetooth A2DP output.
        public static let bluetoothA2DP = Port(rawValue: "BluetoothA2DPOutput")
        /// The built-in receiver.
        public static let builtInReceiver = Port(rawValue: "Receiver")
        /// The built-in speaker (a Linux device SDL names "Built-in" or "Speaker").
        public static let builtInSpeaker = Port(rawValue: "Speaker")
        /// HDMI output.
        public static let HDMI = Port(rawValue: "HDMI")
        /// AirPlay output.
        public static let airPlay = Port(rawValue: "AirPlay")
        /// Bluetooth Low Energy output.
        public static let bluetoothLE = Port(rawValue: "BluetoothLE")
        /// Bluetooth hands-free output or input.
        public static let bluetoothHFP = Port(rawValue: "BluetoothHFP")
        /// USB audio.
        public static let usbAudio = Port(rawValue: "USBAudio")
        /// CarPlay audio.
        public static let carAudio = Port(rawValue: "CarAudio")
        /// DisplayPort output.
        public static let displayPort = Port(rawValue: "DisplayPort")
        /// A virtual device (on Linux: SDL's `dummy` and `disk` drivers, which play to no hardware).
        public static let virtual = Port(rawValue: "Virtual")
        /// The built-in microphone.
        public static let builtInMic = Port(rawValue: "MicrophoneBuiltIn")
        /// A wired headset microphone.
        public static let headsetMic = Port(rawValue: "MicrophoneWired")
        /// A line-level input (also what an unrecognised Linux capture device is reported as).
        public static let lineIn = Port(rawValue: "LineIn")
    }

    /// The errors an audio session throws (Apple's `AVAudioSession.ErrorCode`, same raw values: four-character
    /// codes as `Int`). Thrown as `NSError` in `NSOSStatusErrorDomain` with this code, as Apple's are.
    public enum ErrorCode: Int, Sendable {
        /// No error.
        case none = 0
        /// The media server is gone ('msrv').
        case mediaServicesFailed = 0x6D73_7276
        /// Deactivated while I/O was running ('!act').
        case isBusy = 0x2161_6374
        /// The category does not allow the operation ('!cat').
        case incompatibleCategory = 0x2163_6174
        /// A non-mixable session could not interrupt others ('!int').
        case cannotInterruptOthers = 0x2169_6E74
        /// Playback could not start: on Linux, no audio device opened ('!pla').
        case cannotStartPlaying = 0x2170_6C61
        /// Recording could not start ('!rec').
        case cannotStartRecording = 0x2172_6563
        /// A parameter was out of range (-50, `paramErr`).
        case badParam = -50
        /// Another session has priority ('!pri').
        case insufficientPriority = 0x2170_7269
        /// The hardware has no resources left ('!res').
        case resourceNotAvailable = 0x2172_6573
        /// Unspecified ('what').
        case unspecified = 0x7768_6174
        /// The session is not active ('inac').
        case sessionNotActive = 0x696E_6163
    }
}
