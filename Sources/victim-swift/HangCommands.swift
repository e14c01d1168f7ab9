/// Main-thread hangs; filled by the hang detector work.
let hangCommands: [VictimCommand] = []
