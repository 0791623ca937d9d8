/// A line-based unified diff for test failure messages: what a golden file expected against what a run produced.
///
/// Lines common to both ends are trimmed first; the rest is aligned by a longest common subsequence (quadratic, but
/// only over the differing middle, and golden files are a few hundred lines), then printed as `diff -u` hunks with
/// `context` unchanged lines around each change. At most `maximumLines` lines are printed; the rest is counted.
public enum LineDiff {
    /// One step of an alignment.
    enum Edit: Equatable {
        case same(String)
        case removed(String)
        case added(String)
    }

    /// A unified diff of `expected` → `actual` with headers `--- expectedName` / `+++ actualName`, or `nil` when
    /// the two are equal.
    public static func unified(
        expected: [String], actual: [String], expectedName: String = "expected", actualName: String = "actual",
        context: Int = 3, maximumLines: Int = 60
    ) -> String? {
        guard expected != actual else { return nil }
        let edits = align(expected, actual)
        // Group changes into hunks: a change and `context` lines each side, merging hunks that touch.
        var hunks: [Range<Int>] = []
        for (index, edit) in edits.enumerated() {
            if case .same = edit { continue }
            let range = max(0, index - context)..<min(edits.count, index + context + 1)
            if let last = hunks.last, last.upperBound >= range.lowerBound {
                hunks[hunks.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                hunks.append(range)
            }
        }
        // Line numbers (1-based) in each file where each edit starts.
        var oldLine = [Int](repeating: 0, count: edits.count + 1)
        var newLine = [Int](repeating: 0, count: edits.count + 1)
        var (o, n) = (1, 1)
        for (index, edit) in edits.enumerated() {
            (oldLine[index], newLine[index]) = (o, n)
            switch edit {
            case .same: (o, n) = (o + 1, n + 1)
            case .removed: o += 1
            case .added: n += 1
            }
        }
        var out = ["--- \(expectedName)", "+++ \(actualName)"]
        var printed = 0
        var omitted = 0
        for hunk in hunks {
            let edits = edits[hunk]
            let oldCount = edits.filter { if case .added = $0 { false } else { true } }.count
            let newCount = edits.filter { if case .removed = $0 { false } else { true } }.count
            let header = "@@ -\(oldLine[hunk.lowerBound]),\(oldCount) +\(newLine[hunk.lowerBound]),\(newCount) @@"
            for line in [header] + edits.map(render) {
                if printed < maximumLines {
                    out.append(line)
                    printed += 1
                } else {
                    omitted += 1
                }
            }
        }
        if omitted > 0 { out.append("… \(omitted) more diff lines not shown") }
        return out.joined(separator: "\n")
    }

    private static func render(_ edit: Edit) -> String {
        switch edit {
        case .same(let line): return " " + line
        case .removed(let line): return "-" + line
        case .added(let line): return "+" + line
        }
    }

    /// The alignment of `a` and `b`: common prefix and suffix, and a longest common subsequence between them.
    static func align(_ a: [String], _ b: [String]) -> [Edit] {
        var prefix = 0
        while prefix < a.count && prefix < b.count && a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix && suffix < b.count - prefix
            && a[a.count - 1 - suffix] == b[b.count - 1 - suffix]
        {
            suffix += 1
        }
        let x = Array(a[prefix..<(a.count - suffix)])
        let y = Array(b[prefix..<(b.count - suffix)])
        var edits = a[..<prefix].map(Edit.same)
        if x.count * y.count > 4_000_000 {
            // Too large to align (not a golden file): everything in the middle differs.
            edits += x.map(Edit.removed) + y.map(Edit.added)
        } else {
            edits += middle(x, y)
        }
        edits += a[(a.count - suffix)...].map(Edit.same)
        return edits
    }

    /// Longest-common-subsequence alignment of `x` and `y` (removals before additions within a change).
    private static func middle(_ x: [String], _ y: [String]) -> [Edit] {
        let (n, m) = (x.count, y.count)
        // lcs[i][j]: length of the LCS of x[i...] and y[j...], in one flat array.
        var lcs = [Int32](repeating: 0, count: (n + 1) * (m + 1))
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lcs[i * (m + 1) + j] =
                    x[i] == y[j]
                    ? lcs[(i + 1) * (m + 1) + j + 1] + 1 : max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1])
            }
        }
        var edits: [Edit] = []
        var (i, j) = (0, 0)
        while i < n || j < m {
            if i < n && j < m && x[i] == y[j] {
                edits.append(.same(x[i]))
                (i, j) = (i + 1, j + 1)
            } else if i < n && (j == m || lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1]) {
                edits.append(.removed(x[i]))
                i += 1
            } else {
                edits.append(.added(y[j]))
                j += 1
            }
        }
        return edits
    }
}
