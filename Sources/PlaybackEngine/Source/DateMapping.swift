import Foundation

/// How a source's timeline maps to wall-clock dates (HTTP Live Streaming's `EXT-X-PROGRAM-DATE-TIME`): a list of
/// anchors, each a container time and the date it shows. Between anchors a date advances with the media time; before
/// the first anchor it is extrapolated back from it.
///
/// A value: any thread.
package struct DateMapping: Sendable, Equatable {
    /// (container seconds, date), sorted by time.
    package private(set) var anchors: [(seconds: Double, date: Date)]

    /// A mapping through `anchors` (sorted here); nil when there are none.
    package init?(anchors: [(seconds: Double, date: Date)]) {
        guard !anchors.isEmpty else { return nil }
        self.anchors = anchors.sorted { $0.seconds < $1.seconds }
    }

    /// The date at container time `seconds`.
    package func date(atSeconds seconds: Double) -> Date {
        let anchor = anchors.last(where: { $0.seconds <= seconds }) ?? anchors[0]
        return anchor.date.addingTimeInterval(seconds - anchor.seconds)
    }

    /// The container time that shows `date`: from the last anchor at or before it (the first one before them all).
    package func seconds(at date: Date) -> Double {
        let anchor = anchors.last(where: { $0.date <= date }) ?? anchors[0]
        return anchor.seconds + date.timeIntervalSince(anchor.date)
    }

    package static func == (lhs: DateMapping, rhs: DateMapping) -> Bool {
        lhs.anchors.count == rhs.anchors.count
            && zip(lhs.anchors, rhs.anchors).allSatisfy { $0.seconds == $1.seconds && $0.date == $1.date }
    }
}
