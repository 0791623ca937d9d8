import Foundation

/// Measures the test tones of the fixtures (one sine per channel) in decoded or rendered PCM: pitch, level, and
/// breaks in continuity (clicks, gaps, phase jumps).
///
/// Pitch is the strongest spectral peak, refined on the continuous spectrum (see `dominantFrequency`): within
/// 0.01 % on a clean 0.25 s window, well inside the ±0.5 % a time-stretch test needs. Levels are plain RMS in dBFS
/// (full scale 1.0, so a 0.5-amplitude sine is -9.03 dBFS; AES-17's +3 dB sine convention is not used).
///
/// Continuity uses the fact that a sine obeys x[n] = 2cos(ω)·x[n-1] - x[n-2] exactly: the residual of that
/// prediction stays near the noise floor for a clean tone of any phase and level, and jumps where samples are
/// dropped, repeated, zeroed or spiked. Runs of near-silence are reported separately.
public enum ToneAnalyzer {
    /// Splits interleaved samples into one array per channel (a trailing partial frame is dropped).
    public static func deinterleave(_ interleaved: [Float], channelCount: Int) -> [[Float]] {
        precondition(channelCount > 0, "channelCount must be positive")
        let frames = interleaved.count / channelCount
        return (0..<channelCount).map { channel in
            (0..<frames).map { interleaved[$0 * channelCount + channel] }
        }
    }

    /// Splits interleaved 16-bit samples into one `Float` array per channel, scaled by 1/32768.
    public static func deinterleave(_ interleaved: [Int16], channelCount: Int) -> [[Float]] {
        deinterleave(interleaved.map { Float($0) / 32_768 }, channelCount: channelCount)
    }

    /// Measures every channel of interleaved `Float` PCM (full scale ±1).
    public static func analyze(interleaved: [Float], channelCount: Int, sampleRate: Double) -> [ToneAnalysis] {
        deinterleave(interleaved, channelCount: channelCount).map { analyze($0, sampleRate: sampleRate) }
    }

    /// Measures every channel of interleaved 16-bit PCM.
    public static func analyze(interleaved: [Int16], channelCount: Int, sampleRate: Double) -> [ToneAnalysis] {
        deinterleave(interleaved, channelCount: channelCount).map { analyze($0, sampleRate: sampleRate) }
    }

    /// Measures one channel.
    public static func analyze(_ channel: [Float], sampleRate: Double) -> ToneAnalysis {
        ToneAnalysis(
            frequency: dominantFrequency(of: channel, sampleRate: sampleRate),
            rmsDBFS: rmsDBFS(of: channel),
            peak: Double(channel.lazy.map { abs($0) }.max() ?? 0)
        )
    }

    /// The frequency in Hz of the strongest spectral peak within `band` (default 20 Hz to just under Nyquist), or
    /// `nil` for silence or fewer than 16 samples.
    ///
    /// Longer than 2^16 samples, only the central 2^16 are analysed (1.4 s at 48 kHz: ample precision, bounded
    /// cost). Use a window of at least 0.1 s for 0.5 % accuracy; 0.25 s gives about 0.01 % on a clean tone.
    public static func dominantFrequency(
        of channel: [Float], sampleRate: Double, band: ClosedRange<Double>? = nil
    ) -> Double? {
        let limit = 1 << 16
        let samples: [Float]
        if channel.count > limit {
            let start = (channel.count - limit) / 2
            samples = Array(channel[start..<(start + limit)])
        } else {
            samples = channel
        }
        let band = band ?? 20...(sampleRate * 0.49)
        return Spectrum.peakFrequency(of: samples, sampleRate: sampleRate, band: band)
    }

    /// The RMS level in dBFS (20·log10 of the RMS, full scale 1.0); `-infinity` for digital silence or no samples.
    public static func rmsDBFS(of channel: [Float]) -> Double {
        guard !channel.isEmpty else { return -.infinity }
        let sum = channel.reduce(0.0) { $0 + Double($1) * Double($1) }
        let rms = (sum / Double(channel.count)).squareRoot()
        return rms > 0 ? 20 * log10(rms) : -.infinity
    }

    /// Finds clicks and gaps in one channel that should hold a single steady sine.
    ///
    /// - Parameters:
    ///   - channel: the samples, full scale ±1.
    ///   - sampleRate: samples per second, to report times.
    ///   - frequency: the tone's frequency; estimated with `dominantFrequency` when `nil`. If none is found (the
    ///     channel is silent), only silence is reported.
    ///   - options: thresholds.
    /// - Returns: the events in time order; a click within `options.mergeDistance` of a silent run is part of it.
    public static func discontinuities(
        in channel: [Float], sampleRate: Double, frequency: Double? = nil,
        options: DiscontinuityOptions = DiscontinuityOptions()
    ) -> [Discontinuity] {
        let merge = max(1, Int(options.mergeDistance * sampleRate))
        var events = silentRuns(in: channel, sampleRate: sampleRate, options: options)
        let tone = frequency ?? dominantFrequency(of: channel, sampleRate: sampleRate)
        if let tone, channel.count > 2 {
            // The tone's amplitude from the RMS of the samples that are not silent (gaps would lower it).
            var sum = 0.0
            var loud = 0
            for sample in channel where Double(abs(sample)) > options.silenceLevel {
                sum += Double(sample) * Double(sample)
                loud += 1
            }
            let amplitude = loud > 0 ? (2 * sum / Double(loud)).squareRoot() : 0
            let limit = options.clickThreshold * amplitude
            let coefficient = 2 * cos(2 * Double.pi * tone / sampleRate)
            var click: (range: Range<Int>, peak: Double)?
            for index in 2..<channel.count {
                let predicted = coefficient * Double(channel[index - 1]) - Double(channel[index - 2])
                let residual = abs(Double(channel[index]) - predicted)
                guard residual > limit else { continue }
                let relative = amplitude > 0 ? residual / amplitude : .infinity
                if let open = click, index - open.range.upperBound < merge {
                    click = (open.range.lowerBound..<(index + 1), max(open.peak, relative))
                } else {
                    if let open = click { events.append(clickEvent(open, sampleRate: sampleRate)) }
                    click = (index..<(index + 1), relative)
                }
            }
            if let open = click { events.append(clickEvent(open, sampleRate: sampleRate)) }
        }
        return absorbClicks(events.sorted { $0.samples.lowerBound < $1.samples.lowerBound }, merge: merge)
    }

    /// Runs of at least `options.minimumSilence` seconds with every |sample| <= `options.silenceLevel`.
    private static func silentRuns(
        in channel: [Float], sampleRate: Double, options: DiscontinuityOptions
    ) -> [Discontinuity] {
        let minimum = max(1, Int(options.minimumSilence * sampleRate))
        var runs: [Discontinuity] = []
        var start: Int?
        for index in 0...channel.count {
            let quiet = index < channel.count && Double(abs(channel[index])) <= options.silenceLevel
            if quiet {
                if start == nil { start = index }
            } else if let first = start {
                if index - first >= minimum {
                    runs.append(
                        Discontinuity(
                            kind: .silence, samples: first..<index, sampleRate: sampleRate,
                            magnitude: 0))
                }
                start = nil
            }
        }
        return runs
    }

    private static func clickEvent(_ click: (range: Range<Int>, peak: Double), sampleRate: Double) -> Discontinuity {
        Discontinuity(kind: .click, samples: click.range, sampleRate: sampleRate, magnitude: click.peak)
    }

    /// Drops clicks that touch a silent run (its edges always leave a residual).
    private static func absorbClicks(_ events: [Discontinuity], merge: Int) -> [Discontinuity] {
        let silences = events.filter { $0.kind == .silence }
        return events.filter { event in
            event.kind == .silence
                || !silences.contains { silence in
                    event.samples.lowerBound < silence.samples.upperBound + merge
                        && silence.samples.lowerBound < event.samples.upperBound + merge
                }
        }
    }
}

/// One channel's measurements.
public struct ToneAnalysis: Sendable, Equatable {
    /// The dominant frequency in Hz; `nil` for silence.
    public var frequency: Double?
    /// The RMS level in dBFS (full scale 1.0); -9.03 for a 0.5-amplitude sine, `-infinity` for digital silence.
    public var rmsDBFS: Double
    /// The largest absolute sample value.
    public var peak: Double

    public init(frequency: Double?, rmsDBFS: Double, peak: Double) {
        self.frequency = frequency
        self.rmsDBFS = rmsDBFS
        self.peak = peak
    }
}

/// A break in a tone's continuity found by `ToneAnalyzer.discontinuities`.
public struct Discontinuity: Sendable, Equatable {
    /// What was found.
    public enum Kind: Sendable, Equatable {
        /// Samples that depart from the sine's own prediction: a dropped, repeated or altered stretch, a spike.
        case click
        /// A run of near-silent samples (a gap, an underrun, a muted stretch).
        case silence
    }

    /// What was found.
    public var kind: Kind
    /// The affected sample indices within the analysed channel.
    public var samples: Range<Int>
    /// The sample rate, to convert `samples` to seconds.
    public var sampleRate: Double
    /// For a click, the largest prediction residual relative to the tone's amplitude; 0 for silence.
    public var magnitude: Double

    public init(kind: Kind, samples: Range<Int>, sampleRate: Double, magnitude: Double) {
        self.kind = kind
        self.samples = samples
        self.sampleRate = sampleRate
        self.magnitude = magnitude
    }

    /// When it starts, in seconds from the first analysed sample.
    public var start: Double { Double(samples.lowerBound) / sampleRate }
    /// How long it lasts, in seconds.
    public var duration: Double { Double(samples.count) / sampleRate }
}

/// Thresholds for `ToneAnalyzer.discontinuities`.
public struct DiscontinuityOptions: Sendable, Equatable {
    /// A sample is a click when its prediction residual exceeds this fraction of the tone's amplitude. 0.02
    /// (-34 dB) sits well above AAC/Opus/MP3 coding noise on the fixture tones, and catches a dropped sample at
    /// 440 Hz or more unless it falls near a peak of the wave.
    public var clickThreshold: Double
    /// A sample is silent when its absolute value is at most this (linear, full scale 1): -60 dBFS.
    public var silenceLevel: Double
    /// The shortest silent run reported, in seconds: 2 ms, far longer than a sine lingers near zero.
    public var minimumSilence: Double
    /// Click samples closer than this (seconds) form one event; clicks this close to a silent run belong to it.
    public var mergeDistance: Double

    public init(
        clickThreshold: Double = 0.02, silenceLevel: Double = 0.001, minimumSilence: Double = 0.002,
        mergeDistance: Double = 0.002
    ) {
        self.clickThreshold = clickThreshold
        self.silenceLevel = silenceLevel
        self.minimumSilence = minimumSilence
        self.mergeDistance = mergeDistance
    }
}
