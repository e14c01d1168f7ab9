/// The order in which the configurations of one comparison are run: every
/// round runs each configuration once, and the order reverses from one round
/// to the next (A B C, C B A, A B C, …) so that slow drift of the machine
/// (load, frequency, page cache) falls on every configuration alike. The
/// first `warmup` rounds are run and discarded.
public struct BenchSchedule: Sendable, Equatable {
    /// One run in the schedule.
    public struct Slot: Sendable, Equatable {
        /// Index into the configurations.
        public var config: Int
        /// Round number, 0-based, counting warm-up rounds.
        public var round: Int
        /// True for a warm-up run: its samples are discarded.
        public var warmup: Bool
    }

    /// The runs, in order.
    public var slots: [Slot]

    /// `rounds` measured rounds after `warmup` discarded ones, over
    /// `configs` configurations.
    public init(configs: Int, rounds: Int, warmup: Int) {
        var slots: [Slot] = []
        for round in 0..<(warmup + rounds) {
            let order = round % 2 == 0 ? Array(0..<configs) : Array((0..<configs).reversed())
            for c in order { slots.append(Slot(config: c, round: round, warmup: round < warmup)) }
        }
        self.slots = slots
    }
}
