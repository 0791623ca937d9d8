import Foundation

/// A Core Audio channel label (CoreAudioTypes' `AudioChannelLabel`), as ``AVAudioSessionChannelDescription`` reports
/// it.
public typealias AudioChannelLabel = UInt32

/// The channel has no label (CoreAudioTypes' value).
public let kAudioChannelLabel_Unknown: AudioChannelLabel = 0xFFFF_FFFF
/// Front left.
public let kAudioChannelLabel_Left: AudioChannelLabel = 1
/// Front right.
public let kAudioChannelLabel_Right: AudioChannelLabel = 2
/// Front centre.
public let kAudioChannelLabel_Center: AudioChannelLabel = 3
/// Low-frequency effects.
public let kAudioChannelLabel_LFEScreen: AudioChannelLabel = 4
/// Surround left (SDL's "side left" and "back left").
public let kAudioChannelLabel_LeftSurround: AudioChannelLabel = 5
/// Surround right (SDL's "side right" and "back right").
public let kAudioChannelLabel_RightSurround: AudioChannelLabel = 6
/// Back centre.
public let kAudioChannelLabel_CenterSurround: AudioChannelLabel = 9
/// Rear surround left (SDL's back left in 7.1).
public let kAudioChannelLabel_RearSurroundLeft: AudioChannelLabel = 33
/// Rear surround right (SDL's back right in 7.1).
public let kAudioChannelLabel_RearSurroundRight: AudioChannelLabel = 34
/// A single channel.
public let kAudioChannelLabel_Mono: AudioChannelLabel = 42

/// The ports of an audio route (Apple's `AVAudioSessionRouteDescription`): ``AVAudioSession/currentRoute``, and the
/// previous route in a route change's `userInfo[AVAudioSessionRouteChangePreviousRouteKey]`.
///
/// On Linux `outputs` holds the SDL output device the session readied (empty when none opened); `inputs` holds SDL's
/// first capture device when the category records (`.record`, `.playAndRecord`), else nothing, as on Apple's systems.
open class AVAudioSessionRouteDescription: NSObject, @unchecked Sendable {
    /// The input ports.
    open private(set) var inputs: [AVAudioSessionPortDescription]
    /// The output ports.
    open private(set) var outputs: [AVAudioSessionPortDescription]

    init(inputs: [AVAudioSessionPortDescription], outputs: [AVAudioSessionPortDescription]) {
        self.inputs = inputs
        self.outputs = outputs
    }

    /// Whether `object` is a route with equal inputs and outputs.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionRouteDescription else { return false }
        return other.inputs == inputs && other.outputs == outputs
    }

    /// A hash of the ports.
    open override var hash: Int {
        var hasher = Hasher()
        for port in inputs + outputs { hasher.combine(port.uid) }
        return hasher.finalize()
    }

    /// The ports, for logs.
    open override var description: String {
        "<AVAudioSessionRouteDescription: inputs = \(inputs); outputs = \(outputs)>"
    }
}

/// One port of a route (Apple's `AVAudioSessionPortDescription`).
///
/// On Linux: `portName` is SDL's name for the device (`SDL_GetAudioDeviceName`, or SDL's name for a driver's only
/// device); `uid` is the SDL driver and that name (`"pulseaudio:Built-in Audio Analog Stereo"`), stable while the
/// device is; `portType` is guessed from the name (HDMI, DisplayPort, USB, Bluetooth, headphones, built-in speaker),
/// `.virtual` for SDL's `dummy` and `disk` drivers, else `.lineOut` / `.lineIn`; `channels` are the channels the device
/// granted, labelled in SDL's channel order.
open class AVAudioSessionPortDescription: NSObject, @unchecked Sendable {
    /// The kind of port.
    open private(set) var portType: AVAudioSession.Port
    /// A name a person can read.
    open private(set) var portName: String
    /// A unique identifier of the port.
    open private(set) var uid: String
    /// The port's channels.
    open private(set) var channels: [AVAudioSessionChannelDescription]?
    /// Whether the port processes voice calls in hardware (never, on Linux).
    open private(set) var hasHardwareVoiceCallProcessing: Bool = false

    init(portType: AVAudioSession.Port, portName: String, uid: String, channelCount: Int) {
        self.portType = portType
        self.portName = portName
        self.uid = uid
        let labels = Self.channelLabels(count: channelCount)
        self.channels = labels.enumerated().map { index, label in
            AVAudioSessionChannelDescription(
                channelName: "\(portName) \(index + 1)", owningPortUID: uid, channelNumber: index + 1,
                channelLabel: label)
        }
    }

    /// Whether `object` is a port with the same type, name, identifier and channel count.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionPortDescription else { return false }
        return other.portType == portType && other.portName == portName && other.uid == uid
            && other.channels?.count == channels?.count
    }

    /// A hash of the identifier.
    open override var hash: Int { uid.hashValue }

    /// The port, for logs.
    open override var description: String {
        "<AVAudioSessionPortDescription: type = \(portType.rawValue); name = \(portName); UID = \(uid)>"
    }

    /// The port type a Linux device name suggests (capture devices when `isCapture`).
    static func portType(deviceName: String, driver: String, isCapture: Bool) -> AVAudioSession.Port {
        if driver == "dummy" || driver == "disk" { return .virtual }
        let name = deviceName.lowercased()
        if isCapture {
            if name.contains("headset") { return .headsetMic }
            if name.contains("usb") { return .usbAudio }
            if name.contains("bluez") || name.contains("bluetooth") { return .bluetoothHFP }
            if name.contains("built-in") || name.contains("internal") { return .builtInMic }
            return .lineIn
        }
        if name.contains("hdmi") { return .HDMI }
        if name.contains("displayport") { return .displayPort }
        if name.contains("usb") { return .usbAudio }
        if name.contains("bluez") || name.contains("bluetooth") { return .bluetoothA2DP }
        if name.contains("headphone") { return .headphones }
        if name.contains("built-in") || name.contains("speaker") || name.contains("internal") { return .builtInSpeaker }
        return .lineOut
    }

    /// Core Audio labels for SDL 2's channel order at `count` channels (SDL_audio.h: FL FR, FL FR LFE, FL FR BL BR,
    /// FL FR LFE BL BR, FL FR FC LFE SL SR, FL FR FC LFE BC SL SR, FL FR FC LFE BL BR SL SR).
    static func channelLabels(count: Int) -> [AudioChannelLabel] {
        switch count {
        case ..<1: return []
        case 1: return [kAudioChannelLabel_Mono]
        case 2: return [kAudioChannelLabel_Left, kAudioChannelLabel_Right]
        case 3: return [kAudioChannelLabel_Left, kAudioChannelLabel_Right, kAudioChannelLabel_LFEScreen]
        case 4:
            return [
                kAudioChannelLabel_Left, kAudioChannelLabel_Right, kAudioChannelLabel_LeftSurround,
                kAudioChannelLabel_RightSurround,
            ]
        case 5:
            return [
                kAudioChannelLabel_Left, kAudioChannelLabel_Right, kAudioChannelLabel_LFEScreen,
                kAudioChannelLabel_LeftSurround, kAudioChannelLabel_RightSurround,
            ]
        case 6:
            return [
                kAudioChannelLabel_Left, kAudioChannelLabel_Right, kAudioChannelLabel_Center,
                kAudioChannelLabel_LFEScreen, kAudioChannelLabel_LeftSurround, kAudioChannelLabel_RightSurround,
            ]
        case 7:
            return [
                kAudioChannelLabel_Left, kAudioChannelLabel_Right, kAudioChannelLabel_Center,
                kAudioChannelLabel_LFEScreen, kAudioChannelLabel_CenterSurround, kAudioChannelLabel_LeftSurround,
                kAudioChannelLabel_RightSurround,
            ]
        case 8:
            return [
                kAudioChannelLabel_Left, kAudioChannelLabel_Right, kAudioChannelLabel_Center,
                kAudioChannelLabel_LFEScreen, kAudioChannelLabel_RearSurroundLeft,
                kAudioChannelLabel_RearSurroundRight, kAudioChannelLabel_LeftSurround,
                kAudioChannelLabel_RightSurround,
            ]
        default: return Array(repeating: kAudioChannelLabel_Unknown, count: count)
        }
    }
}

/// One channel of a port (Apple's `AVAudioSessionChannelDescription`).
open class AVAudioSessionChannelDescription: NSObject, @unchecked Sendable {
    /// A name for the channel ("<port name> <number>" on Linux).
    open private(set) var channelName: String
    /// The ``AVAudioSessionPortDescription/uid`` of the port the channel belongs to.
    open private(set) var owningPortUID: String
    /// The channel's number within its port, from 1.
    open private(set) var channelNumber: Int
    /// The channel's Core Audio label (from SDL's channel order on Linux).
    open private(set) var channelLabel: AudioChannelLabel

    init(channelName: String, owningPortUID: String, channelNumber: Int, channelLabel: AudioChannelLabel) {
        self.channelName = channelName
        self.owningPortUID = owningPortUID
        self.channelNumber = channelNumber
        self.channelLabel = channelLabel
    }
}
