import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// What a metadata output's delegate got: each group's title and time.
private final class TitleLog: NSObject, AVPlayerItemMetadataOutputPushDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "icy-log")
    private let lock = ConditionLock()
    private var _groups: [(title: String?, time: Double, identifiers: [String], track: AVPlayerItemTrack?)] = []

    var groups: [(title: String?, time: Double, identifiers: [String], track: AVPlayerItemTrack?)] {
        queue.sync {}
        return lock.withLock { _groups }
    }

    func metadataOutput(
        _ output: AVPlayerItemMetadataOutput, didOutputTimedMetadataGroups groups: [AVTimedMetadataGroup],
        from track: AVPlayerItemTrack?
    ) {
        for group in groups {
            let title = group.items.first { $0.identifier == .icyMetadataStreamTitle }?.stringValue
            lock.withLock {
                _groups.append(
                    (title, group.timeRange.start.seconds, group.items.compactMap(\.identifier?.rawValue), track))
            }
        }
    }
}

/// ICY (SHOUTcast/Icecast) `StreamTitle` changes of an MP3 radio stream served on loopback (`ICYStream` over
/// `audio.mp3`, 256 kb/s, 768-byte MP3 frames of 24 ms): each reaches the metadata output once, in order, at the
/// time of the audio read where its block lies in the byte stream.
final class ICYMetadataTests: XCTestCase {
    /// Blocks every 16 000 bytes: block 1 "ICY 1" and block 2 "ICY 2" lie in the first 32 KiB, which libavformat
    /// reads while the item opens (its I/O buffer, probing the MP3), so only "ICY 2" counts, from the start; block
    /// 3 "ICY 3" and block 5 (block 4 is empty: no change) come as playback reads them.
    func test_streamTitles_reachTheOutput_inOrder_atTheirPlaceInTheStream() throws {
        let url = try fixture(.audioMP3)
        let metaint = 16_000
        let stream = ICYStream(
            audio: try Data(contentsOf: url), metaint: metaint,
            titles: [1: "ICY 1", 2: "ICY 2", 3: "ICY 3", 5: "ICY 5 'quoted'"])
        let server = try HTTPTestServer()
        stream.serve(on: server, at: "/radio")
        // Where a block lies: the MP3 frame holding its audio byte, on the item's timeline.
        let origin = try ProbeReport.probe(url).format.startTime ?? 0
        let frames = try ProbeReport.packetPositions(url).map { (time: $0.seconds - origin, pos: $0.position) }
        func frameTime(block k: Int) -> Double { frames.last { $0.pos <= k * metaint }?.time ?? -1 }

        let v = VirtualPlayer(captureAudio: false)
        let item = AVPlayerItem(url: server.url("radio"))
        let output = AVPlayerItemMetadataOutput(identifiers: [AVMetadataIdentifier.icyMetadataStreamTitle.rawValue])
        let log = TitleLog()
        output.setDelegate(log, queue: log.queue)
        item.add(output)
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        v.player.play()
        waitUntil("end", timeout: 30) { ended.count > 0 }
        let groups = log.groups
        XCTAssertEqual(groups.map(\.title), ["ICY 2", "ICY 3", "ICY 5 'quoted'"])
        XCTAssertEqual(groups.map(\.identifiers), Array(repeating: ["icy/StreamTitle"], count: groups.count))
        XCTAssertTrue(groups.allSatisfy { $0.track == nil }, "the transport carries ICY, not a track")
        // Within one MP3 frame (24 ms) of the frame holding the block's byte (the demuxer reads 1 KiB at a time).
        for (group, time) in zip(groups, [0, frameTime(block: 3), frameTime(block: 5)]) {
            XCTAssertEqual(group.time, time, accuracy: 0.03, group.title ?? "")
        }
        waitUntil("timedMetadata") { item.timedMetadata?.first?.stringValue == "ICY 5 'quoted'" }
        XCTAssertEqual(item.timedMetadata?.first?.commonKey, .commonKeyTitle)
        withExtendedLifetime(server) {}
    }
}
