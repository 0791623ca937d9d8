import Foundation

/// A date range a streamed source announces (HTTP Live Streaming `EXT-X-DATERANGE`), as its playlist last said: a
/// value, any thread.
package struct DateRangeDescription: Sendable, Equatable {
    /// An attribute's value.
    package enum Value: Sendable, Equatable {
        case string(String)
        case number(Double)
        case data(Data)
    }

    /// `ID`: unique within the presentation.
    package var id: String
    /// `CLASS`.
    package var classAttribute: String?
    /// `START-DATE`.
    package var startDate: Date
    /// `END-DATE`, else `START-DATE` + `DURATION`; nil while unknown.
    package var endDate: Date?
    /// The other attributes (`DURATION`, `PLANNED-DURATION`, `SCTE35-…`, `X-…`), by name, sorted by name.
    package var attributes: [(name: String, value: Value)]

    package init(
        id: String, classAttribute: String?, startDate: Date, endDate: Date?, attributes: [(name: String, value: Value)]
    ) {
        self.id = id
        self.classAttribute = classAttribute
        self.startDate = startDate
        self.endDate = endDate
        self.attributes = attributes.sorted { $0.name < $1.name }
    }

    package static func == (a: DateRangeDescription, b: DateRangeDescription) -> Bool {
        a.id == b.id && a.classAttribute == b.classAttribute && a.startDate == b.startDate && a.endDate == b.endDate
            && a.attributes.map(\.name) == b.attributes.map(\.name)
            && a.attributes.map(\.value) == b.attributes.map(\.value)
    }
}
