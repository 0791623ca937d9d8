import Foundation

/// `--events`: one JSON object per line on standard output, for scripts. Every object has `event`
/// (`status`, `time`, `rate`, `timeControlStatus`, `metadata`, `end`, `error`, `exit`) and, when about an item,
/// `index` (0 for the first item played, counting each item that becomes current) and `file`.
final class EventLog: @unchecked Sendable {
    let enabled: Bool
    init(enabled: Bool) { self.enabled = enabled }

    /// Writes `{"event": name, …fields}` as one line, unbuffered.
    func emit(_ name: String, _ fields: [String: Any] = [:]) {
        guard enabled else { return }
        var object = fields
        object["event"] = name
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
