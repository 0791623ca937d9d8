import Foundation

/// Media playlist tags (RFC 8216 sections 4.3.2 and 4.3.3).
extension HLSPlaylistReader {
    mutating func readMediaTag(_ tag: Tag, _ value: Substring) throws(HLSPlaylistError) {
        switch tag {
        case .inf:
            guard pending.duration == nil else {
                throw error(.invalidTag, "#EXTINF follows the #EXTINF of line \(pending.durationLine) without a URI")
            }
            let comma = value.firstIndex(of: ",")
            pending.duration = try duration(value[..<(comma ?? value.endIndex)], tag: tag)
            pending.durationLine = line
            let title = comma.map { value[value.index(after: $0)...].trimmingCharacters(in: .whitespaces) }
            pending.title = title?.isEmpty == false ? title : nil
        case .targetDuration:
            guard targetDuration == nil else { throw error(.invalidTag, "#EXT-X-TARGETDURATION appears twice") }
            targetDuration = try duration(value, tag: tag)
        case .mediaSequence:
            mediaSequence = try headerInteger(value, tag: tag, current: mediaSequence)
        case .discontinuitySequence:
            discontinuitySequence = try headerInteger(value, tag: tag, current: discontinuitySequence)
        case .playlistType:
            guard playlistType == nil else { throw error(.invalidTag, "#EXT-X-PLAYLIST-TYPE appears twice") }
            guard let type = HLSPlaylistType(rawValue: value.trimmingCharacters(in: .whitespaces)) else {
                throw error(.invalidTag, "#EXT-X-PLAYLIST-TYPE:\(value) is neither VOD nor EVENT")
            }
            playlistType = type
        case .endList:
            hasEndList = true
        case .iFramesOnly:
            iFramesOnly = true
        case .discontinuity:
            pending.isDiscontinuity = true
        case .gap:
            pending.isGap = true
        case .bitrate:
            guard let kilobits = HLSAttributeList.decimalInteger(value),
                case (let bits, false) = kilobits.multipliedReportingOverflow(by: 1000)
            else { throw error(.invalidTag, "#EXT-X-BITRATE:\(value) is not a decimal integer of kbit/s") }
            bitrate = bits
        case .byteRange:
            pending.byteRange = try byteRange(value, tag: tag)
        case .programDateTime:
            guard let date = HLSProgramDate.date(from: value) else {
                throw error(.invalidTag, "#EXT-X-PROGRAM-DATE-TIME:\(value) is not an ISO 8601 date and time")
            }
            pending.programDateTime = date
        case .key:
            let key = try key(attributeList(value, tag))
            if key.method == .none {
                keysByFormat.removeAll()
                lastKeyFormat = nil
            } else {
                let format = key.keyFormat ?? "identity"
                keysByFormat[format] = key
                lastKeyFormat = format
            }
        case .map:
            let attributes = try attributeList(value, tag)
            let uri = try resolve(attributes.require(attributes.quotedString("URI"), "URI"), "#EXT-X-MAP URI")
            var range: HLSByteRange?
            if let text = try attributes.quotedString("BYTERANGE") {
                let (length, offset) = try byteRange(text[...], tag: tag)
                range = try checkedRange(length: length, offset: offset ?? 0)
            }
            map = HLSMap(uri: uri, byteRange: range)
        case .dateRange:
            let attributes = try attributeList(value, tag)
            let id = try attributes.require(attributes.quotedString("ID"), "ID")
            if let index = dateRangeIndexByID[id] {
                dateRanges[index] = try dateRange(attributes, id: id, updating: dateRanges[index])
            } else {
                guard dateRanges.count < limits.maxDateRanges else {
                    throw error(.tooManyEntries, "more than \(limits.maxDateRanges) date ranges")
                }
                dateRangeIndexByID[id] = dateRanges.count
                dateRanges.append(try dateRange(attributes, id: id, updating: nil))
            }
        default:
            preconditionFailure("#\(tag.rawValue) is not a media playlist tag (\(#function))")
        }
    }

    /// A duration in seconds: a non-negative decimal number no longer than `maxSegmentDuration`.
    private func duration(_ text: Substring, tag: Tag) throws(HLSPlaylistError) -> Double {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("-") { throw error(.invalidDuration, "#\(tag.rawValue):\(text) is negative") }
        guard let seconds = HLSAttributeList.decimalFloat(text, signed: false) else {
            throw error(.invalidDuration, "#\(tag.rawValue):\(text) is not a duration in seconds")
        }
        guard seconds <= limits.maxSegmentDuration else {
            throw error(
                .invalidDuration,
                "#\(tag.rawValue):\(text) is longer than the limit of \(limits.maxSegmentDuration) seconds")
        }
        return seconds
    }

    /// `#EXT-X-MEDIA-SEQUENCE` or `#EXT-X-DISCONTINUITY-SEQUENCE`: once, before the first segment.
    private func headerInteger(_ text: Substring, tag: Tag, current: Int?) throws(HLSPlaylistError) -> Int {
        guard current == nil else { throw error(.invalidTag, "#\(tag.rawValue) appears twice") }
        guard segments.isEmpty else { throw error(.invalidTag, "#\(tag.rawValue) follows the first segment") }
        guard let number = HLSAttributeList.decimalInteger(text.trimmingCharacters(in: .whitespaces)) else {
            throw error(.invalidTag, "#\(tag.rawValue):\(text) is not a decimal integer")
        }
        return number
    }

    /// `<length>[@<offset>]`.
    private func byteRange(_ text: Substring, tag: Tag) throws(HLSPlaylistError) -> (length: Int, offset: Int?) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let length = HLSAttributeList.decimalInteger(parts[0]) else {
            throw error(.invalidAttribute, "#\(tag.rawValue): the byte range \"\(text)\" has no valid length")
        }
        guard parts.count == 2 else { return (length, nil) }
        guard let offset = HLSAttributeList.decimalInteger(parts[1]) else {
            throw error(.invalidAttribute, "#\(tag.rawValue): the byte range \"\(text)\" has no valid offset")
        }
        return (length, offset)
    }

    private func checkedRange(length: Int, offset: Int) throws(HLSPlaylistError) -> HLSByteRange {
        guard !offset.addingReportingOverflow(length).overflow else {
            throw error(.invalidAttribute, "the byte range \(length)@\(offset) ends beyond \(Int.max)")
        }
        return HLSByteRange(length: length, offset: offset)
    }

    /// `#EXT-X-KEY` or `#EXT-X-SESSION-KEY`.
    func key(_ attributes: HLSAttributeList) throws(HLSPlaylistError) -> HLSKey {
        let method = HLSKey.Method(try attributes.require(attributes.enumeratedString("METHOD"), "METHOD"))
        // Section 4.3.2.4: with NONE the other attributes must not be present; they are ignored.
        if method == .none { return HLSKey(method: .none) }
        let uri = try resolve(attributes.require(attributes.quotedString("URI"), "URI"), "key URI")
        var iv = try attributes.hexadecimal("IV")
        if var bytes = iv {
            // A 128-bit number: leading zero bytes beyond 16 are harmless, significant ones are not.
            while bytes.count > 16, bytes.first == 0 { bytes.removeFirst() }
            guard bytes.count <= 16 else { throw attributes.error("IV is wider than 128 bits") }
            iv = [UInt8](repeating: 0, count: 16 - bytes.count) + bytes
        }
        return HLSKey(
            method: method, uri: uri, iv: iv, keyFormat: try attributes.quotedString("KEYFORMAT"),
            keyFormatVersions: try attributes.quotedString("KEYFORMATVERSIONS"))
    }

    /// The URI line of a segment: the pending tags and those in effect make the segment.
    mutating func appendSegment(uri: URL) throws(HLSPlaylistError) {
        guard segments.count < limits.maxSegments else {
            throw error(.tooManyEntries, "more than \(limits.maxSegments) segments")
        }
        guard let duration = pending.duration else { preconditionFailure("a segment without #EXTINF (\(#function))") }
        let (sequence, o1) = (mediaSequence ?? 0).addingReportingOverflow(segments.count)
        if pending.isDiscontinuity { discontinuities += 1 }
        let (discontinuitySequence, o2) = (self.discontinuitySequence ?? 0).addingReportingOverflow(discontinuities)
        guard !o1, !o2 else { throw error(.invalidTag, "the segment's sequence number overflows") }

        var range: HLSByteRange?
        if let (length, offset) = pending.byteRange {
            if let offset {
                range = try checkedRange(length: length, offset: offset)
            } else {
                // Section 4.3.2.2: without an offset the sub-range follows the previous segment's, which must be a
                // sub-range of the same resource, or the client must fail to parse the playlist.
                guard let previous = segments.last, previous.uri == uri, let previousRange = previous.byteRange else {
                    throw error(
                        .invalidAttribute,
                        "#EXT-X-BYTERANGE:\(length) has no offset and the previous segment is not a sub-range of "
                            + uri.absoluteString)
                }
                range = try checkedRange(length: length, offset: previousRange.offset + previousRange.length)
            }
        }

        var date = pending.programDateTime
        if date == nil, !pending.isDiscontinuity, let previous = segments.last,
            let previousDate = previous.programDateTime
        {
            date = previousDate.addingTimeInterval(previous.duration)
        }

        segments.append(
            HLSSegment(
                uri: uri, duration: duration, title: pending.title, sequenceNumber: sequence,
                discontinuitySequence: discontinuitySequence, isDiscontinuity: pending.isDiscontinuity,
                byteRange: range, programDateTime: date,
                key: keysByFormat["identity"] ?? lastKeyFormat.flatMap { keysByFormat[$0] }, map: map,
                isGap: pending.isGap, bitrate: range == nil ? bitrate : nil))
        pending = PendingSegment()
    }

    /// `#EXT-X-DATERANGE` (section 4.3.2.7). A tag whose `ID` an earlier one has updates it: its attributes are
    /// added to the earlier ones, as 8216bis says and RFC 8216's own SCTE-35 example (section 8.10) needs (the tag
    /// that adds `SCTE35-IN` and `DURATION` there has no `START-DATE`).
    private func dateRange(
        _ attributes: HLSAttributeList, id: String, updating earlier: HLSDateRange?
    ) throws(HLSPlaylistError) -> HLSDateRange {
        var startDate = earlier?.startDate
        if let startText = try attributes.quotedString("START-DATE") {
            guard let date = HLSProgramDate.date(from: startText) else {
                throw attributes.error("START-DATE=\"\(startText)\" is not an ISO 8601 date and time")
            }
            startDate = date
        }
        var range = HLSDateRange(id: id, startDate: try attributes.require(startDate, "START-DATE"))
        if let earlier {
            range = earlier
            range.startDate = startDate ?? earlier.startDate
        }
        if let endText = try attributes.quotedString("END-DATE") {
            guard let date = HLSProgramDate.date(from: endText) else {
                throw attributes.error("END-DATE=\"\(endText)\" is not an ISO 8601 date and time")
            }
            range.endDate = date
        }
        if let endDate = range.endDate, endDate < range.startDate {
            throw attributes.error("END-DATE is before START-DATE")
        }
        range.classAttribute = try attributes.quotedString("CLASS") ?? range.classAttribute
        range.duration = try attributes.decimalFloat("DURATION") ?? range.duration
        range.plannedDuration = try attributes.decimalFloat("PLANNED-DURATION") ?? range.plannedDuration
        range.endOnNext = try attributes.boolean("END-ON-NEXT") ?? range.endOnNext
        if range.endOnNext {
            guard range.classAttribute != nil else { throw attributes.error("END-ON-NEXT=YES needs a CLASS") }
            guard range.duration == nil, range.endDate == nil else {
                throw attributes.error("END-ON-NEXT=YES must not come with DURATION or END-DATE")
            }
        }
        range.scte35Command = try attributes.hexadecimal("SCTE35-CMD").map { Data($0) } ?? range.scte35Command
        range.scte35Out = try attributes.hexadecimal("SCTE35-OUT").map { Data($0) } ?? range.scte35Out
        range.scte35In = try attributes.hexadecimal("SCTE35-IN").map { Data($0) } ?? range.scte35In
        for attribute in attributes.attributes where attribute.name.hasPrefix("X-") {
            range.clientAttributes[attribute.name] = try attributes.inferredValue(attribute.name)
        }
        return range
    }
}
