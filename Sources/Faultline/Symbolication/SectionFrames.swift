/// Finds stack frames inside detector sections the report model does not
/// type (`Report.sections`, `user`): any array of objects that carry a `"pc"`
/// is taken as a stack, innermost first, with the same frame semantics as a
/// thread (`image`, `offset`, `return_address`, `symbol`). This lets a new
/// detector's stacks be symbolicated and printed without changes here.
enum SectionFrames {
    /// `value` with every frame object passed through `transform`
    /// (`index` is the frame's position in its stack).
    static func map(_ value: JSONValue, _ transform: (_ frame: [String: JSONValue], _ index: Int) -> [String: JSONValue]) -> JSONValue {
        switch value {
        case .array(let items):
            if isStack(items) {
                return .array(items.enumerated().map { i, item in
                    guard case .object(let o) = item else { return item }
                    return .object(transform(o, i))
                })
            }
            return .array(items.map { map($0, transform) })
        case .object(let o):
            return .object(o.mapValues { map($0, transform) })
        default:
            return value
        }
    }

    /// The frames of a stack section, nil when it is not one.
    static func stack(_ value: JSONValue?) -> [Report.Frame]? {
        value?.arrayValue.flatMap(frames)
    }

    /// True when `items` is a non-empty array of objects with a `"pc"`.
    static func isStack(_ items: [JSONValue]) -> Bool {
        !items.isEmpty && items.allSatisfy { item in
            if case .object(let o) = item, o["pc"]?.stringValue != nil { return true }
            return false
        }
    }

    /// The typed frames of a stack (`isStack`), nil when `items` is not one
    /// or a frame does not decode.
    static func frames(_ items: [JSONValue]) -> [Report.Frame]? {
        guard isStack(items) else { return nil }
        let frames = items.compactMap { item -> Report.Frame? in
            if case .object(let o) = item { return frame(o) }
            return nil
        }
        return frames.count == items.count ? frames : nil
    }

    /// The typed frame a frame object describes, nil when it has no `pc`.
    static func frame(_ o: [String: JSONValue]) -> Report.Frame? {
        SectionFrameValues.frame(o) ?? (try? JSONValue.object(o).decode(Report.Frame.self))
    }

    /// `symbol` as a JSON value, as the report writes it.
    static func json(_ symbol: Report.Symbol) -> JSONValue? {
        SectionFrameValues.json(symbol)
    }
}
