import Foundation

/// Compares test output with a golden file checked in next to the tests (Media3's `DumpFileAsserts`), or rewrites
/// the file when ``updateVariable`` is set.
///
/// Golden files are found through the test's `#filePath` (no resource bundles): e.g.
/// `URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/x.dump")`.
///
/// ```swift
/// if let failure = GoldenFile.verify(dump.text, file: url, regenerate: "make golden") { XCTFail(failure) }
/// ```
public enum GoldenFile {
    /// Set to `1` to write the output over the golden files instead of comparing (`make golden`).
    public static let updateVariable = "OAVF_UPDATE_GOLDEN"

    /// Whether this run rewrites golden files.
    public static var isUpdating: Bool {
        let value = ProcessInfo.processInfo.environment[updateVariable] ?? ""
        return !value.isEmpty && value != "0"
    }

    /// Checks `actual` against the golden file at `file`. Returns `nil` when they are equal (or, when updating, once
    /// the file is written), otherwise a message for the test failure: which file, a unified diff of the first
    /// differing lines with context, and `regenerate`, the command that rewrites the file.
    public static func verify(_ actual: String, file: URL, regenerate: String) -> String? {
        if isUpdating {
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                let current = try? String(contentsOf: file, encoding: .utf8)
                if current != actual { try actual.write(to: file, atomically: true, encoding: .utf8) }
                return nil
            } catch {
                return "cannot write golden file \(file.path): \(error)"
            }
        }
        let hint =
            "If the change is intended, regenerate with `\(regenerate)` (\(updateVariable)=1) and review the diff."
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            return "golden file \(file.path) is missing. \(hint)"
        }
        guard
            let diff = LineDiff.unified(
                expected: lines(expected), actual: lines(actual), expectedName: "golden \(file.lastPathComponent)",
                actualName: "this run")
        else { return nil }
        return "output differs from golden file \(file.path):\n\(diff)\n\(hint)"
    }

    /// `text` split into lines, without the final newline's empty line.
    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
