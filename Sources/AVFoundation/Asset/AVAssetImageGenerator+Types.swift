import CoreGraphics
import CoreMedia

extension AVAssetImageGenerator {
    /// How an image request ended (Apple's `AVAssetImageGenerator.Result`).
    public enum Result: Int, Sendable {
        /// The image was made.
        case succeeded = 0
        /// The image could not be made; the handler's error says why.
        case failed = 1
        /// `cancelAllCGImageGeneration()` stopped the request.
        case cancelled = 2
    }

    /// Which part of the picture images show (Apple's `AVAssetImageGenerator.ApertureMode`).
    public struct ApertureMode: RawRepresentable, Hashable, Sendable {
        /// The mode's name.
        public let rawValue: String
        /// A mode from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The picture as it is meant to be seen: cropped, with square pixels (the default).
        public static let cleanAperture = ApertureMode(rawValue: "CleanAperture")
        /// The picture with square pixels, without the clean-aperture crop (here the same as `cleanAperture`: the
        /// decoder applies the stream's crop).
        public static let productionAperture = ApertureMode(rawValue: "ProductionAperture")
        /// The decoded pixels as they are: no pixel-aspect correction.
        public static let encodedPixels = ApertureMode(rawValue: "EncodedPixels")
    }

    /// How HDR video becomes an image (Apple's `AVAssetImageGenerator.DynamicRangePolicy`).
    ///
    /// Differs from Apple: both policies give 8-bit sRGB images. `.forceSDR` tone-maps PQ and HLG pictures to BT.709
    /// with libavfilter (`zscale`, `tonemap=hable`); `.matchSource` converts them as they are, values clipped.
    public struct DynamicRangePolicy: RawRepresentable, Hashable, Sendable {
        /// The policy's name.
        public let rawValue: String
        /// A policy from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Convert PQ and HLG to standard dynamic range (the default).
        public static let forceSDR = DynamicRangePolicy(rawValue: "DynamicRangePolicyForceSDR")
        /// Keep the source's colour parameters.
        public static let matchSource = DynamicRangePolicy(rawValue: "DynamicRangePolicyMatchSource")
    }

    /// The images of `images(for:)`: an asynchronous sequence of results, and its own
    /// iterator (Apple's `AVAssetImageGenerator.Images`).
    public struct Images: AsyncSequence, AsyncIteratorProtocol {
        /// One time's result.
        @frozen public enum Element {
            /// The image for `requestedTime`, showing the picture at `actualTime`.
            case success(requestedTime: CMTime, image: CGImage, actualTime: CMTime)
            /// Why there is no image for `requestedTime`.
            case failure(requestedTime: CMTime, error: any Error)

            /// The time asked for.
            public var requestedTime: CMTime {
                switch self {
                case .success(let time, _, _), .failure(let time, _): return time
                }
            }

            /// The image; throws the failure's error.
            public var image: CGImage {
                get throws {
                    switch self {
                    case .success(_, let image, _): return image
                    case .failure(_, let error): throw error
                    }
                }
            }

            /// The time of the picture the image shows; throws the failure's error.
            public var actualTime: CMTime {
                get throws {
                    switch self {
                    case .success(_, _, let time): return time
                    case .failure(_, let error): throw error
                    }
                }
            }
        }

        /// The results as they are made.
        private var iterator: AsyncStream<Element>.Iterator

        init(stream: AsyncStream<Element>) {
            iterator = stream.makeAsyncIterator()
        }

        /// The sequence itself.
        public func makeAsyncIterator() -> Images { self }

        /// The next result, nil after the last.
        public mutating func next() async -> Element? {
            await iterator.next()
        }
    }
}
