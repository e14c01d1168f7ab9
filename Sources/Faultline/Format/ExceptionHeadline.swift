/// An uncaught C++ exception in one line — its type, its message, the
/// exceptions nested in it and the thread that threw it — for a
/// `cxx_exception` report, whose `exception` section otherwise comes after
/// every thread. Printed under the header line.
enum ExceptionHeadline {
    /// The line for `report`, or none for other kinds.
    static func lines(_ report: Report) -> [String] {
        guard report.kind == "cxx_exception", let e = report.sections["exception"] else { return [] }
        if e["no_active_exception"]?.boolValue == true { return ["std::terminate() called with no exception in flight"] }
        var text = "uncaught C++ exception " + describe(e)
        if e["rethrown"]?.boolValue == true { text += ", rethrown with `throw;`" }
        if let tid = e["throw_tid"]?.integerValue, tid != report.crashedThread.map({ Int64($0.tid) }) {
            text += ", thrown on thread \(tid)"
        }
        for inner in e["nested"]?.arrayValue ?? [] { text += "; nested: " + describe(inner) }
        return [text]
    }

    /// `std::runtime_error: "message"`; `unknownType` stands for a type
    /// the report does not name.
    static func describe(_ e: JSONValue, unknownType: String = "of unknown type") -> String {
        let type = e["type"]?.stringValue ?? unknownType
        guard let message = e["message"]?.stringValue else { return type }
        return "\(type): \"\(message)\""
    }
}
