/// Heap faults (use after free of a Swift object); filled by the malloc shim work.
let heapCommands: [VictimCommand] = []
