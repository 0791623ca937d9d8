import Foundation
import TestSupport
import XCTest

/// Checks `ToneAnalyzer` on synthetic tones and on ffmpeg's reference decodes of the fixtures.
final class ToneAnalyzerTests: XCTestCase {
    /// `count` samples of `amplitude·sin(2π·frequency·n/sampleRate + phase)`.
    private func sine(
        _ frequency: Double, count: Int, sampleRate: Double = 48_000, amplitude: Double = 0.5, phase: Double = 0
    ) -> [Float] {
        (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / sampleRate + phase)) }
    }

    func testFrequencyWithinAHundredthOfAPercentOnAQuarterSecond() throws {
        for sampleRate in [44_100.0, 48_000.0] {
            for (frequency, phase) in [(50.0, 0.3), (440, 0), (550, 1), (660, 2), (770, 3), (1_000, 4), (12_345.6, 5)] {
                let samples = sine(frequency, count: Int(sampleRate / 4), sampleRate: sampleRate, phase: phase)
                let measured = try XCTUnwrap(ToneAnalyzer.dominantFrequency(of: samples, sampleRate: sampleRate))
                XCTAssertEqual(measured, frequency, accuracy: frequency * 0.0001, "\(frequency) Hz at \(sampleRate)")
            }
        }
    }

    func testFrequencyInNoise() throws {
        var seed: UInt32 = 99
        let noisy = sine(440, count: 12_000).map { sample -> Float in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return sample + (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.1  // about -35 dB of white noise
        }
        let measured = try XCTUnwrap(ToneAnalyzer.dominantFrequency(of: noisy, sampleRate: 48_000))
        XCTAssertEqual(measured, 440, accuracy: 440 * 0.005)
        // A band without the tone still returns its strongest noise component.
        let elsewhere = try XCTUnwrap(ToneAnalyzer.dominantFrequency(of: noisy, sampleRate: 48_000, band: 500...2_000))
        XCTAssertTrue((500...2_000).contains(elsewhere))
    }

    func testSilenceHasNoFrequencyAndMinusInfiniteLevel() {
        let silence = [Float](repeating: 0, count: 4_800)
        XCTAssertNil(ToneAnalyzer.dominantFrequency(of: silence, sampleRate: 48_000))
        XCTAssertEqual(ToneAnalyzer.rmsDBFS(of: silence), -.infinity)
        XCTAssertEqual(ToneAnalyzer.rmsDBFS(of: []), -.infinity)
    }

    func testInterleavedFloatAndInt16() throws {
        let left = sine(440, count: 12_000)
        let right = sine(660, count: 12_000, amplitude: 0.25)
        let interleaved = zip(left, right).flatMap { [$0, $1] }
        let int16 = interleaved.map { Int16(($0 * 32_767).rounded()) }
        for analyses in [
            ToneAnalyzer.analyze(interleaved: interleaved, channelCount: 2, sampleRate: 48_000),
            ToneAnalyzer.analyze(interleaved: int16, channelCount: 2, sampleRate: 48_000),
        ] {
            XCTAssertEqual(analyses.count, 2)
            XCTAssertEqual(try XCTUnwrap(analyses[0].frequency), 440, accuracy: 0.05)
            XCTAssertEqual(try XCTUnwrap(analyses[1].frequency), 660, accuracy: 0.05)
            XCTAssertEqual(analyses[0].rmsDBFS, 20 * log10(0.5 / 2.0.squareRoot()), accuracy: 0.01)  // -9.03
            XCTAssertEqual(analyses[1].rmsDBFS, 20 * log10(0.25 / 2.0.squareRoot()), accuracy: 0.01)  // -15.05
            XCTAssertEqual(analyses[0].peak, 0.5, accuracy: 0.001)
        }
    }

    // MARK: - Continuity

    func testCleanTonesHaveNoDiscontinuities() {
        for (frequency, phase) in [(440.0, 0.0), (660, 1.3), (550, 2), (770, 3), (100, 0.5), (5_000, 0.1)] {
            let clean = sine(frequency, count: 48_000, phase: phase)
            XCTAssertEqual(ToneAnalyzer.discontinuities(in: clean, sampleRate: 48_000), [], "\(frequency) Hz")
            let quantised = clean.map { Float(($0 * 32_767).rounded()) / 32_767 }
            XCTAssertEqual(ToneAnalyzer.discontinuities(in: quantised, sampleRate: 48_000), [], "\(frequency) Hz s16")
            let quiet = clean.map { $0 * 0.01 }  // -49 dBFS: still a tone, not silence
            XCTAssertEqual(ToneAnalyzer.discontinuities(in: quiet, sampleRate: 48_000), [], "\(frequency) Hz quiet")
        }
    }

    func testInserted10msGapIsFlaggedAsSilence() throws {
        var signal = sine(440, count: 48_000, phase: 0.7)
        signal.insert(contentsOf: [Float](repeating: 0, count: 480), at: 20_000)
        let events = ToneAnalyzer.discontinuities(in: signal, sampleRate: 48_000)
        XCTAssertEqual(events.count, 1, "\(events)")
        let gap = try XCTUnwrap(events.first)
        XCTAssertEqual(gap.kind, .silence)
        XCTAssertEqual(gap.start, 20_000 / 48_000, accuracy: 0.0002)
        XCTAssertEqual(gap.duration, 0.010, accuracy: 0.0002)
    }

    func testGapStartingAndEndingAtAZeroCrossingIsStillFlagged() throws {
        // At 480 Hz a 48 kHz signal crosses zero every 50 samples exactly: sample 24 000 is one.
        var signal = sine(480, count: 48_000)
        signal.insert(contentsOf: [Float](repeating: 0, count: 480), at: 24_000)
        let events = ToneAnalyzer.discontinuities(in: signal, sampleRate: 48_000)
        XCTAssertEqual(events.map(\.kind), [.silence])
        XCTAssertEqual(try XCTUnwrap(events.first).samples.lowerBound, 24_000, accuracy: 2)
    }

    func testDroppedSamplesAndSpikesAreFlaggedAsClicks() throws {
        var dropped = sine(660, count: 48_000, phase: 0.2)
        dropped.removeSubrange(30_000..<30_024)  // 0.5 ms skipped
        let drop = ToneAnalyzer.discontinuities(in: dropped, sampleRate: 48_000)
        XCTAssertEqual(drop.map(\.kind), [.click])
        XCTAssertEqual(try XCTUnwrap(drop.first).samples.lowerBound, 30_000, accuracy: 2)

        var spiked = sine(440, count: 48_000)
        spiked[12_345] += 0.2
        let spike = ToneAnalyzer.discontinuities(in: spiked, sampleRate: 48_000)
        XCTAssertEqual(spike.map(\.kind), [.click])
        XCTAssertEqual(try XCTUnwrap(spike.first).samples, 12_345..<12_348)
        XCTAssertGreaterThan(try XCTUnwrap(spike.first).magnitude, 0.3)

        var repeated = sine(440, count: 24_000, phase: 1)
        repeated.insert(contentsOf: repeated[10_000..<10_100], at: 10_100)  // 100 samples played twice
        XCTAssertEqual(ToneAnalyzer.discontinuities(in: repeated, sampleRate: 48_000).map(\.kind), [.click])
    }

    func testSilentChannelIsOneSilentRun() {
        let events = ToneAnalyzer.discontinuities(in: [Float](repeating: 0, count: 4_800), sampleRate: 48_000)
        XCTAssertEqual(events.map(\.kind), [.silence])
        XCTAssertEqual(events.first?.samples, 0..<4_800)
    }

    // MARK: - Fixtures

    /// Every fixture audio track decodes to its tones, at its level, without breaks.
    func testDecodedFixtureTracks() throws {
        var tracks: [(Fixture, Int)] = []
        for fixture in Fixture.allCases where fixture.facts.outcome == .plays && fixture != .longGOP1080p {
            tracks += fixture.facts.audio.indices.map { (fixture, $0) }
        }
        XCTAssertEqual(tracks.count, 19)
        for (fixture, stream) in tracks {
            let facts = fixture.facts.audio[stream]
            let label = "\(fixture.rawValue) a:\(stream)"
            let url = try Fixtures.url(fixture)
            let samples = try ReferenceDecoder.audioSamples(of: url, audioStream: stream)
            let channels = ToneAnalyzer.deinterleave(samples, channelCount: facts.channelCount)
            let rate = Double(facts.sampleRate)
            XCTAssertGreaterThan(Double(channels[0].count) / rate, (fixture.facts.duration ?? 0) - 0.1, label)
            for (channel, tone) in zip(channels, facts.tones) {
                // A quarter second from 1 s in for pitch and level; everything but the edges for continuity.
                let window = Array(channel[Int(rate)..<Int(rate * 1.25)])
                let analysis = ToneAnalyzer.analyze(window, sampleRate: rate)
                XCTAssertEqual(try XCTUnwrap(analysis.frequency, label), tone, accuracy: tone * 0.005, label)
                XCTAssertEqual(analysis.rmsDBFS, -9.03, accuracy: 0.3, label)
                let body = Array(channel[Int(rate * 0.05)..<(channel.count - Int(rate * 0.1))])
                let events = ToneAnalyzer.discontinuities(in: body, sampleRate: rate, frequency: tone)
                XCTAssertEqual(events, [], label)
            }
        }
    }
}
