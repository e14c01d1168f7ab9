/// Maximum one-to-one matching between `left` and `right` items where
/// `fits(l, r)` says whether they may pair (augmenting paths; sizes here are tiny).
enum BipartiteMatching {
    /// For each left index, the matched right index or nil.
    static func match(left: Int, right: Int, fits: (Int, Int) -> Bool) -> [Int?] {
        var rightOwner = [Int?](repeating: nil, count: right)
        func augment(_ l: Int, _ seen: inout [Bool]) -> Bool {
            for r in 0..<right where !seen[r] && fits(l, r) {
                seen[r] = true
                if rightOwner[r] == nil || augment(rightOwner[r]!, &seen) {
                    rightOwner[r] = l
                    return true
                }
            }
            return false
        }
        for l in 0..<left {
            var seen = [Bool](repeating: false, count: right)
            _ = augment(l, &seen)
        }
        var result = [Int?](repeating: nil, count: left)
        for (r, owner) in rightOwner.enumerated() { if let owner { result[owner] = r } }
        return result
    }
}
