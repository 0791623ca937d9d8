import AVFoundation
import Foundation
import OAVFLocking
import TestSupport
import XCTest

/// API apps call that was missing: prerolls, the deprecated selection and date-seek spellings, track segments, the
/// completion-handler `load…` forms. Public API only.
final class AppleAPIAdditionsTests: XCTestCase {
    func test_preroll_completesTrueOnceTheItemIsReady_andFalseWhenCancelledOrInterrupted() async throws {
        let player = AVPlayer()
        player.sourceClock = VirtualClock(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        player.replaceCurrentItem(with: item)
        XCTAssertEqual(player.status, .readyToPlay)
        // Pending until the item is ready, then true.
        let first = await player.preroll(atRate: 1)
        XCTAssertTrue(first)
        XCTAssertEqual(item.status, .readyToPlay)
        // Ready already: true.
        let again = await player.preroll(atRate: 1)
        XCTAssertTrue(again)

        // Cancelled while pending: false, once.
        let other = AVPlayerItem(url: try fixture(.videoOnly))
        player.replaceCurrentItem(with: other)
        let results = Locked<[Bool]>([])
        player.preroll(atRate: 1) { finished in results.withLock { $0.append(finished) } }
        player.cancelPendingPrerolls()
        waitUntil("the cancelled preroll completes") { !results.withLock { $0 }.isEmpty }
        // A rate change interrupts one too.
        let third = AVPlayerItem(url: try fixture(.audioWAV))
        player.replaceCurrentItem(with: third)
        player.preroll(atRate: 1) { finished in results.withLock { $0.append(finished) } }
        player.rate = 1
        waitUntil("the interrupted preroll completes") { results.withLock { $0 }.count == 2 }
        settle(player)
        XCTAssertEqual(results.withLock { $0 }, [false, false])
        player.pause()
    }

    func test_selectedMediaOption_isTheCurrentSelections() async throws {
        let asset = AVURLAsset(url: try fixture(.multiAudioSubtitles))
        let loadedGroup = try await asset.loadMediaSelectionGroup(for: .audible)
        let group = try XCTUnwrap(loadedGroup)
        let item = AVPlayerItem(asset: asset)
        let french = try XCTUnwrap(group.options.first { $0.extendedLanguageTag == "fr" })
        item.select(french, in: group)
        XCTAssertEqual(item.selectedMediaOption(in: group), french)
        XCTAssertEqual(item.selectedMediaOption(in: group), item.currentMediaSelection.selectedMediaOption(in: group))
    }

    func test_dateSeeks_withoutDates_doNothing() throws {
        let player = AVPlayer(url: try fixture(.videoOnly))
        player.seek(to: Date())
        XCTAssertFalse(try XCTUnwrap(player.currentItem).seek(to: Date()))
        XCTAssertEqual(
            AVPlayerItem.timeJumpedOriginatingParticipantKey, "AVPlayerItemTimeJumpedOriginatingParticipantKey")
    }

    func test_trackSegments_mapTheTrackTimeRangeToItself() async throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let videoTracks = try await asset.loadTracks(withMediaType: .video)
        let track = try XCTUnwrap(videoTracks.first)
        let range = try await track.load(.timeRange)
        let segments = try await track.load(.segments)
        XCTAssertEqual(segments.count, 1)
        XCTAssertEqual(segments.first?.timeMapping.source, range)
        XCTAssertEqual(segments.first?.timeMapping.target, range)
        XCTAssertEqual(segments.first?.isEmpty, false)
        let inside = try await track.loadSegment(forTrackTime: CMTime(value: 5, timescale: 1))
        XCTAssertEqual(inside?.timeMapping.target, range)
        XCTAssertEqual(track.statusOfValue(forKey: "segments", error: nil), .loaded)
    }

    func test_completionHandlerLoads() throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let results = Locked<[String]>([])
        let done = expectation(description: "three loads")
        done.expectedFulfillmentCount = 3
        asset.loadTracks(withMediaCharacteristic: .audible) { tracks, error in
            results.withLock { $0.append("audible \(tracks?.map(\.mediaType.rawValue) ?? []) \(error == nil)") }
            done.fulfill()
        }
        asset.loadTrack(withTrackID: 1) { track, error in
            results.withLock { $0.append("track \(track?.trackID ?? -1) \(error == nil)") }
            done.fulfill()
        }
        asset.loadMetadata(for: asset.availableMetadataFormats.first ?? .quickTimeMetadata) { items, error in
            results.withLock { $0.append("metadata \((items ?? []).isEmpty == false) \(error == nil)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        XCTAssertEqual(
            Set(results.withLock { $0 }), ["audible [\"soun\"] true", "track 1 true", "metadata true true"])

        // A file that does not load: the error, no value.
        let broken = AVURLAsset(url: try fixture(.text))
        let failed = expectation(description: "failure")
        broken.loadTrack(withTrackID: 1) { track, error in
            XCTAssertNil(track)
            XCTAssertNotNil(error)
            failed.fulfill()
        }
        wait(for: [failed], timeout: 20)
    }

    /// The item's timebase posts the CMTimebase notifications apps observe: the effective rate when playback starts
    /// and stops, a time jump on a seek.
    func test_itemTimebase_postsRateChangesAndTimeJumps() throws {
        let player = AVPlayer()
        let clock = VirtualClock(mode: .manual)
        player.sourceClock = clock
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let timebase = try XCTUnwrap(item.timebase)
        let rates = Locked<[Double]>([])
        let jumps = Locked<[CMTime]>([])
        let center = NotificationCenter.default
        let tokens = [
            center.addObserver(
                forName: Notification.Name(kCMTimebaseNotification_EffectiveRateChanged as String), object: timebase,
                queue: nil
            ) { _ in rates.withLock { $0.append(CMTimebaseGetEffectiveRate(timebase)) } },
            center.addObserver(
                forName: Notification.Name(kCMTimebaseNotification_TimeJumped as String), object: timebase, queue: nil
            ) { note in
                if let time = note.userInfo?[kCMTimebaseNotificationKey_EventTime] as? CMTime {
                    jumps.withLock { $0.append(time) }
                }
            },
        ]
        defer { tokens.forEach(center.removeObserver) }
        player.play()
        waitUntil("playing") { player.timeControlStatus == .playing }
        player.pause()
        let done = Locked<Bool?>(nil)
        player.seek(to: CMTime(value: 4, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            done.withLock { $0 = ok }
        }
        waitUntil("the seek") { done.withLock { $0 } != nil }
        waitUntil("the jump") { !jumps.withLock { $0 }.isEmpty }
        XCTAssertEqual(rates.withLock { $0 }, [1, 0])
        XCTAssertEqual(jumps.withLock { $0 }.last, CMTime(value: 4, timescale: 1))
    }

    /// Metadata values typed as on Apple's systems, and items of one's own with `AVMutableMetadataItem`, found by the
    /// class filters apps use.
    func test_metadataItems_typedValues_andMutableItems() async throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let common = try await asset.load(.commonMetadata)
        let title = try XCTUnwrap(
            AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierTitle).first)
        XCTAssertTrue(title.value is NSString)
        XCTAssertEqual(title.stringValue, "OpenAVFoundation Test")
        XCTAssertEqual(title.dataType, kCMMetadataBaseDataType_UTF8)
        XCTAssertEqual(title.keySpace, .common)
        XCTAssertEqual(title.time, .invalid)
        XCTAssertNil(title.startDate)
        let created = try XCTUnwrap(
            AVMetadataItem.metadataItems(from: common, withKey: AVMetadataKey.commonKeyCreationDate, keySpace: .common)
                .first)
        XCTAssertEqual(created.dateValue, ISO8601DateFormatter().date(from: "2020-01-02T03:04:05Z"))

        let mine = AVMutableMetadataItem()
        mine.identifier = .commonIdentifierTitle
        mine.value = "Ma vidéo" as NSString
        mine.extendedLanguageTag = "fr"
        XCTAssertEqual(mine.keySpace, .common)
        XCTAssertEqual((mine.key as? NSString).map { String($0) }, "title")
        XCTAssertEqual(mine.dataType, kCMMetadataBaseDataType_UTF8)
        // Key space and key set one after the other (KDEAudioPlayer's way) give the common key too.
        let titled = AVMutableMetadataItem()
        titled.keySpace = .common
        titled.key = AVMetadataKey.commonKeyTitle.rawValue as NSString
        XCTAssertEqual(titled.commonKey, .commonKeyTitle)
        XCTAssertEqual(titled.identifier, .commonIdentifierTitle)
        let rating = AVMutableMetadataItem()
        rating.keySpace = .iTunes
        rating.key = "rtng" as NSString
        rating.value = NSNumber(value: 4)
        XCTAssertEqual(rating.identifier?.rawValue, "itsk/rtng")
        XCTAssertEqual(rating.numberValue, 4)
        XCTAssertEqual(rating.dataType, kCMMetadataBaseDataType_SInt64)
        rating.value = NSNumber(value: 4.5)
        XCTAssertEqual(rating.dataType, kCMMetadataBaseDataType_Float64)
        let cover = AVMutableMetadataItem()
        cover.identifier = .commonIdentifierArtwork
        cover.value = Data([0x89, 0x50, 0x4E, 0x47]) as NSData
        cover.dataType = kCMMetadataBaseDataType_PNG
        XCTAssertEqual(cover.dataValue, Data([0x89, 0x50, 0x4E, 0x47]))
        XCTAssertEqual(cover.dataType, kCMMetadataBaseDataType_PNG)
        mine.time = CMTime(value: 2, timescale: 1)
        mine.duration = CMTime(value: 1, timescale: 1)
        XCTAssertEqual(mine.time, CMTime(value: 2, timescale: 1))
        let all: [AVMetadataItem] = [mine, rating, cover]
        XCTAssertTrue(AVMetadataItem.metadataItems(from: all, filteredByIdentifier: .commonIdentifierTitle) == [mine])
        XCTAssertTrue(AVMetadataItem.metadataItems(from: all, withKey: "rtng", keySpace: .iTunes) == [rating])
        XCTAssertTrue(
            AVMetadataItem.metadataItems(from: all, filteredAndSortedAccordingToPreferredLanguages: ["fr-FR"]) == [mine]
        )
        // An immutable copy keeps the values.
        let frozen = try XCTUnwrap(mine.copy() as? AVMetadataItem)
        XCTAssertFalse(frozen is AVMutableMetadataItem)
        XCTAssertEqual(frozen.stringValue, "Ma vidéo")
    }

    /// Spellings player code uses with `import AVFoundation` alone, which on Apple's systems bring Core Foundation's
    /// time functions and Foundation's networking classes.
    func test_coreFoundationTime_andNetworkingClasses_comeWithTheImport() throws {
        let now: CFAbsoluteTime = CFAbsoluteTimeGetCurrent()
        XCTAssertEqual(now, Date().timeIntervalSinceReferenceDate, accuracy: 5)
        XCTAssertEqual(
            Date(timeIntervalSince1970: kCFAbsoluteTimeIntervalSince1970), Date(timeIntervalSinceReferenceDate: 0))
        let request = URLRequest(url: URL(string: "http://127.0.0.1:9/artwork.png")!)
        XCTAssertEqual(request.url?.lastPathComponent, "artwork.png")
        let cookie = try XCTUnwrap(HTTPCookie(properties: [.name: "a", .value: "b", .domain: "x.test", .path: "/"]))
        XCTAssertEqual(cookie.value, "b")
        XCTAssertNotNil(URLSession.shared)
    }
}
