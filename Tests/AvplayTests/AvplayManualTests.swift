import Foundation
import TestSupport
import XCTest

/// The manual page and the bash completion that `make install` installs, checked against `avplay --help`: the page is
/// generated from the help (`scripts/avplay-manpage`) and must render; the completion must offer every option the
/// help lists, per subcommand, and `--pitch`'s values.
final class AvplayManualTests: XCTestCase {
    /// The repository's root (this file is Tests/AvplayTests/AvplayManualTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func help() throws -> String {
        let r = try Subprocess.run(AvplayInfoTests.binary.path, ["--help"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    /// The long options a help text (or a rendered page) mentions: `--name`.
    private func longOptions(in text: String) -> Set<String> {
        let regex = try! NSRegularExpression(pattern: "--[a-z][a-z-]*[a-z]")
        let range = NSRange(text.startIndex..., in: text)
        return Set(
            regex.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } })
    }

    private func manPage() throws -> String {
        let script = Self.root.appendingPathComponent("scripts/avplay-manpage").path
        let r = try Subprocess.run(script, [AvplayInfoTests.binary.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    func test_manPage_isTheHelpText_inRoffSections() throws {
        let page = try manPage()
        let help = try help()
        XCTAssertTrue(page.hasPrefix(".\\\""), "starts with a comment saying it is generated")
        XCTAssertTrue(page.contains("\n.TH AVPLAY 1 "), "title header")
        let sections = page.split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { String($0.dropFirst(4)) }
        XCTAssertEqual(
            sections,
            [
                "NAME", "SYNOPSIS", "DESCRIPTION", "BASIC OPTIONS", "KEYS", "INFO", "FRAMES", "STRIPS", "MEMORY",
                "ENVIRONMENT", "EXIT STATUS",
            ])
        // Every option of the help is on the page (roff spells `-` as `\-`), as a tagged paragraph where the help
        // lists it as an item.
        let unescaped = page.replacingOccurrences(of: "\\-", with: "-")
        XCTAssertEqual(longOptions(in: unescaped), longOptions(in: help))
        for option in ["--start=<seconds>", "--pitch=<algorithm>", "--no-window", "--events", "--version"] {
            XCTAssertTrue(unescaped.contains(".TP\n\\fB\(option)\\fR\n"), "\(option) is a tagged paragraph")
        }
        // Every term and text of the help's indented lines is on the page, word for word.
        for line in help.split(separator: "\n") where line.hasPrefix(" ") {
            let parts = line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }
            for part in parts where !part.isEmpty {
                XCTAssertTrue(unescaped.contains(part), "missing: \(part)")
            }
        }
    }

    func test_manPage_rendersWithoutWarnings() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else {
            throw XCTSkip("groff is not installed (scripts/bootstrap installs groff-base)")
        }
        let page = try manPage()
        let r = try Subprocess.run(
            "/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-k"], changes: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8"],
            input: Data(page.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "groff warnings")
        let text = r.stdout.replacingOccurrences(of: "\u{8}.", with: "", options: .regularExpression)
        XCTAssertTrue(text.contains("avplay - play media and inspect it"), "NAME line")
        XCTAssertTrue(text.contains("EXIT STATUS"))
        XCTAssertTrue(text.contains("SDL_AUDIODRIVER"))
    }

    /// The words bash completes after `words` (the last one is the word being completed).
    private func complete(_ words: [String]) throws -> [String] {
        let script = Self.root.appendingPathComponent("share/bash-completion/completions/avplay").path
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let r = try Subprocess.run(
            "/bin/bash",
            [
                "--norc", "-c",
                "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _avplay; "
                    + "printf '%s\\n' \"${COMPREPLY[@]}\"",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout.split(separator: "\n").map(String.init)
    }

    func test_bashCompletion_offersEverySubcommandAndOption() throws {
        let help = try help()
        let subcommands = [
            "play", "info", "frame", "thumbs", "decode-bench", "read-bench", "seek-bench", "memory-bench",
        ]
        for subcommand in subcommands where subcommand != "play" {
            XCTAssertTrue(help.contains("avplay \(subcommand) "), "\(subcommand) is in the help")
        }
        XCTAssertEqual(Set(try complete(["avplay", ""])).intersection(subcommands), Set(subcommands))
        XCTAssertEqual(try complete(["avplay", "--pi"]), ["--pitch"])
        XCTAssertEqual(
            Set(try complete(["avplay", "--pitch", ""])), ["timedomain", "spectral", "varispeed", "lowquality"])
        XCTAssertEqual(try complete(["avplay", "info", "--"]), ["--json"])
        XCTAssertEqual(
            Set(try complete(["avplay", "thumbs", "x.mp4", "--"])),
            [
                "--count", "--every", "--width", "--keyframes", "--output", "--formats", "--tiles", "--quality",
                "--output-dir", "--files-from", "--jobs", "--shard", "--resume", "--dry-run",
            ])
        XCTAssertEqual(try complete(["avplay", "thumbs", "x", "--formats", "vtt,j"]), ["vtt,jellyfin"])

        // Every long option of the help is offered by some subcommand, and nothing else is.
        var offered = Set<String>()
        for words in [["avplay", "--"]] + subcommands.map({ ["avplay", $0, "--"] }) {
            offered.formUnion(try complete(words))
        }
        XCTAssertEqual(offered.subtracting(["--output"]), longOptions(in: help))
    }
}
