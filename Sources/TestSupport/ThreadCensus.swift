import Foundation

/// The threads of this process as the kernel lists them (`/proc/self/task/*/comm`), for tests that check that
/// everything a component started has been joined.
public enum ThreadCensus {
    /// The name of every thread of the process (the kernel keeps the first 15 bytes of a name).
    public static func names() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8) else {
                return nil
            }
            return comm.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// How many threads the process has.
    public static var count: Int { names().count }

    /// The threads whose name starts with `prefix` (the engine names its threads "oavf.…").
    public static func names(withPrefix prefix: String) -> [String] {
        names().filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// Dispatch's pool workers (named for their QoS class, e.g. `…-qos.overcommit`): the pool grows and shrinks on
    /// its own schedule, keeping idle workers for a while.
    public static var dispatchWorkers: Int { names().filter { $0.contains("qos") }.count }
}
