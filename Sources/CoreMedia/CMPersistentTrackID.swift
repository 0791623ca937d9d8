/// A persistent identifier for a track in a media file or composition (C `CMPersistentTrackID`, an `int32_t`).
public typealias CMPersistentTrackID = Int32

/// The track ID that no track has (Apple: `kCMPersistentTrackID_Invalid`, 0).
public var kCMPersistentTrackID_Invalid: CMPersistentTrackID { 0 }
