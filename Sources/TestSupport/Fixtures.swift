import Foundation

/// Finds the generated test-media set (DESIGN.md "Test media"), generating it on first use.
///
/// The folder is, in order of preference:
/// 1. the `OAVF_FIXTURES` environment variable, when set (nothing is generated; CI can point at a prepared set);
/// 2. the last line printed by `scripts/make-fixtures`, which is run at most once per process. The script keeps the
///    set in `${OAVF_FIXTURE_CACHE:-<repo>/.cache/fixtures}/<hash of the script>/` and returns at once when that
///    folder exists, so only the first test process after a script change pays for generation (about 40 s on two
///    busy cores).
///
/// The lookup is thread-safe: its result, success or failure, is a `static let`, computed once.
///
/// ```swift
/// let url = try Fixtures.url(.h264AAC)
/// let facts = Fixture.h264AAC.facts
/// ```
public enum Fixtures {
    /// The environment variable naming a ready-made fixture folder.
    public static let folderVariable = "OAVF_FIXTURES"

    /// The repository root: the nearest folder above this source file (symbolic links resolved) that holds
    /// `scripts/make-fixtures`; `nil` if the sources were moved away from their repository.
    public static let repositoryRoot: URL? = findRepositoryRoot(from: URL(fileURLWithPath: #filePath))

    /// The generator script, `<repo>/scripts/make-fixtures`.
    public static var script: URL? {
        repositoryRoot?.appendingPathComponent("scripts/make-fixtures")
    }

    /// The folder holding the fixture set; generates it on the first call in this process if needed.
    public static func directory() throws(FixtureError) -> URL {
        try resolvedDirectory.get()
    }

    /// The URL of `fixture` inside `directory()`; throws if the set cannot be produced or lacks the file.
    public static func url(_ fixture: Fixture) throws(FixtureError) -> URL {
        let url = try directory().appendingPathComponent(fixture.rawValue)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError.missing(fixture, in: url.deletingLastPathComponent())
        }
        return url
    }

    /// The result of the one lookup per process (Swift initialises a `static let` once, thread-safely).
    private static let resolvedDirectory: Result<URL, FixtureError> = resolveDirectory()

    private static func resolveDirectory() -> Result<URL, FixtureError> {
        if let override = ProcessInfo.processInfo.environment[folderVariable], !override.isEmpty {
            let url = URL(fileURLWithPath: override, isDirectory: true)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                return .failure(.overrideNotAFolder(url))
            }
            return .success(url)
        }
        guard let script else {
            return .failure(.repositoryNotFound(searchedFrom: #filePath))
        }
        let result: ExternalTool.Output
        do {
            result = try ExternalTool.run("/bin/bash", [script.path])
        } catch {
            return .failure(.generationFailed(status: -1, standardError: error.description))
        }
        let lines = String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n")
        guard result.status == 0, let last = lines.last, !last.isEmpty else {
            return .failure(.generationFailed(status: result.status, standardError: result.standardError))
        }
        return .success(URL(fileURLWithPath: String(last), isDirectory: true))
    }

    /// Walks up from `file` to the first folder containing `scripts/make-fixtures`.
    static func findRepositoryRoot(from file: URL) -> URL? {
        var folder = file.resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" && !folder.path.isEmpty {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("scripts/make-fixtures").path) {
                return folder
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}

/// Why the fixture set, or one of its files, is unavailable.
public enum FixtureError: Error, Sendable, CustomStringConvertible {
    /// No folder above the TestSupport sources holds `scripts/make-fixtures`.
    case repositoryNotFound(searchedFrom: String)
    /// `OAVF_FIXTURES` names something that is not a folder.
    case overrideNotAFolder(URL)
    /// `scripts/make-fixtures` failed (status -1: it could not be started).
    case generationFailed(status: Int32, standardError: String)
    /// The set lacks the file (an `OAVF_FIXTURES` folder made by another version of the script?).
    case missing(Fixture, in: URL)
    /// The set lacks the file at this path (an `HLSFixture`'s playlist, say).
    case missingFile(String, in: URL)

    public var description: String {
        switch self {
        case .repositoryNotFound(let path):
            return "no scripts/make-fixtures above \(path); set \(Fixtures.folderVariable) to a fixture folder"
        case .overrideNotAFolder(let url):
            return "\(Fixtures.folderVariable)=\(url.path) is not a folder"
        case .generationFailed(let status, let standardError):
            return "scripts/make-fixtures failed with status \(status): \(standardError)"
        case .missing(let fixture, let folder):
            return "fixture \(fixture.rawValue) is missing from \(folder.path)"
        case .missingFile(let path, let folder):
            return "fixture \(path) is missing from \(folder.path)"
        }
    }
}
