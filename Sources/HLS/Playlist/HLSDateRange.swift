import Foundation

/// `#EXT-X-DATERANGE` (RFC 8216 section 4.3.2.7): a range of dates with attributes, e.g. an ad break signalled by
/// SCTE-35.
package struct HLSDateRange: Sendable, Equatable {
    /// `ID`: unique within the playlist.
    package var id: String
    /// `CLASS`.
    package var classAttribute: String?
    /// `START-DATE`.
    package var startDate: Date
    /// `END-DATE` (not before `startDate`).
    package var endDate: Date?
    /// `DURATION`, seconds.
    package var duration: Double?
    /// `PLANNED-DURATION`, seconds.
    package var plannedDuration: Double?
    /// `END-ON-NEXT=YES`: the range ends where the next range of the same class starts.
    package var endOnNext: Bool
    /// `SCTE35-CMD`, `SCTE35-OUT`, `SCTE35-IN`: the splice_info_section bytes.
    package var scte35Command: Data?
    package var scte35Out: Data?
    package var scte35In: Data?
    /// The `X-` attributes by name (`X-COM-EXAMPLE-AD-ID`).
    package var clientAttributes: [String: HLSAttributeValue]

    package init(
        id: String, classAttribute: String? = nil, startDate: Date, endDate: Date? = nil, duration: Double? = nil,
        plannedDuration: Double? = nil, endOnNext: Bool = false, scte35Command: Data? = nil, scte35Out: Data? = nil,
        scte35In: Data? = nil, clientAttributes: [String: HLSAttributeValue] = [:]
    ) {
        self.id = id
        self.classAttribute = classAttribute
        self.startDate = startDate
        self.endDate = endDate
        self.duration = duration
        self.plannedDuration = plannedDuration
        self.endOnNext = endOnNext
        self.scte35Command = scte35Command
        self.scte35Out = scte35Out
        self.scte35In = scte35In
        self.clientAttributes = clientAttributes
    }
}
