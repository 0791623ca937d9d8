/// Traps on misuse that Apple's framework raises an Objective-C exception for (DESIGN.md:
/// "programmer errors trap, with names"). The message names the API and the rule broken.
@usableFromInline
func apiViolation(
    _ message: String, function: StaticString = #function, file: StaticString = #fileID, line: UInt = #line
)
    -> Never
{
    preconditionFailure("*** AVFoundation API misuse in \(function): \(message)", file: file, line: line)
}
