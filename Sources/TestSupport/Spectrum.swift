import Foundation

/// Spectral helpers for `ToneAnalyzer`: a Hann-windowed power spectrum and a precise peak search.
enum Spectrum {
    /// The frequency (Hz) of the strongest spectral peak of `samples` within `band`, or `nil` if `samples` is
    /// silent or too short.
    ///
    /// Three steps: a zero-padded (x2) FFT of the Hann-windowed signal finds the peak bin; a parabola through the
    /// log magnitudes of it and its neighbours places it within a bin; a golden-section search of the windowed
    /// signal's DTFT magnitude within ±1 padded bin then finds the maximum itself, to well under 0.01 % for a clean
    /// tone of 0.25 s.
    static func peakFrequency(of samples: [Float], sampleRate: Double, band: ClosedRange<Double>) -> Double? {
        let count = samples.count
        guard count >= 16 else { return nil }
        let windowed = hannWindowed(samples)
        var size = 1
        while size < 2 * count { size <<= 1 }
        var real = [Double](repeating: 0, count: size)
        var imaginary = [Double](repeating: 0, count: size)
        real.replaceSubrange(0..<count, with: windowed)
        fft(real: &real, imaginary: &imaginary)

        let binWidth = sampleRate / Double(size)
        let lowBin = max(1, Int((band.lowerBound / binWidth).rounded(.up)))
        let highBin = min(size / 2 - 1, Int((band.upperBound / binWidth).rounded(.down)))
        guard lowBin < highBin else { return nil }
        var peakBin = lowBin
        var peakPower = 0.0
        for bin in lowBin...highBin {
            let power = real[bin] * real[bin] + imaginary[bin] * imaginary[bin]
            if power > peakPower {
                peakPower = power
                peakBin = bin
            }
        }
        guard peakPower > 1e-20 else { return nil }

        func logMagnitude(_ bin: Int) -> Double {
            0.5 * log(max(real[bin] * real[bin] + imaginary[bin] * imaginary[bin], 1e-300))
        }
        let left = logMagnitude(peakBin - 1)
        let middle = logMagnitude(peakBin)
        let right = logMagnitude(peakBin + 1)
        let denominator = left - 2 * middle + right
        let offset = denominator < 0 ? max(-0.5, min(0.5, 0.5 * (left - right) / denominator)) : 0
        let coarse = (Double(peakBin) + offset) * binWidth

        // Refine on the continuous spectrum; within ±1 padded bin the Hann main lobe is unimodal.
        var low = max(band.lowerBound, coarse - binWidth)
        var high = min(band.upperBound, coarse + binWidth)
        let ratio = (sqrt(5.0) - 1) / 2
        var a = high - ratio * (high - low)
        var b = low + ratio * (high - low)
        var magnitudeA = dtftMagnitude(windowed, frequency: a, sampleRate: sampleRate)
        var magnitudeB = dtftMagnitude(windowed, frequency: b, sampleRate: sampleRate)
        for _ in 0..<40 where high - low > 1e-6 {
            if magnitudeA < magnitudeB {
                low = a
                a = b
                magnitudeA = magnitudeB
                b = low + ratio * (high - low)
                magnitudeB = dtftMagnitude(windowed, frequency: b, sampleRate: sampleRate)
            } else {
                high = b
                b = a
                magnitudeB = magnitudeA
                a = high - ratio * (high - low)
                magnitudeA = dtftMagnitude(windowed, frequency: a, sampleRate: sampleRate)
            }
        }
        return (low + high) / 2
    }

    /// `samples` multiplied by a Hann window (periodic form), as doubles.
    static func hannWindowed(_ samples: [Float]) -> [Double] {
        let count = samples.count
        let step = 2 * Double.pi / Double(count)
        return samples.indices.map { index in
            Double(samples[index]) * (0.5 - 0.5 * cos(step * Double(index)))
        }
    }

    /// |Σ x[n] e^(-iωn)| at `frequency`, the phasor advanced by an exact rotation each sample (renormalised every
    /// 1024 samples against drift).
    static func dtftMagnitude(_ signal: [Double], frequency: Double, sampleRate: Double) -> Double {
        let omega = 2 * Double.pi * frequency / sampleRate
        let stepCos = cos(omega)
        let stepSin = sin(omega)
        var phasorCos = 1.0
        var phasorSin = 0.0
        var sumReal = 0.0
        var sumImaginary = 0.0
        signal.withUnsafeBufferPointer { values in
            for index in 0..<values.count {
                sumReal += values[index] * phasorCos
                sumImaginary -= values[index] * phasorSin
                let nextCos = phasorCos * stepCos - phasorSin * stepSin
                phasorSin = phasorSin * stepCos + phasorCos * stepSin
                phasorCos = nextCos
                if index & 1023 == 1023 {
                    let angle = omega * Double(index + 1)
                    phasorCos = cos(angle)
                    phasorSin = sin(angle)
                }
            }
        }
        return (sumReal * sumReal + sumImaginary * sumImaginary).squareRoot()
    }

    /// In-place iterative radix-2 complex FFT; the count must be a power of two.
    static func fft(real: inout [Double], imaginary: inout [Double]) {
        let count = real.count
        precondition(count.nonzeroBitCount == 1 && imaginary.count == count, "FFT size must be a power of two")
        real.withUnsafeMutableBufferPointer { re in
            imaginary.withUnsafeMutableBufferPointer { im in
                var j = 0
                for i in 1..<count {
                    var bit = count >> 1
                    while j & bit != 0 {
                        j ^= bit
                        bit >>= 1
                    }
                    j |= bit
                    if i < j {
                        re.swapAt(i, j)
                        im.swapAt(i, j)
                    }
                }
                var length = 2
                while length <= count {
                    let angle = -2 * Double.pi / Double(length)
                    let stepCos = cos(angle)
                    let stepSin = sin(angle)
                    var start = 0
                    while start < count {
                        var twiddleCos = 1.0
                        var twiddleSin = 0.0
                        for k in 0..<(length / 2) {
                            let even = start + k
                            let odd = even + length / 2
                            let oddRe = re[odd] * twiddleCos - im[odd] * twiddleSin
                            let oddIm = re[odd] * twiddleSin + im[odd] * twiddleCos
                            re[odd] = re[even] - oddRe
                            im[odd] = im[even] - oddIm
                            re[even] += oddRe
                            im[even] += oddIm
                            let nextCos = twiddleCos * stepCos - twiddleSin * stepSin
                            twiddleSin = twiddleCos * stepSin + twiddleSin * stepCos
                            twiddleCos = nextCos
                        }
                        start += length
                    }
                    length <<= 1
                }
            }
        }
    }
}
